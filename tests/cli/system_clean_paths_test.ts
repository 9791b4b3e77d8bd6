/**
 * `system clean WORKFLOW` given as a path, as `workflow task` takes one
 * (R137-3): `system clean fixtures/workflows/Baking` matched the path against
 * the store's directories, cleaned "0 jobs" and exited 0, as did any existing
 * path (`/etc`). A path now stands for its workflow's name, read from the
 * file (never run, R129-2); a path holding no workflow is a usage error.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { ageJob, bakeStore, BAKING, jobPath, JOBS, storeOpts } from "../support/store_ages.ts";

async function removedBy(args: string[], o: ReturnType<typeof storeOpts>): Promise<string[]> {
  const r = await runMain(["system", "clean", ...args, "--dry-run", "--json"], o);
  assert.equal(r.code, 0, `${args}: ${r.stdout}${r.stderr}`);
  return JSON.parse(r.stdout).removed.map((j: { shortPath: string }) => j.shortPath);
}

Deno.test("system clean: a workflow's path cleans the jobs of its workflow's name", async () => {
  await using d = await tempDir();
  await bakeStore(d.path);
  ageJob(jobPath(d.path, JOBS.broken), 1);
  const o = storeOpts(d.path);
  const rel = relative(d.path, BAKING);
  for (const given of [BAKING, rel, `./${rel}/`, join(rel, "workflow.ts"), `${rel},Baking`]) {
    assert.deepEqual(await removedBy([given], o), [JOBS.broken], given);
  }
  assert.deepEqual(await removedBy([rel, "broken"], o), [JOBS.broken]);
  // a file of another name, named by its workflow() call; a workflow.ts without one, by its directory
  writeFileSync(join(d.path, "flow.ts"), `export default (api) => api.workflow('Baking', {});\n`);
  assert.deepEqual(await removedBy(["flow.ts"], o), [JOBS.broken]);
  mkdirSync(join(d.path, "Baking"));
  writeFileSync(join(d.path, "Baking", "workflow.ts"), "export default { tasks: {} };\n");
  assert.deepEqual(await removedBy(["./Baking"], o), [JOBS.broken]);
});

Deno.test("system clean: a path that holds no workflow is a usage error", async () => {
  await using d = await tempDir();
  await bakeStore(d.path);
  ageJob(jobPath(d.path, JOBS.broken), 1);
  const o = storeOpts(d.path);
  mkdirSync(join(d.path, "empty"));
  writeFileSync(join(d.path, "notes.ts"), "export const x = 1;\n");
  writeFileSync(join(d.path, "two.ts"), `api.workflow("A", {}); api.workflow("B", {});\n`);
  // named by a variable (R138-1): the directory's name, Baking here, would clean another's jobs
  mkdirSync(join(d.path, "Baking"));
  writeFileSync(
    join(d.path, "Baking", "workflow.ts"),
    `const NAME = "Vname";\nexport default (api) => api.workflow(NAME, { tasks: {} });\n`,
  );
  const cases: [string, RegExp][] = [
    [join(d.path, "empty"), /WORKFLOW ".*empty" is a path that holds no workflow: no workflow\.ts/],
    ["./nosuch", /WORKFLOW "\.\/nosuch" is a path that holds no workflow: no such file/],
    ["notes.ts", /no workflow\("Name", …\) in it.*give the workflow's name/],
    ["two.ts", /it names "A" and "B"/],
    ["./Baking", /a workflow\(…\) call names it by a variable.*give the workflow's name/],
    ["Baking,./empty", /WORKFLOW "\.\/empty"/],
  ];
  for (const [given, message] of cases) {
    const r = await runMain(["system", "clean", given, "--dry-run"], o);
    assert.equal(r.code, 2, `${given}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, message, given);
    assert.match(r.stderr, /\(run with --help for usage\)/);
    assert.equal(r.stdout, "");
  }
  assert.ok(existsSync(jobPath(d.path, JOBS.broken) + ".info"));
});

Deno.test("system clean never runs a workflow file given by path (R129-2)", async () => {
  await using d = await tempDir();
  const marker = join(d.path, "ran");
  mkdirSync(join(d.path, "Evil"));
  writeFileSync(
    join(d.path, "Evil", "workflow.ts"),
    `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "ran");\n` +
      `export default (api) => api.workflow("Evil", {});\n`,
  );
  const r = await runMain(["system", "clean", "./Evil", "nap", "--dry-run"], storeOpts(d.path));
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stderr, /warning: TASK "nap" of "Evil" has no jobs .*not checked against/);
  assert.equal(existsSync(marker), false, "the workflow file was run");
});
