/**
 * Why a waited-for batch job never ran (`--wait`): the batch job it waited
 * for that failed — the job whose info records an error (or an abort), else
 * the unit SLURM ended badly (a time limit, `scancel` before it started) —
 * with its message and its log.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Job } from "../job_types.ts";
import { infoError, readJobInfo } from "../info.ts";
import { FINAL_STATES, slurmStates } from "./slurm_state.ts";
import type { BatchUnit } from "./slurm_types.ts";

/** A unit that failed, the job of it that failed, and what to read. */
export interface FailedUnit {
  /** The unit. */
  unit: BatchUnit;
  /** Its job that failed (the unit's last when only SLURM's state says so). */
  job: Job;
  /** The error its info records, or how SLURM ended it. */
  message: string;
  /** Its `std.err`, when the batch job wrote one. */
  log?: string;
}

function withLog(f: Omit<FailedUnit, "log">): FailedUnit {
  const log = join(f.unit.dir, "std.err");
  return existsSync(log) ? { ...f, log } : f;
}

/** The first job of the units whose info records an error or an abort. */
async function failedByInfo(units: BatchUnit[]): Promise<FailedUnit | undefined> {
  for (const unit of units) {
    for (const job of unit.jobs) {
      const { info } = await readJobInfo(job.path).catch(() => ({ info: null }));
      const status = info?.status;
      if (status !== "error" && status !== "aborted") continue;
      return withLog({ unit, job, message: infoError(info)?.message ?? `status ${status}` });
    }
  }
  return undefined;
}

/** The first unit SLURM ended other than completed, not for a failed dependency of its own. */
async function failedBySlurm(
  units: BatchUnit[],
  env?: Record<string, string | undefined>,
): Promise<{ unit: BatchUnit; message: string } | undefined> {
  const ids = units.map((u) => u.slurmId).filter((x): x is string => x !== undefined);
  // one call: a controller that does not answer leaves the infos to say
  const states = await slurmStates(ids, env, { attempts: 1 }).catch(() => new Map());
  for (const unit of units) {
    const s = unit.slurmId !== undefined ? states.get(unit.slurmId) : undefined;
    if (s === undefined || !FINAL_STATES.has(s.state) || s.state === "COMPLETED") continue;
    if (s.reason === "DependencyNeverSatisfied") continue;
    const why = s.reason && s.reason !== "None" ? ` (${s.reason})` : "";
    return { unit, message: `its batch job ended ${s.state}${why}` };
  }
  return undefined;
}

/**
 * The unit `top` waited for that failed, the first in submission order (so a
 * dependency before its dependents): the one SLURM ended other than
 * completed (its failed job and error from its jobs' infos), else the first
 * whose job's info records an error or an abort.
 *
 * @param units the deploy's units
 * @param top the unit waited for
 * @param env environment for `squeue`
 * @returns the failed unit, or undefined when none is known to have failed
 */
export async function failedDependency(
  units: BatchUnit[],
  top: BatchUnit,
  env?: Record<string, string | undefined>,
): Promise<FailedUnit | undefined> {
  const others = units.filter((u) => u !== top);
  const bad = await failedBySlurm(others, env);
  if (bad === undefined) return await failedByInfo(others);
  return await failedByInfo([bad.unit]) ??
    withLog({ unit: bad.unit, job: bad.unit.jobs.at(-1)!, message: bad.message });
}
