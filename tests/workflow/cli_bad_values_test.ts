/**
 * `workflow task`: a bad job name or a bad JSON value on the command line is
 * a usage error (exit 2) naming what is wrong (R75-7).
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { env, userWorkflow } from "./cli_support.ts";

const J = `export default (api) => api.workflow("J", { tasks: {
  t: { type: "json", inputs: { j: { type: "json" }, arr: { type: "json_array" } }, run: (i) => i },
  named: { type: "string", inputs: { who: { type: "string", jobname: true } }, run: ({ who }) => who },
} });
`;

async function run(d: string, args: string[]) {
  return await runMain(["workflow", "task", "J", ...args], { cwd: d, env: env(d) });
}

Deno.test("workflow task: a job name that is not one path component is a usage error (R75-7)", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "J", J);
  for (const name of ["a/b", ""]) {
    const r = await run(d.path, ["t", "--jobname", name]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`^scout-ai: Job name "${name}" of J/t is not valid`));
  }
  // the jobname input's value too
  const input = await run(d.path, ["named", "--who", "x/y"]);
  assert.equal(input.code, 2, input.stderr);
  assert.match(input.stderr, /Job name "x\/y" of J\/named is not valid/);
});

Deno.test("workflow task: bad JSON for a json input names the input and is a usage error (R75-7)", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "J", J);
  const inline = await run(d.path, ["t", "--j", "{bad"]);
  assert.equal(inline.code, 2);
  assert.match(inline.stderr, /^scout-ai: Input --j of J\/t expects JSON, got "\{bad" \(/);
  const element = await run(d.path, ["t", "--arr", "[1]", "--arr", "{bad"]);
  assert.equal(element.code, 2);
  assert.match(element.stderr, /^scout-ai: Input --arr of J\/t expects JSON, got "\{bad"/);
  const file = join(d.path, "bad.json");
  writeFileSync(file, "{bad\n");
  const fromFile = await run(d.path, ["t", "--j", file]);
  assert.equal(fromFile.code, 2);
  assert.match(
    fromFile.stderr,
    /^scout-ai: Input "j" of J\/t: Invalid JSON: .*\(in ".*bad\.json"\)/,
  );
  const good = await run(d.path, ["t", "--j", '{"a":1}', "--arr", "[1]", "--arr", '"x"']);
  assert.equal(good.code, 0, good.stderr);
  assert.deepEqual(JSON.parse(good.stdout), { j: { a: 1 }, arr: [[1], "x"] });
});
