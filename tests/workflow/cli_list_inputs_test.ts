/**
 * List inputs on the command line are read as Ruby's `Task#get_SOPT`
 * (scout-gear workflow/usage.rb) reads them: split on "," unless the value
 * names an existing file (always for file/path lists), never on a newline
 * (R85-3). Repeated flags add items — [TS-FIX]: Ruby keeps the last flag only.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { env, userWorkflow } from "./cli_support.ts";

const WF = `export default (api) => api.workflow("Lists", { tasks: {
  t: { type: "json", inputs: { toppings: api.input.array(), ints: api.input.arrayOf("integer"),
      paths: api.input.arrayOf("path") },
    run: (i) => i } } });`;

async function run(dir: string, args: string[]) {
  const r = await runMain(["workflow", "task", "Lists", "t", ...args], {
    cwd: dir,
    env: env(dir),
  });
  return {
    ...r,
    value: r.code === 0 && !args.includes("--print-path") ? JSON.parse(r.stdout) : null,
  };
}

Deno.test("workflow task: list values split on commas, not newlines, as Ruby's CLI (R85-3)", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Lists", WF);
  // Ruby: ["nuts","cream"], ["nuts\ncream"], [3,4]
  assert.deepEqual((await run(d.path, ["--toppings", "nuts,cream"])).value.toppings, [
    "nuts",
    "cream",
  ]);
  assert.deepEqual((await run(d.path, ["--toppings", "nuts\ncream"])).value.toppings, [
    "nuts\ncream",
  ]);
  const ints = await run(d.path, ["--ints", "3,4"]);
  assert.equal(ints.code, 0, ints.stderr);
  assert.deepEqual(ints.value.ints, [3, 4]);
  assert.match((await run(d.path, ["--ints", "3,x"])).stderr, /expects an integer, got "x"/);
  // a file's name is not split (its lines are the items); a path list always splits
  writeFileSync(join(d.path, "a,b.txt"), "cream\nnuts\n");
  assert.deepEqual((await run(d.path, ["--toppings", "a,b.txt"])).value.toppings, [
    "cream",
    "nuts",
  ]);
  assert.deepEqual((await run(d.path, ["--paths", "a,b.txt"])).value.paths, ["a", "b.txt"]);
  // Ruby's split drops trailing empty items
  assert.deepEqual((await run(d.path, ["--toppings", "a,,b,,"])).value.toppings, ["a", "", "b"]);
  // the same job as the list given by the API: one path for both spellings
  const p1 = await run(d.path, ["--toppings", "nuts,cream", "--print-path"]);
  const p2 = await run(d.path, ["--toppings", "nuts", "--toppings", "cream", "--print-path"]);
  assert.equal(p1.stdout, p2.stdout);
});

Deno.test("workflow task: repeated list flags add their items [TS-FIX] (Ruby keeps the last) (R85-3)", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Lists", WF);
  // Ruby would give [4] and ["c"]: the earlier flags dropped silently
  assert.deepEqual((await run(d.path, ["--ints", "3", "--ints", "4"])).value.ints, [3, 4]);
  assert.deepEqual(
    (await run(d.path, ["--toppings", "a,b", "--toppings", "c"])).value.toppings,
    ["a", "b", "c"],
  );
});

Deno.test("workflow task: list inputs named like Object.prototype members (R112-5)", async () => {
  await using d = await tempDir();
  userWorkflow(
    d.path,
    "Proto",
    `export default (api) => api.workflow("Proto", { tasks: {
      t: { type: "json", inputs: { constructor: api.input.array(), toString: api.input.array() },
        run: (i) => i } } });`,
  );
  const r = await runMain(
    ["workflow", "task", "Proto", "t", "--constructor", "a,b", "--toString", "c"],
    { cwd: d.path, env: env(d.path) },
  );
  // before: `name in out` found Object.prototype's member: [Function Object, "a", "b"]
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { constructor: ["a", "b"], toString: ["c"] });
});
