/**
 * A user's `agent.ts` or `workflow.ts` that throws (R72-5): the one-line
 * error names the line of that file where it threw — `(…/agent.ts:2)`, read
 * from the stack of what it threw — and `--debug` prints that stack too
 * (`Caused by: …`), not only the wrapper's. In-process, so Deno's stacks
 * (`file://` URLs); the binary's (Bun's, plain paths) are checked in
 * tests/e2e/script_runtime_error_test.ts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { clearAgentCache } from "../../src/agent/load.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { checkScriptErrors } from "../support/script_errors.ts";

Deno.test("R72-5: a throw in agent.ts or workflow.ts names its line; --debug prints the cause's stack", async () => {
  clearAgentCache();
  await checkScriptErrors(runMain);
});

Deno.test("a script that throws a value String() cannot convert is reported on one line, with --debug too", async () => {
  clearAgentCache();
  await using dir = await tempDir();
  const agent = join(dir.path, "Agent", "Odd");
  await Deno.mkdir(agent, { recursive: true });
  const env = { SCOUT_HOME: join(dir.path, "home") };
  for (
    const body of [
      "throw Object.create(null);\nexport default () => {};\n",
      "export default () => { throw Object.create(null); };\n",
    ]
  ) {
    clearAgentCache();
    await Deno.writeTextFile(join(agent, "agent.ts"), body);
    for (const debug of [[], ["--debug"]]) {
      const r = await runMain([...debug, "agent", "ask", "Odd", "hi", "--dry-run"], {
        env,
        cwd: dir.path,
      });
      assert.equal(r.code, 1, r.stderr);
      assert.match(
        r.stderr,
        /^scout-ai: (Cannot load agent script|Agent script) "[^"]*agent\.ts"(:| failed:) \{\}\n/,
      );
      assert.doesNotMatch(r.stderr, /Cannot convert object to primitive value/);
      if (debug.length) assert.match(r.stderr, /\nCaused by: \{\}\n/);
    }
  }
});
