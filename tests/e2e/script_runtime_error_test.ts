/**
 * A user's `agent.ts` or `workflow.ts` that throws (R72-5), from the built
 * binary — Bun writes the script's frames with plain paths — and from source
 * (Deno, `file://` URLs): the one-line error names the script's line, and
 * `--debug` prints the stack of what it threw (`Caused by: …`).
 */
import { buildBinary, runBinary, runScout } from "../support/cli.ts";
import { checkScriptErrors } from "../support/script_errors.ts";

Deno.test("binary: a throw in agent.ts or workflow.ts names its line; --debug shows its stack", async () => {
  await buildBinary();
  await checkScriptErrors(runBinary);
});

Deno.test("from source: a throw in agent.ts or workflow.ts names its line; --debug shows its stack", async () => {
  await checkScriptErrors(runScout);
});
