/**
 * Submitting batch jobs (`--deploy slurm`, stand-in `sbatch` and `squeue` on
 * PATH): distinct jobs never share a batch directory (R79-1), a live batch
 * job is reused only when it runs the unit's jobs, two deploys at once submit
 * each job once (R79-3), and a resubmission keeps the earlier attempt's logs
 * (R79-15); one an older scout-ai queued under its digest-free name is reused (R84-2).
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runScout, tempDir } from "../support/cli.ts";
import { BAKING, env } from "./cli_support.ts";
import { slurmTask, standInSlurm } from "./deploy_fixtures.ts";

const SLOW = join(ROOT, "fixtures", "workflows", "Slow");

/** `workflow task … --deploy slurm` in home `home` with the stand-ins, `state` as squeue's answer. */
const deploy = (home: string, args: string[], extra: Record<string, string> = {}) =>
  slurmTask(home, [...args, "--deploy", "slurm", "--json"], { SQ_STATE: "PENDING", ...extra });

type Unit = { job: string; path: string; slurmId: string; status: string; batchDir: string };
const unitsOf = (stdout: string): Unit[] => JSON.parse(stdout).units;

Deno.test("slurm: jobs whose names differ only where a file name cannot keep them get batch jobs of their own (R79-1)", async () => {
  await using d = await tempDir();
  const one = await deploy(d.path, [SLOW, "nap", "--jobname", "run 1"]);
  assert.equal(one.code, 0, one.stderr);
  const two = await deploy(d.path, [SLOW, "nap", "--jobname", "run_1"]);
  assert.equal(two.code, 0, two.stderr);
  const [a] = unitsOf(one.stdout);
  const [b] = unitsOf(two.stdout);
  assert.deepEqual([a!.slurmId, a!.status], ["101", "submitted"]);
  assert.deepEqual([b!.slurmId, b!.status], ["102", "submitted"], "run_1 is not run 1's batch job");
  assert.notEqual(a!.batchDir, b!.batchDir);
  assert.equal(readFileSync(join(b!.batchDir, "jobs.list"), "utf8"), b!.path + "\n");
});

Deno.test("slurm: the same job in two job stores gets a batch job per store (R79-1)", async () => {
  await using d = await tempDir();
  const units: Unit[] = [];
  for (const store of ["projA", "projB"]) {
    const r = await deploy(d.path, [SLOW, "nap", "--jobs-dir", join(d.path, store)]);
    assert.equal(r.code, 0, r.stderr);
    units.push(...unitsOf(r.stdout));
  }
  assert.deepEqual(units.map((u) => [u.slurmId, u.status]), [["101", "submitted"], [
    "102",
    "submitted",
  ]]);
  assert.match(units[1]!.path, /\/projB\/Slow\/nap\/Default$/);
  assert.match(units[1]!.batchDir, /\/SLURM_scout_job-Slow-nap-Default-[0-9a-f]{8}$/);
});

Deno.test("slurm: a live batch job is reused when it runs the unit's jobs, and stops the deploy when it does not (R79-1)", async () => {
  await using d = await tempDir();
  const rules = join(d.path, "chain.yaml");
  writeFileSync(rules, "chains:\n  prep:\n    workflow: Baking\n    tasks: whisk, batter\n");
  // cake alone: whisk, batter and cake each a batch job, all still pending
  const first = await deploy(d.path, [BAKING, "cake"]);
  assert.equal(first.code, 0, first.stderr);
  const firstUnits = unitsOf(first.stdout);
  assert.deepEqual(firstUnits.map((u) => u.slurmId), ["101", "102", "103"]);
  // whisk's and batter's infos name 101 and 102: already queued, whatever the chain (R118-1)
  const queued = await deploy(d.path, [BAKING, "batter", "--deploy-rules", rules]);
  assert.equal(queued.code, 0, queued.stderr);
  assert.deepEqual(unitsOf(queued.stdout).map((u) => [u.slurmId, u.status]), [
    ["101", "queued"],
    ["102", "queued"],
  ]);
  // infos that no longer name them (removed): only the batch directories tell
  for (const u of firstUnits.slice(0, 2)) rmSync(u.path + ".info");
  // batter with whisk chained into its batch job: batter's directory holds 102, which runs batter only
  const chained = await deploy(d.path, [BAKING, "batter", "--deploy-rules", rules]);
  assert.equal(chained.code, 1);
  assert.match(
    chained.stderr,
    /holds SLURM job 102 \(PENDING\), which runs \S+\/Baking\/batter\/Default\.json, not \S+\/Baking\/whisk\/Default, \S+\/Baking\/batter\/Default\.json; .*scancel 102/,
  );
  assert.equal(
    readFileSync(join(d.path, "sbatch.count"), "utf8").trim(),
    "103",
    "nothing submitted",
  );
  // batter alone again: 102 runs it, reused
  const again = await deploy(d.path, [BAKING, "batter"]);
  assert.deepEqual(unitsOf(again.stdout).map((u) => [u.slurmId, u.status]), [
    ["101", "queued"],
    ["102", "queued"],
  ]);
});

Deno.test("slurm: two deploys at once submit each batch job once (R79-3)", async () => {
  await using d = await tempDir();
  const bin = standInSlurm(d.path);
  const run = () =>
    runScout(["workflow", "task", SLOW, "nap", "--deploy", "slurm", "--json"], {
      cwd: d.path,
      // sbatch takes 3 s: the second deploy reads job.id while the first is submitting
      env: {
        ...env(d.path),
        SQ_STATE: "PENDING",
        SB_SLEEP: "3",
        PATH: `${bin}:${process.env.PATH}`,
      },
    });
  const results = await Promise.all([run(), run()]);
  for (const r of results) assert.equal(r.code, 0, r.stderr);
  const units = results.map((r) => unitsOf(r.stdout)[0]!);
  assert.deepEqual(units.map((u) => u.slurmId), ["101", "101"]);
  assert.deepEqual(units.map((u) => u.status).sort(), ["queued", "submitted"]);
  assert.equal(readFileSync(join(d.path, "sbatch.calls"), "utf8").split("\n").length - 1, 1);
  assert.equal(readFileSync(join(units[0]!.batchDir, "job.id"), "utf8"), "101\n");
  assert.ok(!existsSync(join(units[0]!.batchDir, ".submit.lock")), "the lock is released");
});

Deno.test("slurm: a resubmission keeps the earlier attempt's logs as <file>.<its SLURM id> (R79-15)", async () => {
  await using d = await tempDir();
  const failed = { SQ_STATE: "FAILED", SB_STDERR: "The oven is broken (attempt 1)" };
  const one = await deploy(d.path, [BAKING, "broken"], failed);
  assert.equal(one.code, 0, one.stderr);
  const dir = unitsOf(one.stdout)[0]!.batchDir;
  writeFileSync(join(dir, "std.out"), "");
  writeFileSync(join(dir, "exit.status"), "1\n");
  const two = await deploy(d.path, [BAKING, "broken"], {
    ...failed,
    SB_STDERR: "The oven is broken (attempt 2)",
  });
  assert.equal(two.code, 0, two.stderr);
  assert.equal(unitsOf(two.stdout)[0]!.slurmId, "102");
  assert.equal(readFileSync(join(dir, "std.err.101"), "utf8"), "The oven is broken (attempt 1)\n");
  assert.equal(readFileSync(join(dir, "exit.status.101"), "utf8"), "1\n");
  assert.equal(readFileSync(join(dir, "std.err"), "utf8"), "The oven is broken (attempt 2)\n");
  assert.ok(!existsSync(join(dir, "exit.status")), "the new attempt has not ended");
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.startsWith("std.out")),
    [],
    "an empty log goes",
  );
});

Deno.test("slurm: a batch job an older scout-ai queued in its digest-free directory is reused, not submitted again (R84-2)", async () => {
  await using d = await tempDir();
  const first = await deploy(d.path, [BAKING, "whisk", "--eggs", "7"]);
  assert.equal(first.code, 0, first.stderr);
  const [u] = unitsOf(first.stdout);
  // what an older scout-ai wrote: the same files, the directory named without the digest
  const legacy = u!.batchDir.replace(/-[0-9a-f]{8}$/, "");
  renameSync(u!.batchDir, legacy);
  const again = await deploy(d.path, [BAKING, "whisk", "--eggs", "7"]);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(
    unitsOf(again.stdout).map((x) => [x.slurmId, x.status, x.batchDir]),
    [["101", "queued", legacy]],
  );
  assert.equal(readFileSync(join(d.path, "sbatch.count"), "utf8").trim(), "101", "not submitted");
  assert.equal(existsSync(u!.batchDir), false);
  // a legacy directory whose live job runs other jobs is not this job's: it is submitted
  // (the job's info not naming that job either, R118-1)
  writeFileSync(join(legacy, "jobs.list"), "/elsewhere/Baking/whisk/Other\n");
  rmSync(u!.path + ".info");
  const other = await deploy(d.path, [BAKING, "whisk", "--eggs", "7"]);
  assert.deepEqual(unitsOf(other.stdout).map((x) => [x.slurmId, x.status]), [["102", "submitted"]]);
  // nor one whose job ended
  rmSync(u!.batchDir, { recursive: true });
  writeFileSync(join(legacy, "jobs.list"), u!.path + "\n");
  const ended = await deploy(d.path, [BAKING, "whisk", "--eggs", "7"], { SQ_STATE: "COMPLETED" });
  assert.deepEqual(unitsOf(ended.stdout).map((x) => [x.slurmId, x.status]), [["103", "submitted"]]);
});
