/**
 * Jobs a batch job already queued (`--deploy slurm`, `workflow.md` §9): a
 * pending job whose `.info` names a SLURM job (`batch_job`, `batch_system`
 * SLURM) that may still run is not submitted again, whoever queued it — this
 * program, or Scout (`SchedulerJob#run_job`: "Job … already queued in N") —
 * and the units submitted now that depend on it wait for that SLURM job
 * (`afterok`), as Scout's dependants wait for the id `run_job` returned.
 *
 * @module
 */
import { basename, join } from "node:path";
import { readJobInfoSync } from "../info.ts";
import type { Job } from "../job_types.ts";
import { namedBatchJob } from "./batch_job.ts";
import { FINAL_STATES } from "./slurm_state.ts";
import { readBatch } from "./slurm_submit.ts";
import type { BatchUnit } from "./slurm_types.ts";
import { batchDirName, legacyBatchDirName } from "./slurm_units.ts";

/** SLURM's reason for a pending job one of whose dependencies failed: it never runs. */
const NEVER = "DependencyNeverSatisfied";

/**
 * The SLURM job each job's `.info` names, whatever its status. A job a dry
 * run counts as not done although done (`redo`: a real run removes its info
 * first) and an info that cannot be read name none.
 *
 * @param jobs the pending jobs
 * @param redo paths of jobs `--clean`/`--recompute` would remove
 * @returns job path → SLURM id
 */
export function namedBatchJobs(
  jobs: readonly Job[],
  redo?: ReadonlySet<string>,
): Map<string, string> {
  const out = new Map<string, string>();
  for (const j of jobs) {
    if (redo?.has(j.path)) continue;
    const { info, problem } = readJobInfoSync(j.path);
    const named = problem === null ? namedBatchJob(info) : null;
    if (named !== null) out.set(j.path, named.id);
  }
  return out;
}

/**
 * Whether a SLURM job may still run: squeue knows it, in no final state, and
 * not pending for good on a dependency that failed (`DependencyNeverSatisfied`:
 * Scout submits without `--kill-on-invalid-dep`, so such a job stays pending).
 * [TS-FIX] Scout's `job_queued` only asks whether squeue lists the id, so a
 * job queued behind a failed dependency blocked its resubmission for good.
 *
 * @param s SLURM's state and reason of the job, if squeue knows it
 * @returns true when it may still run
 *
 * @example
 * ```ts
 * import { mayStillRun } from "./slurm_queued.ts";
 * mayStillRun({ state: "PENDING", reason: "Priority" }); // true
 * mayStillRun({ state: "PENDING", reason: "DependencyNeverSatisfied" }); // false
 * ```
 */
export function mayStillRun(s: { state: string; reason: string } | undefined): boolean {
  return s !== undefined && !FINAL_STATES.has(s.state) && s.reason !== NEVER;
}

/**
 * The jobs queued in a SLURM job that may still run ({@link mayStillRun}).
 *
 * @param named job path → SLURM id its info names
 * @param live SLURM's states, by id
 * @returns job path → SLURM id, of those still queued
 */
export function queuedJobs(
  named: ReadonlyMap<string, string>,
  live: ReadonlyMap<string, { state: string; reason: string }>,
): Map<string, string> {
  return new Map([...named].filter(([, id]) => mayStillRun(live.get(id))));
}

/** The batch directories a unit running `j` is named (now, and by an older scout-ai). */
function dirsOf(j: Job, base: string): string[] {
  return [join(base, batchDirName(j)), join(base, legacyBatchDirName(j))];
}

/**
 * The SLURM ids the batch directories of these jobs' units record (`job.id`).
 *
 * @param jobs the pending jobs
 * @param base the batch base directory
 * @returns the ids
 */
export function batchDirIds(jobs: readonly Job[], base: string): string[] {
  return jobs.flatMap((j) => dirsOf(j, base).map((d) => readBatch(d).id))
    .filter((id) => id !== undefined);
}

/**
 * Gives each unit queued by its jobs' infos the batch directory of one of
 * its jobs whose `job.id` is that SLURM job (Scout's `batch_dir_for_id`),
 * where its logs and `exit.status` are; a unit queued by someone else keeps
 * the directory it would have.
 *
 * @param units the units (those with `queuedByInfo` are looked at)
 * @param base the batch base directory
 */
export function placeQueued(units: readonly BatchUnit[], base: string): void {
  for (const u of units) {
    if (!u.queuedByInfo) continue;
    const dir = u.jobs.flatMap((j) => dirsOf(j, base))
      .find((d) => readBatch(d).id === u.slurmId);
    if (dir === undefined) continue;
    u.dir = dir;
    u.name = basename(dir);
  }
}
