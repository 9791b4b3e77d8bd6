/**
 * Jobs already queued, on the real single-node SLURM (tools/slurm-up): a job
 * whose `.info` names a SLURM job that may still run — queued by Scout, or
 * anything else sharing the job store — is not submitted again, and the jobs
 * depending on it wait for that SLURM job; one SLURM ended or forgot, or
 * that waits on a failed dependency for good, does not block a resubmission
 * (R118-1). A job a batch job computed keeps `batch_job`, `batch_system` and
 * `batch_cpus` in its `.info`, as Scout's batch script writes them back
 * (R118-3).
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ROOT, runScout, tempDir } from "../support/cli.ts";
import { cancelAndWait, slurmCmd, slurmEnv, waitUntil } from "./slurm_support.ts";

const BAKING = join(ROOT, "fixtures", "workflows", "Baking");
const SLOW = join(ROOT, "fixtures", "workflows", "Slow");

function info(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path + ".info", "utf8"));
}

/** What another program (Scout's `hold_dependencies`) writes for a job it queued in `id`. */
function queuedInfo(path: string, id: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(
    path + ".info",
    JSON.stringify({ status: "waiting", batch_job: Number(id), batch_system: "SLURM" }),
  );
}

/** `sbatch --parsable` of a one-line script; its SLURM id. */
async function sbatch(args: string[]): Promise<string> {
  const out = ["--output=/dev/null", "--error=/dev/null"];
  const id = (await slurmCmd("sbatch", ["--parsable", ...out, ...args])).trim().split(";")[0]!;
  assert.match(id, /^\d+$/, `sbatch ${args.join(" ")}`);
  return id;
}

/** SLURM's `state|reason|dependency` of a job. */
async function squeue(id: string): Promise<string> {
  return (await slurmCmd("squeue", ["-h", "-t", "all", "-j", id, "-o", "%T|%r|%E"])).trim();
}

type Unit = { job: string; path: string; slurmId: string; status: string; batchDir: string };

Deno.test("slurm: a job another program queued (its .info names a pending SLURM job) is not submitted again, and its dependants wait for that job (R118-1)", async () => {
  const slurm = await slurmEnv();
  await using d = await tempDir();
  const env = { SCOUT_HOME: join(d.path, "home"), ...slurm };
  const cake = ["workflow", "task", BAKING, "cake", "--eggs", "11", "--deploy", "slurm"];
  const plan = await runScout([...cake, "--dry-run", "--json"], { env });
  assert.equal(plan.code, 0, plan.stderr);
  const [whisk, batter] = (JSON.parse(plan.stdout).units as Unit[]).map((u) => u.path);
  // whisk done; batter queued by someone else in a held SLURM job
  const serial = await runScout(["workflow", "task", BAKING, "whisk", "--eggs", "11"], { env });
  assert.equal(serial.code, 0, serial.stderr);
  const other = await sbatch(["--hold", "--wrap", "true"]);
  const ours: string[] = [];
  try {
    queuedInfo(batter!, other);
    const dry = await runScout([...cake, "--dry-run"], { env });
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(
      dry.stdout,
      new RegExp(`# Baking/batter/\\S+: SLURM job ${other} is still queued; not submitted again\n`),
    );
    assert.match(dry.stdout, /sbatch --parsable --dependency=afterok:\$id1 /);
    assert.equal(dry.stdout.match(/=\$\(sbatch /g)?.length, 1, "only cake would be submitted");

    const run = await runScout([...cake, "--json"], { env: { ...env, SBATCH_HOLD: "1" } });
    assert.equal(run.code, 0, run.stderr);
    const units: Unit[] = JSON.parse(run.stdout).units;
    ours.push(...units.filter((u) => u.status === "submitted").map((u) => u.slurmId));
    assert.deepEqual(units.map((u) => [u.path, u.slurmId, u.status]), [
      [batter, other, "queued"],
      [units[1]!.path, units[1]!.slurmId, "submitted"],
    ]);
    assert.equal(info(batter!).batch_job, Number(other), "its .info still names that job");
    assert.ok(!existsSync(join(units[0]!.batchDir, "job.id")), "batter has no batch job of ours");
    assert.match(await squeue(units[1]!.slurmId), new RegExp(`\\|afterok:${other}\\(`));
    assert.ok(existsSync(whisk!));
  } finally {
    await slurmCmd("scancel", [other, ...ours]);
  }
});

Deno.test("slurm: a SLURM job that ended, that SLURM forgot, or that waits on a failed dependency for good does not keep a job from being submitted (R118-1)", async () => {
  const slurm = await slurmEnv();
  await using d = await tempDir();
  const env = { SCOUT_HOME: join(d.path, "home"), ...slurm };
  const whisk = (eggs: number) => [
    "workflow",
    "task",
    BAKING,
    "whisk",
    "--eggs",
    String(eggs),
    "--deploy",
    "slurm",
  ];
  // cancelled while held; an id SLURM never knew; behind a dependency that failed
  const cancelled = await sbatch(["--hold", "--wrap", "true"]);
  await slurmCmd("scancel", [cancelled]);
  const failed = await sbatch(["--wrap", "false"]);
  const never = await sbatch([`--dependency=afterok:${failed}`, "--wrap", "true"]);
  const ours: string[] = [];
  try {
    await waitUntil(
      async () => (await squeue(never)).includes("|DependencyNeverSatisfied|"),
      `SLURM job ${never} to wait on ${failed} for good`,
    );
    await waitUntil(async () => (await squeue(cancelled)).startsWith("CANCELLED|"), "CANCELLED");
    for (const [eggs, id] of [[21, cancelled], [22, "999999999"], [23, never]] as const) {
      const plan = await runScout([...whisk(eggs), "--dry-run", "--json"], { env });
      const [unit] = JSON.parse(plan.stdout).units as Unit[];
      queuedInfo(unit!.path, id);
      const run = await runScout([...whisk(eggs), "--json"], { env: { ...env, SBATCH_HOLD: "1" } });
      assert.equal(run.code, 0, run.stderr);
      const [sent] = JSON.parse(run.stdout).units as Unit[];
      ours.push(sent!.slurmId);
      assert.equal(sent!.status, "submitted", `queued in ${id}`);
      assert.notEqual(sent!.slurmId, id);
      assert.equal(info(unit!.path).batch_job, Number(sent!.slurmId));
    }
  } finally {
    await slurmCmd("scancel", [never, ...ours]);
  }
});

Deno.test("slurm: each job a batch job computed keeps batch_job, batch_system and batch_cpus in its .info, as Scout writes them (R118-3)", async () => {
  const slurm = await slurmEnv();
  await using d = await tempDir();
  const env = { SCOUT_HOME: join(d.path, "home"), ...slurm };
  const rules = join(d.path, "chain.yaml");
  writeFileSync(rules, "chains:\n  prep:\n    workflow: Baking\n    tasks: whisk, batter\n");
  const args = ["workflow", "task", BAKING, "cake", "--eggs", "31", "--deploy", "slurm"];
  const run = await runScout([...args, "--deploy-rules", rules, "--wait", "--json"], { env });
  assert.equal(run.code, 0, run.stderr);
  const out = JSON.parse(run.stdout);
  assert.equal(out.end.state, "COMPLETED");
  const units: { jobs: string[]; slurmId: string }[] = out.units;
  assert.deepEqual(units.map((u) => u.jobs.length), [2, 1], "whisk and batter in one batch job");
  const store = join(env.SCOUT_HOME, "var", "jobs", "Baking");
  for (
    const [task, id] of [["whisk", units[0]!.slurmId], ["batter", units[0]!.slurmId], [
      "cake",
      units[1]!.slurmId,
    ]]
  ) {
    const [name] = readdirSync(join(store, task!)).filter((n) => !n.endsWith(".info"));
    const i = info(join(store, task!, name!));
    assert.equal(i.status, "done", task);
    assert.deepEqual(
      [i.batch_job, i.batch_system, i.batch_cpus],
      [id, "SLURM", "1"],
      `${task}: strings, as Scout's write_info writes its arguments`,
    );
  }
});

Deno.test("slurm: a job a batch job is computing names it in its .info, so another --deploy slurm of it (another batch dir) does not submit it again (R122-2)", async () => {
  const slurm = await slurmEnv();
  await using d = await tempDir();
  const env = { SCOUT_HOME: join(d.path, "home"), ...slurm };
  const nap = ["workflow", "task", SLOW, "nap", "--seconds", "120", "--deploy", "slurm", "--json"];
  const first = await runScout(nap, { env });
  assert.equal(first.code, 0, first.stderr);
  const [unit] = JSON.parse(first.stdout).units as Unit[];
  const ours = [unit!.slurmId];
  try {
    assert.equal(unit!.status, "submitted");
    // the batch job runs the body: the .info says so, no longer `waiting`
    await waitUntil(
      () => existsSync(unit!.path + ".info") && info(unit!.path).status === "napping",
      "the nap to start",
    );
    assert.match(await squeue(unit!.slurmId), /^RUNNING\|/);
    const other = join(d.path, "otherbatch"); // another user of the store: not our job.id
    const again = await runScout([...nap, "--batch-dir", other], { env });
    assert.equal(again.code, 0, again.stderr);
    const [sent] = JSON.parse(again.stdout).units as Unit[];
    if (sent!.status === "submitted") ours.push(sent!.slurmId);
    assert.deepEqual([sent!.status, sent!.slurmId], ["queued", unit!.slurmId]);
    assert.deepEqual(
      [info(unit!.path).batch_job, info(unit!.path).batch_system],
      [unit!.slurmId, "SLURM"],
      "the running job's .info names its batch job",
    );
  } finally {
    await cancelAndWait(ours); // its job's SIGTERM handler writes into d.path
  }
});
