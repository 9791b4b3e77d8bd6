/**
 * A syntax error in a user's `workflow.ts` or an agent's `agent.ts`: one line
 * naming the file and line of the (first) error, `(<file>:<line>)` like every
 * other error, and no stack trace; from the built binary (Bun reports build
 * errors: one, or several in an AggregateError) and from source (Deno).
 */
import assert from "node:assert/strict";
import { buildBinary, type CliResult, runBinary, runScout, tempDir } from "../support/cli.ts";
import { put } from "../support/files.ts";

/** The user's files: three broken workflows and a broken agent, in SCOUT_HOME `root`. */
function scene(root: string) {
  return {
    // one error, line 2
    one: put(root, "workflows/One/workflow.ts", "export default (api) => {\n  const x = ;\n};\n"),
    // two errors (Bun reports both; Deno the first), lines 3 and 4
    two: put(
      root,
      "workflows/Two/workflow.ts",
      "export default (api) => {\n  const x = 1;\n  let let = 2;\n  const y = 1 +;\n};\n",
    ),
    // the error is in a module the workflow imports, line 1
    via: put(
      root,
      "workflows/Via/workflow.ts",
      'import h from "./helper.ts";\nexport default h;\n',
    ),
    helper: put(root, "workflows/Via/helper.ts", "export default 1 +;\n"),
    agent: put(root, "Agent/Oops/agent.ts", "export default (_api, a) => {\n  const x = ;\n};\n"),
    startChat: put(root, "Agent/Oops/start_chat", "system: hi\n"),
  };
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** One line on stderr: `scout-ai: <what> "<file>": <text> (<at>:<line>)`, exit 1, no stack. */
function assertOneLine(r: CliResult, what: string, file: string, text: RegExp, at: string) {
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, "");
  const m = new RegExp(`^scout-ai: ${what} "${escape(file)}": (.+)\\n$`).exec(r.stderr);
  assert.ok(m, r.stderr);
  assert.match(m[1]!, text);
  assert.ok(m[1]!.endsWith(` (${at})`), `names ${at}: ${r.stderr}`);
  assert.doesNotMatch(r.stderr, /\n\s+at |AggregateError|errors building/, "no stack trace");
}

type Run = (args: string[], opts: { cwd: string; env: Record<string, string> }) => Promise<
  CliResult
>;

async function check(run: Run, binary: boolean) {
  await using d = await tempDir();
  const f = scene(d.path);
  const opts = { cwd: d.path, env: { SCOUT_HOME: d.path, HOME: d.path } };
  const wf = "Cannot load workflow file";
  assertOneLine(await run(["workflow", "task", "One", "x"], opts), wf, f.one, /./, `${f.one}:2`);
  assertOneLine(
    await run(["workflow", "task", "Two", "x"], opts),
    wf,
    f.two,
    // the first error; Bun counts the others
    binary ? /^Cannot use "let" as an identifier here \(\+1 more\)/ : /let/,
    `${f.two}:3`,
  );
  const via = await run(["workflow", "task", "Via", "x"], opts);
  if (binary) assertOneLine(via, wf, f.via, /^Unexpected ;/, `${f.helper}:1`);
  else {
    // Deno names the helper in its message (`at file:///…/helper.ts:1:19`)
    assert.equal(via.code, 1);
    assert.match(via.stderr, new RegExp(`^scout-ai: ${wf} ".+helper\\.ts:1:19\\n$`));
  }
  // `workflow list` names each broken file in a warning, with the place too
  const list = await run(["workflow", "list"], opts);
  assert.equal(list.code, 1);
  assert.ok(list.stderr.includes(`(${f.one}:2)\n`), list.stderr);
  assert.ok(list.stderr.includes(`(${f.two}:3)\n`), list.stderr);
  // and `--json` gives each one's error with that place: the warning's text, as a script reads it
  const json = await run(["workflow", "list", "--json"], opts);
  assert.equal(json.code, 1);
  const rows: { name: string; error?: string }[] = JSON.parse(json.stdout).workflows;
  const error = (name: string) => rows.find((r) => r.name === name)?.error ?? "";
  assert.ok(error("One").endsWith(`(${f.one}:2)`), error("One"));
  assert.ok(error("Two").endsWith(`(${f.two}:3)`), error("Two"));
  for (const name of ["One", "Two", "Via"]) {
    assert.ok(json.stderr.includes(`warning: ${error(name)}\n`), `${name}: ${json.stderr}`);
  }
  assertOneLine(
    await run(["agent", "ask", "Oops", "hi"], opts),
    "Cannot load agent script",
    f.agent,
    /./,
    `${f.agent}:2`,
  );
}

Deno.test("binary: a syntax error in workflow.ts or agent.ts names its file and line", async () => {
  await buildBinary();
  await check(runBinary, true);
});

Deno.test("from source: a syntax error in workflow.ts or agent.ts names its file and line", async () => {
  await check(runScout, false);
});
