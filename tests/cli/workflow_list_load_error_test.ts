/**
 * `workflow list --json` with workflow files that cannot be loaded: each
 * one's `error` says why and where, `<message> (<file>:<line>)`, the text
 * of the warning on stderr (and of the error `workflow task` gives for it),
 * not the message alone. A file that throws at its top level, a factory
 * that throws, a task of an unknown type; a loadable one beside them is
 * listed with its tasks. (Syntax errors, from source and the binary:
 * tests/e2e/script_syntax_error_test.ts.)
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";

/** Writes `$SCOUT_HOME/workflows/<name>/workflow.ts`; returns its path. */
function workflow(home: string, name: string, text: string): string {
  mkdirSync(join(home, "workflows", name), { recursive: true });
  const file = join(home, "workflows", name, "workflow.ts");
  writeFileSync(file, text);
  return file;
}

Deno.test("workflow list --json: a file that cannot be loaded has its file and line in error", async () => {
  await using d = await tempDir();
  const home = join(d.path, "home");
  const files = {
    Top: workflow(home, "Top", "const a = 1;\nthrow new Error('top ' + a);\nexport default 1;\n"),
    Factory: workflow(
      home,
      "Factory",
      "export default (api) => {\n  throw new Error('bad');\n};\n",
    ),
    BadType: workflow(
      home,
      "BadType",
      'export default (api) =>\n  api.workflow("BadType", {\n    tasks: { t: { type: "nope", run: () => 1 } },\n  });\n',
    ),
  };
  const lines = { Top: 2, Factory: 2, BadType: 2 };
  workflow(home, "Fine", "export default { tasks: { t: { type: 'string', run: () => 'x' } } };\n");
  const o = { cwd: d.path, env: { SCOUT_HOME: home, HOME: d.path } };
  const r = await runMain(["workflow", "list", "--json"], o);
  assert.equal(r.code, 1, r.stderr);
  const rows: { name: string; tasks: string[]; error?: string }[] = JSON.parse(r.stdout).workflows;
  assert.deepEqual(rows.find((w) => w.name === "Fine"), {
    name: "Fine",
    file: join(home, "workflows", "Fine", "workflow.ts"),
    builtin: false,
    tasks: ["t"],
  });
  for (const [name, file] of Object.entries(files)) {
    const error = rows.find((w) => w.name === name)?.error ?? "";
    const at = `(${file}:${lines[name as keyof typeof lines]})`;
    assert.ok(error.endsWith(at), `${name}: ${error} names ${at}`);
    // the warning's text, and the error `workflow task` stops on
    assert.ok(r.stderr.includes(`scout-ai: warning: ${error}\n`), r.stderr);
    const task = await runMain(["workflow", "task", name, "t"], o);
    assert.equal(task.stderr, `scout-ai: ${error}\n`);
  }
});
