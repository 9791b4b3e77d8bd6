/**
 * A job submitted to SLURM (stand-in `sbatch` and `squeue`) records
 * `waiting`, `batch_job` and `batch_system` in its `.info` (workflow.md §4,
 * §9), so `workflow info` finds it and Scout sees it queued; a job another
 * process runs keeps its info, an earlier attempt's info is replaced (a
 * recoverable error cleaned as the batch job would clean it) (R79-5).
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { acquireLock } from "../../src/workflow/lock.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { BAKING, env } from "./cli_support.ts";
import { slurmTask } from "./deploy_fixtures.ts";

const deploy = (home: string, args: string[] = []) =>
  slurmTask(home, [BAKING, "cake", "--deploy", "slurm", "--json", ...args], {
    SQ_STATE: "PENDING",
  });

const jobs = (home: string) => join(home, "var/jobs/Baking");
const info = (path: string) => JSON.parse(readFileSync(path + ".info", "utf8"));

Deno.test("slurm: each submitted job's info says waiting, with batch_job and batch_system as Scout writes them; workflow info finds it (R79-5)", async () => {
  await using d = await tempDir();
  const r = await deploy(d.path);
  assert.equal(r.code, 0, r.stderr);
  const units = JSON.parse(r.stdout).units as { path: string; slurmId: string }[];
  assert.deepEqual(units.map((u) => u.slurmId), ["101", "102", "103"]);
  for (const u of units) {
    assert.deepEqual(info(u.path), {
      status: "waiting",
      batch_job: Number(u.slurmId),
      batch_system: "SLURM",
    });
  }
  const shown = await runMain(["workflow", "info", units[2]!.path], { env: env(d.path) });
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /waiting/);
  assert.match(shown.stdout, /\n {2}batch +SLURM job 103\n/);
  // a dry run writes no info
  await using e = await tempDir();
  assert.equal((await deploy(e.path, ["--dry-run"])).code, 0);
  assert.ok(!existsSync(jobs(e.path)));
});

Deno.test("slurm: a job another process runs keeps its info; an earlier attempt's error is replaced, its files cleaned when recoverable (R79-5)", async () => {
  await using d = await tempDir();
  const whisk = join(jobs(d.path), "whisk/Default");
  const batter = join(jobs(d.path), "batter/Default.json");
  mkdirSync(join(jobs(d.path), "whisk"), { recursive: true });
  mkdirSync(join(jobs(d.path), "batter", "Default.json.files"), { recursive: true });
  // whisk: running here (its lock held, its pid alive)
  const running = { status: "start", pid: process.pid, pid_hostname: Deno.hostname() };
  writeFileSync(whisk + ".info", JSON.stringify(running));
  const lock = await acquireLock(whisk, join(d.path, "tmp", "persist_locks"));
  // batter: an earlier attempt failed with an error that is not Scout's (recoverable)
  writeFileSync(
    batter + ".info",
    JSON.stringify({ status: "error", pid: 1, messages: ["RuntimeError: the oven broke"] }),
  );
  writeFileSync(join(batter + ".files", "partial"), "half a batter");
  try {
    const r = await deploy(d.path);
    assert.equal(r.code, 0, r.stderr);
  } finally {
    lock.release();
  }
  assert.deepEqual(info(whisk), running);
  assert.deepEqual(info(batter), { status: "waiting", batch_job: 102, batch_system: "SLURM" });
  assert.ok(!existsSync(batter + ".files"), "the failed attempt's files are cleaned");
});
