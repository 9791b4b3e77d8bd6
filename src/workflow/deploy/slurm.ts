/**
 * `--deploy slurm`: one batch directory per pending job (or per chain of
 * jobs) with Scout's file names — `command.batch`, `std.out`, `std.err`,
 * `job.id`, `exit.status`, `dependencies.list` (plus `jobs.list`, the job
 * paths it runs) — submitted with `sbatch --dependency=afterok:<ids>
 * --kill-on-invalid-dep=yes` in dependency order; a job already queued (its
 * `.info` names a SLURM job that may still run) is not submitted again. The script runs this same
 * program on its job(s) only, with `SCOUT_HOME` and the other `SCOUT_*`
 * settings exported in it (SLURM may pass on no environment); the job store
 * must be on a file system every node sees. A dry run changes no file: it shows, as a bash script, what a
 * real run would write and submit.
 *
 * @module
 */
import { basename } from "node:path";
import { isScoutError } from "../../errors.ts";
import type { Job } from "../job_types.ts";
import { NO_RULES } from "./rules.ts";
import { slurmStates } from "./slurm_state.ts";
import { batchScript, dryRunScript } from "./slurm_script.ts";
import { type BatchRecord, isLive, liveConflict, readBatch, submitUnit } from "./slurm_submit.ts";
import { batchUnits } from "./slurm_units.ts";
import { pendingJobs } from "./graph.ts";
import { batchDirIds, namedBatchJobs, placeQueued, queuedJobs } from "./slurm_queued.ts";
import { submissionFailure } from "./slurm_partial.ts";
import { batchEnv } from "./slurm_env.ts";
import type { BatchUnit, SlurmDeployOptions, SlurmDeployReport } from "./slurm_types.ts";

export { FINAL_STATES, slurmStates, WAIT_RETRY, waitForUnit } from "./slurm_state.ts";
export type { BatchEnd, SqueueRetry, SubmittedBatch, WaitClock, WaitPace } from "./slurm_state.ts";
export { batchScript, dryRunScript, shq } from "./slurm_script.ts";
export { batchDirName, batchUnits } from "./slurm_units.ts";
export type { BatchUnit, SlurmDeployOptions, SlurmDeployReport } from "./slurm_types.ts";
export type { UnitsOptions } from "./slurm_units.ts";

/** A unit's records: its batch directory's, and its digest-free directory's (an older scout-ai's). */
interface UnitRecords {
  /** The unit's batch directory's record, with SLURM's state. */
  now: BatchRecord;
  /** The record of `legacyDir`, when it has a `job.id`. */
  legacy?: BatchRecord;
}

/** The states squeue gave, or, in a dry run, why it could not be asked (R84-5). */
async function statesOf(
  ids: string[],
  env: Record<string, string | undefined> | undefined,
  dryRun: boolean,
): Promise<{ live: Map<string, { state: string; reason: string }>; unknown?: string }> {
  try {
    // a preview retries a failing squeue once, not for seconds
    return { live: await slurmStates(ids, env, dryRun ? { attempts: 2 } : {}) };
  } catch (e) {
    if (!dryRun || !isScoutError(e, "batch_system")) throw e;
    return { live: new Map(), unknown: String(e.stderr ?? e.message) };
  }
}

/**
 * Each unit's batch directory records, with SLURM's state of their ids. In
 * a dry run whose squeue failed (`unknown` says why) each unit with a
 * `job.id` — or whose jobs' infos name a SLURM job — records that id.
 */
function records(
  units: BatchUnit[],
  live: ReadonlyMap<string, { state: string }>,
  unknown: string | undefined,
  named: ReadonlyMap<string, string>,
): UnitRecords[] {
  const read = units.map((u) => {
    const legacy = u.legacyDir !== undefined ? readBatch(u.legacyDir) : undefined;
    return { now: readBatch(u.dir), ...(legacy?.id !== undefined ? { legacy } : {}) };
  });
  const withState = (r: BatchRecord): BatchRecord => {
    const state = r.id !== undefined ? live.get(r.id)?.state : undefined;
    return state !== undefined ? { ...r, state } : r;
  };
  if (unknown !== undefined) {
    for (const [i, u] of units.entries()) {
      const id = read[i]!.now.id ?? read[i]!.legacy?.id ??
        u.jobs.map((j) => named.get(j.path)).find((x) => x !== undefined);
      if (id !== undefined) u.stateUnknown = { id, squeue: unknown };
    }
  }
  return read.map((r) => ({
    now: withState(r.now),
    ...(r.legacy !== undefined ? { legacy: withState(r.legacy) } : {}),
  }));
}

/**
 * The graph's units, with one `squeue` call for every SLURM id that matters:
 * those the pending jobs' infos name (a job queued in one that may still run
 * is not submitted again, `slurm_queued.ts`) and those in their batch
 * directories' `job.id`.
 */
async function unitsAndRecords(top: Job, opts: SlurmDeployOptions) {
  const pending = pendingJobs(top, opts.redo);
  const named = namedBatchJobs(pending, opts.redo);
  const ids = [...new Set([...named.values(), ...batchDirIds(pending, opts.batchBase)])];
  const { live, unknown } = await statesOf(ids, opts.env, Boolean(opts.dryRun));
  const units = batchUnits(top, opts.rules ?? NO_RULES, opts.batchBase, {
    ...(opts.redo !== undefined ? { redo: opts.redo } : {}),
    queued: queuedJobs(named, live),
  });
  placeQueued(units, opts.batchBase);
  return { units, recs: records(units, live, unknown, named), unknown };
}

/**
 * Reuses the live batch job an older scout-ai queued for the unit in its
 * digest-free directory, when that job runs the unit's jobs and the unit's
 * own directory has none (R84-2): the unit takes that directory and id.
 *
 * @returns whether it was reused
 */
function reuseLegacy(u: BatchUnit, r: UnitRecords): boolean {
  const old = r.legacy;
  if (isLive(r.now) || old === undefined || !isLive(old) || liveConflict(u, old)) return false;
  u.dir = u.legacyDir!;
  u.name = basename(u.dir);
  u.slurmId = old.id!;
  u.status = "queued";
  return true;
}

/**
 * Writes the batch directories of the pending jobs of `top`'s graph and
 * submits them in dependency order. A job whose `.info` names a SLURM job
 * that may still run is not submitted again, whoever queued it (Scout's
 * "already queued in N"): its unit is that SLURM job, which the units
 * depending on it wait for. A unit whose `job.id` names a live SLURM job
 * running its jobs is not submitted again either (nor one an older scout-ai
 * queued in the directory it named without a digest); one whose live job runs other
 * jobs stops the deploy before anything is submitted. A dry run writes
 * nothing and submits nothing.
 *
 * @param top the top job
 * @param opts rules, batch base, command, dry run
 * @returns the units (and, dry, the script of a real run)
 * @throws ScoutError `batch_system` when a live batch job runs other jobs
 *   than its unit's (nothing submitted), or when sbatch fails: then its
 *   `report` holds every unit, those submitted before with their SLURM ids
 *   (`slurm_partial.ts`)
 */
export async function deploySlurm(top: Job, opts: SlurmDeployOptions): Promise<SlurmDeployReport> {
  const { units, recs, unknown } = await unitsAndRecords(top, opts);
  const before = recs.map((r) => r.now);
  for (const [i, u] of units.entries()) {
    const conflict = !u.queuedByInfo && isLive(before[i]!)
      ? liveConflict(u, before[i]!)
      : undefined;
    if (conflict !== undefined) throw conflict;
  }
  const topUnit = units.find((u) => u.jobs.some((j) => j.path === top.path));
  const scripts = new Map<BatchUnit, string>();
  const { vars, withheld } = batchEnv(opts.env ?? process.env);
  for (const [i, u] of units.entries()) {
    const script = batchScript(u, opts.command(u.jobs), opts.cwd, vars);
    scripts.set(u, script);
    if (u.queuedByInfo || reuseLegacy(u, recs[i]!)) continue;
    if (!opts.dryRun) {
      try {
        await submitUnit(u, before[i]!, script, opts);
      } catch (e) {
        throw submissionFailure(units, i, e, topUnit, opts.rules, withheld);
      }
    } else if (isLive(before[i]!)) {
      u.slurmId = before[i]!.id!;
      u.status = "queued";
    } else {
      u.status = "dry-run";
    }
  }
  return {
    units,
    ...(topUnit ? { top: topUnit } : {}),
    ...(opts.dryRun
      ? { script: dryRunScript(units, scripts, [...(opts.redo ?? [])], opts.prelude) }
      : {}),
    ...(unknown !== undefined ? { squeueFailure: unknown } : {}),
    ...(withheld.length > 0 ? { withheldEnv: withheld } : {}),
  };
}
