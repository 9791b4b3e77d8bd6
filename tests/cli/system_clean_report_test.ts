/**
 * What `system clean` prints and what it leaves behind it (R125-6, R125-7):
 * a `--dry-run` does not change what the clean after it removes (listing a
 * directory result to size it set its access time, the job's "last used",
 * to now), and a job's name is one line of the report whatever it holds (a
 * newline in it printed a forged second line).
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain, runScout, tempDir } from "../support/cli.ts";

const DAYS_2 = new Date(Date.now() - 2 * 86_400_000);

function env(dir: string) {
  return { cwd: dir, env: { SCOUT_HOME: join(dir, "scout"), HOME: dir, NO_COLOR: "1" } };
}

Deno.test("system clean --dry-run leaves a directory result's access time: the clean after it removes the same job (R125-6)", async () => {
  await using d = await tempDir();
  const task = join(d.path, "scout", "var", "jobs", "Wf3", "t");
  const deep = join(task, "deep");
  mkdirSync(join(deep, "inner"), { recursive: true });
  writeFileSync(join(deep, "inner", "part.txt"), "x".repeat(100));
  writeFileSync(join(task, "deep.info"), '{"status":"error"}');
  for (const p of [join(deep, "inner", "part.txt"), join(deep, "inner"), deep, `${deep}.info`]) {
    utimesSync(p, DAYS_2, DAYS_2);
  }
  const dry = await runMain(["system", "clean", "Wf3", "--older", "1d", "--dry-run"], env(d.path));
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /would remove \S+\/Wf3\/t\/deep \(/);
  const real = await runMain(["system", "clean", "Wf3", "--older", "1d"], env(d.path));
  assert.equal(real.code, 0, real.stderr);
  assert.match(real.stdout, /removed \S+\/Wf3\/t\/deep \(/); // before: "0 jobs removed"
});

Deno.test("system clean prints a job named with a newline on one line, escaped (R125-7)", async () => {
  await using d = await tempDir();
  const task = join(d.path, "scout", "var", "jobs", "Wf", "t");
  mkdirSync(task, { recursive: true });
  const job = join(task, "evil\nname (done, last used 9d ago, 1 B)\nremoved thesis.tex");
  writeFileSync(job, "r");
  writeFileSync(`${job}.info`, '{"status":"error"}');
  utimesSync(job, DAYS_2, DAYS_2);
  utimesSync(`${job}.info`, DAYS_2, DAYS_2);
  const r = await runMain(["system", "clean", "Wf", "--older", "1d", "--dry-run"], env(d.path));
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split("\n");
  assert.equal(lines.length, 2, r.stdout); // the job's line and the summary
  assert.match(lines[0]!, /would remove \S+\/Wf\/t\/evil\\nname \(done, .*\\nremoved thesis/);
  assert.doesNotMatch(r.stdout, /^removed thesis/m);
});

Deno.test("system clean run from inside a job it removes reports it removed, exit 0 (R129-3)", async () => {
  await using d = await tempDir();
  const task = join(d.path, "scout", "var", "jobs", "Wf", "t");
  const inside = join(task, "failed.files", "sub");
  mkdirSync(inside, { recursive: true });
  writeFileSync(join(task, "failed.info"), '{"status":"error"}');
  for (const p of [inside, join(task, "failed.files"), join(task, "failed.info")]) {
    utimesSync(p, DAYS_2, DAYS_2);
  }
  const r = await runScout(["system", "clean", "Wf"], { // a process whose cwd is inside
    cwd: inside,
    env: { SCOUT_HOME: join(d.path, "scout"), HOME: d.path, NO_COLOR: "1" },
  });
  assert.equal(r.code, 0, r.stdout + r.stderr); // before: "1 not removable", exit 1 (chdir back failed)
  assert.match(r.stdout, /^1 job removed/m);
  assert.equal(existsSync(join(task, "failed.files")), false);
});
