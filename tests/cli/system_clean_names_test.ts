/**
 * `system clean WORKFLOW [TASK]` with a name that names nothing (R128-2): a
 * misspelled WORKFLOW or TASK said "0 jobs removed", exit 0. Now a usage
 * error (exit 2, dry run too) with a "did you mean" from the store's
 * directories; a workflow or task scout-ai can find (a workflow.ts, a Ruby
 * workflow.rb) that has no jobs yet still cleans nothing, exit 0.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runScout, tempDir } from "../support/cli.ts";
import { bakeStore, SLOW, storeOpts } from "../support/store_ages.ts";

Deno.test("system clean: a misspelled WORKFLOW or TASK is a usage error with a suggestion", async () => {
  await using d = await tempDir();
  await bakeStore(d.path);
  const o = storeOpts(d.path);
  const wf = await runScout(["system", "clean", "Bakng", "--older", "30d"], o);
  assert.equal(wf.code, 2, wf.stdout + wf.stderr);
  assert.match(wf.stderr, /WORKFLOW "Bakng" has no jobs in the store .*did you mean "Baking"\?/);
  assert.equal(wf.stdout, "");

  const task = await runScout(["system", "clean", "Baking", "cak", "--dry-run"], o);
  assert.equal(task.code, 2, task.stdout + task.stderr);
  assert.match(task.stderr, /TASK "cak" of "Baking" has no jobs .*did you mean "cake"\?/);
  assert.match(task.stderr, /the store's tasks: batter, broken, cake, whisk/);

  const all = await runScout(["system", "clean", "all", "wisk", "--json"], o);
  assert.equal(all.code, 2, all.stdout + all.stderr);
  assert.match(all.stderr, /TASK "wisk" has no jobs .*did you mean "whisk"\?/);

  const list = await runScout(["system", "clean", "Baking,Bakin", "--dry-run"], o);
  assert.equal(list.code, 2, list.stdout + list.stderr);
  assert.match(list.stderr, /WORKFLOW "Bakin"/);
});

Deno.test("system clean: a workflow or task found but without jobs cleans nothing, exit 0", async () => {
  await using d = await tempDir();
  await bakeStore(d.path);
  const o = storeOpts(d.path);
  mkdirSync(join(d.path, "workflows"));
  symlinkSync(SLOW, join(d.path, "workflows", "Slow"));
  const rubyDir = join(d.path, "scout", "workflows", "Rb");
  mkdirSync(rubyDir, { recursive: true });
  writeFileSync(join(rubyDir, "workflow.rb"), "module Rb\n  extend Workflow\nend\n");
  for (const args of [["Slow"], ["Slow", "nap"], ["Rb", "any_task"], ["Baking,Slow", "nap"]]) {
    const r = await runScout(["system", "clean", ...args, "--older", "30d"], o);
    assert.equal(r.code, 0, `${args}: ${r.stderr}`);
    assert.match(r.stdout, /^0 jobs removed \(0 B\), 0 kept$/m, args.join(" "));
  }
  // a workflow file is found, never run (R129-2): a TASK of it without jobs is warned about
  const typo = await runScout(["system", "clean", "Slow", "nop", "--dry-run"], o);
  assert.equal(typo.code, 0, typo.stdout + typo.stderr);
  assert.match(typo.stderr, /warning: TASK "nop" of "Slow" has no jobs .*not checked against/);
});

Deno.test("system clean never runs a workflow.ts to check a name; its output stays out of --json (R129-2)", async () => {
  await using d = await tempDir();
  const marker = join(d.path, "ran");
  mkdirSync(join(d.path, "workflows", "Evil"), { recursive: true });
  writeFileSync(
    join(d.path, "workflows", "Evil", "workflow.ts"),
    `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "ran");\n` +
      `console.log("EVIL STDOUT");\nthrow new Error("boom");\n`,
  );
  const r = await runScout(["system", "clean", "Evil", "--dry-run", "--json"], storeOpts(d.path));
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal(JSON.parse(r.stdout).removed.length, 0); // before: "EVIL STDOUT" ahead of the JSON
  assert.equal(existsSync(marker), false, "the workflow file was run");
});
