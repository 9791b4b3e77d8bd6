/**
 * `workflow info JOB` run as a subprocess: a short path names the job of
 * that name even when its result file has the task's extension
 * (`Default` → `Default.json`), before the jobs whose names only start with
 * it (R94-3).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runScout, tempDir } from "../support/cli.ts";

const BAKING = join(ROOT, "fixtures", "workflows", "Baking");

Deno.test("R94-3: workflow info Baking/batter/Default is Default.json, not ambiguous with Default_<digest>.json", async () => {
  await using d = await tempDir();
  const o = { cwd: d.path, env: { SCOUT_HOME: join(d.path, "home") } };
  assert.equal((await runScout(["workflow", "task", BAKING, "batter"], o)).code, 0);
  assert.equal((await runScout(["workflow", "task", BAKING, "batter", "--eggs", "4"], o)).code, 0);
  const jobs = join(d.path, "home", "var", "jobs", "Baking", "batter");
  const r = await runScout(["workflow", "info", "Baking/batter/Default", "--json"], o);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).path, join(jobs, "Default.json"));
  // the name with its extension, and a prefix of one job only, as before
  const full = await runScout(["workflow", "info", "Baking/batter/Default.json", "--json"], o);
  assert.equal(JSON.parse(full.stdout).path, join(jobs, "Default.json"));
  const digest = await runScout(["workflow", "info", "Baking/batter/Default_2", "--json"], o);
  assert.equal(digest.code, 0, digest.stderr);
  assert.match(JSON.parse(digest.stdout).path, /\/Default_21384e3c\w+\.json$/);
  // a prefix of both names (and of no exact one) stays ambiguous
  const both = await runScout(["workflow", "info", "Baking/batter/Def"], o);
  assert.equal(both.code, 1);
  assert.match(both.stderr, /"Baking\/batter\/Def" matches 2 jobs: /);
});
