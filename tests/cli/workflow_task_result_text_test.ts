/**
 * `workflow task` prints a result as its result file holds it, for every type
 * (R158-3): an `array` one item a line (Scout's CLI prints the file, so
 * `… | while read gene` gets one line per item), a `float` with its `.0`, an
 * element that is not a string as the writer writes it (JSON), a `json`
 * result as written; `--json` still carries the loaded value. Real `scout-ai`
 * subprocesses; the output is compared with the result file's bytes.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { runScout, tempDir } from "../support/cli.ts";
import { env, userWorkflow } from "../workflow/cli_support.ts";

const FLAGS = `export default { tasks: {
  arr: { type: "array", run: () => ["a", "b"] },
  odd: { type: "array", run: () => ["x", { k: 1 }, 2, null, "y"] },
  ints: { type: "integer_array", run: () => [1, 2, 3] },
  num: { type: "float", run: () => 2 },
  obj: { type: "json", run: () => ({ a: [1, 2] }) },
  yes: { type: "boolean", run: () => true },
} };`;

Deno.test("workflow task prints each result type as its result file holds it (R158-3)", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Flags", FLAGS);
  const o = { cwd: d.path, env: env(d.path) };
  const expected: Record<string, string> = {
    arr: "a\nb\n",
    odd: 'x\n{"k":1}\n2\n\ny\n',
    ints: "1\n2\n3\n",
    num: "2.0\n",
    obj: '{"a":[1,2]}\n',
    yes: "true\n",
  };
  for (const [task, out] of Object.entries(expected)) {
    const r = await runScout(["workflow", "task", "Flags", task], o);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, out, task);
    const path = (await runScout(["workflow", "task", "Flags", task, "--print-path"], o)).stdout;
    const file = readFileSync(path.trim(), "utf8");
    assert.equal(r.stdout, file.endsWith("\n") ? file : file + "\n", `${task}: the file's bytes`);
  }
  const j = await runScout(["workflow", "task", "Flags", "arr", "--json"], o);
  assert.deepEqual(JSON.parse(j.stdout).result, ["a", "b"]);
});
