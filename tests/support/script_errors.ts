/**
 * A user's `agent.ts` and `workflow.ts` that throw (R72-5), and the check
 * that the CLI names the line of the script where each threw and, with
 * `--debug`, prints the stack of what it threw (`Caused by: …`). Run
 * in-process (tests/cli/script_error_location_test.ts: Deno's stacks, with
 * `file://` URLs) and as the binary and from source
 * (tests/e2e/script_runtime_error_test.ts: Bun's stacks, plain paths).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type CliResult, tempDir } from "./cli.ts";
import { put } from "./files.ts";

/** A throw on line 4 whose value is a single-use `const` of line 2 (Bun's transpiler inlines it). */
const INLINED = '  const o = JSON.parse("null");\n  // a comment\n  return o.x;\n';

/**
 * The scripts, in SCOUT_HOME `root`: each throws on its line 2, from a
 * function called later, but `inlined` and `inlinedTask` on their line 4 (R94-1).
 */
function scripts(root: string) {
  const helper = "function helper() {\n  return undefined.foo;\n}\n";
  return {
    // throws when run
    agent: put(root, "Agent/T2/agent.ts", `${helper}export default () => { helper(); };\n`),
    // throws when imported
    agentImport: put(root, "Agent/T3/agent.ts", `${helper}helper();\nexport default () => {};\n`),
    workflow: put(
      root,
      "workflows/W/workflow.ts",
      'function boom() {\n  throw new Error("wf boom");\n}\nboom();\n' +
        'export default (api) => api.workflow("W", {});\n',
    ),
    factory: put(
      root,
      "workflows/F/workflow.ts",
      'function boom() {\n  throw new Error("factory boom");\n}\nexport default () => boom();\n',
    ),
    inlined: put(root, "Agent/T4/agent.ts", `export default (api, agent) => {\n${INLINED}};\n`),
    inlinedTask: put(
      root,
      "workflows/I/workflow.ts",
      `function task() {\n${INLINED}}\nexport default (api) =>\n  api.workflow("I", {\n` +
        '    tasks: { t: { type: "string", inputs: {}, run: () => task() } },\n  });\n',
    ),
  };
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Runs the CLI with arguments in a cwd and env. */
export type Run = (
  args: string[],
  opts: { cwd: string; env: Record<string, string> },
) => Promise<CliResult>;

/**
 * Checks each script's error: one line ending `(<script>:<line>)`, exit 1; with
 * `--debug` the same line, then stacks, the cause's with the script's frame.
 *
 * @param run how to run the CLI
 */
export async function checkScriptErrors(run: Run): Promise<void> {
  await using d = await tempDir();
  const f = scripts(d.path);
  const opts = { cwd: d.path, env: { SCOUT_HOME: d.path, HOME: d.path } };
  // arguments, the message's start, the script, its line (2), where the message says (`script:line`)
  const cases: [string[], string, string, number?, string?][] = [
    [["agent", "ask", "T2", "hi"], `Agent script "${f.agent}" failed: `, f.agent],
    [["agent", "ask", "T3", "hi"], `Cannot load agent script "${f.agentImport}": `, f.agentImport],
    [
      ["workflow", "task", "W", "x"],
      `Cannot load workflow file "${f.workflow}": wf boom`,
      f.workflow,
    ],
    [
      ["workflow", "task", "F", "x"],
      `Workflow file "${f.factory}" failed while defining`,
      f.factory,
    ],
    [["agent", "ask", "T4", "hi"], `Agent script "${f.inlined}" failed: `, f.inlined, 4],
    [
      ["workflow", "task", "I", "t"],
      'Job "I/t/Default" failed: ',
      f.inlinedTask,
      4,
      join(d.path, "var/jobs/I/t/Default"), // a task's failure names its job; its stack, the line
    ],
  ];
  for (const [args, what, file, line = 2, where = `${file}:${line}`] of cases) {
    const r = await run(args, opts);
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(`^scout-ai: ${escape(what)}.* \\(${escape(where)}\\)\\n$`),
    );
    const dbg = await run(["--debug", ...args], opts);
    assert.equal(dbg.code, 1, dbg.stderr);
    assert.ok(dbg.stderr.startsWith(r.stderr), dbg.stderr);
    const cause = dbg.stderr.indexOf("\nCaused by: ");
    assert.ok(cause > 0, dbg.stderr);
    // the user's frame, on the cause's stack (a file:// URL under Deno, a path under Bun)
    assert.match(dbg.stderr.slice(cause), new RegExp(`\\n\\s+at .*${escape(file)}:${line}:\\d+`));
  }
}
