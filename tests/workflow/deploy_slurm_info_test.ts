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

/** `workflow info JOB` with the stand-in squeue (installed by a deploy in `home`) and `extra`. */
const infoOf = (home: string, job: string, extra: Record<string, string>, json: string[] = []) =>
  runMain(["workflow", "info", job, ...json], {
    env: { ...env(home), PATH: `${join(home, "bin")}:${process.env.PATH}`, ...extra },
  });
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
  const shown = await infoOf(d.path, units[2]!.path, { SQ_STATE: "PENDING" });
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /\n {2}status +waiting \(no result\)\n/);
  assert.match(shown.stdout, /\n {2}batch +SLURM job 103 {2}PENDING\n/);
  // a dry run writes no info
  await using e = await tempDir();
  assert.equal((await deploy(e.path, ["--dry-run"])).code, 0);
  assert.ok(!existsSync(jobs(e.path)));
});

Deno.test("slurm: a job another process runs keeps its info; an earlier attempt's error is replaced, its info and files set aside as attempt 1 (R79-5, R109-3)", async () => {
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
  assert.ok(!existsSync(batter + ".files/partial"), "the failed attempt's files are set aside");
  const attempt = join(batter + ".files", ".attempts", "1");
  assert.equal(readFileSync(join(attempt + ".files", "partial"), "utf8"), "half a batter");
  assert.equal(info(attempt).status, "error");
});

Deno.test("workflow info: a waiting job whose SLURM job ended before it started (scancel, a failed dependency, forgotten) is stale, and says so; squeue is asked for it alone (R109-5)", async () => {
  await using d = await tempDir();
  const r = await deploy(d.path);
  assert.equal(r.code, 0, r.stderr);
  const cake = JSON.parse(r.stdout).units[2].path as string;
  const again = "run the task again to submit it again";
  const cases: [Record<string, string>, string, string][] = [
    [{ SQ_STATE: "CANCELLED" }, "CANCELLED", `CANCELLED before it started the job; ${again}`],
    [
      { SQ_STATE: "CANCELLED", SQ_REASON: "DependencyNeverSatisfied" },
      "CANCELLED",
      `CANCELLED (DependencyNeverSatisfied) before it started the job; ${again}`,
    ],
    [
      { SQ_STATE: "GONE" },
      "",
      `SLURM no longer knows it: it ended before it started the job; ${again}`,
    ],
  ];
  for (const [extra, state, note] of cases) {
    const text = await infoOf(d.path, cake, extra);
    assert.equal(text.code, 0, text.stderr);
    assert.match(
      text.stdout,
      /\n {2}status +stale \(was waiting; its SLURM job 103 ended\) \(no result\)\n/,
    );
    assert.ok(text.stdout.includes(`\n  batch      SLURM job 103  ${note}\n`), text.stdout);
    const json = JSON.parse((await infoOf(d.path, cake, extra, ["--json"])).stdout);
    assert.equal(json.status, "stale");
    assert.equal(json.stale, true);
    assert.equal(json.running, false);
    assert.equal(json.info.status, "waiting");
    assert.deepEqual(json.batch, {
      system: "SLURM",
      id: "103",
      state: state === "" ? null : state,
      reason: extra.SQ_REASON ?? "",
      ended: true,
    });
  }
  // still pending, a dependency failed: it will never run; squeue not answering: not known
  const pending = await infoOf(d.path, cake, {
    SQ_STATE: "PENDING",
    SQ_REASON: "DependencyNeverSatisfied",
  });
  assert.match(pending.stdout, /\n {2}status +waiting \(no result\)\n/);
  assert.match(
    pending.stdout,
    /\n {2}batch +SLURM job 103 {2}PENDING \(DependencyNeverSatisfied\): a dependency failed; it will never run\n/,
  );
  const down = await infoOf(d.path, cake, { SQ_FAIL: "1" }, ["--json"]);
  assert.equal(down.code, 0, down.stderr);
  const dj = JSON.parse(down.stdout);
  assert.equal(dj.status, "waiting");
  assert.equal(dj.batch.state, null);
  assert.equal(dj.batch.ended, false);
  assert.match(dj.batch.error, /Unable to contact slurm controller/);
  // a job not waiting for SLURM asks nothing of squeue
  const calls = join(d.path, "squeue.calls");
  await infoOf(d.path, cake, { SQ_LOG: calls });
  const before = readFileSync(calls, "utf8");
  assert.match(before, /-j 103\n$/, "asked about the waiting job's SLURM job");
  const serial = await runMain(["workflow", "task", BAKING, "whisk", "--jobname", "here"], {
    env: env(d.path),
  });
  assert.equal(serial.code, 0, serial.stderr);
  const shown = await infoOf(d.path, join(jobs(d.path), "whisk/here"), { SQ_LOG: calls }, [
    "--json",
  ]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.equal(JSON.parse(shown.stdout).batch, undefined);
  assert.equal(readFileSync(calls, "utf8"), before, "no squeue call");
});
