/**
 * A user's `agent.ts` or `workflow.ts` that throws (R72-5): the one-line
 * error names the line of that file where it threw — `(…/agent.ts:2)`, read
 * from the stack of what it threw — and `--debug` prints that stack too
 * (`Caused by: …`), not only the wrapper's. In-process, so Deno's stacks
 * (`file://` URLs); the binary's (Bun's, plain paths) are checked in
 * tests/e2e/script_runtime_error_test.ts.
 */
import { clearAgentCache } from "../../src/agent/load.ts";
import { runMain } from "../support/cli.ts";
import { checkScriptErrors } from "../support/script_errors.ts";

Deno.test("R72-5: a throw in agent.ts or workflow.ts names its line; --debug prints the cause's stack", async () => {
  clearAgentCache();
  await checkScriptErrors(runMain);
});
