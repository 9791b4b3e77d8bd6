/**
 * A submitted job's `.info` (`workflow.md` §4 `waiting`, §9): once `sbatch`
 * has queued a unit, each of its jobs records status `waiting`, `batch_job`
 * (the SLURM id) and `batch_system` (`SLURM`), so `workflow info` shows it
 * queued and Scout does not submit it again.
 *
 * The jobs' persist locks are taken (without waiting) before `sbatch` and
 * held until the infos are written: the batch job, which takes the same lock
 * to run the job, cannot start writing its own info in between. A job whose
 * lock another process holds (it runs the job now) or that is done keeps
 * its info; an info that cannot be read is left alone.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { isScoutError } from "../../errors.ts";
import { setAsideEarlierRun } from "../attempts.ts";
import { readJobInfoSync, writeJobInfo } from "../info.ts";
import type { Job } from "../job_types.ts";
import type { HeldLock } from "../lock.ts";
import { acquireJobLock } from "../job_lock.ts";

/** The persist locks of the jobs this deploy could take at once. */
export interface HeldJobs {
  /** The jobs whose lock is held (the others run elsewhere now). */
  jobs: Job[];
  /** Releases every lock. */
  release(): void;
}

/**
 * Takes the persist lock of each job, without waiting: a job whose lock is
 * busy is being run by another process and is left out.
 *
 * @param jobs the unit's jobs
 * @returns the held ones
 */
export async function holdJobs(jobs: readonly Job[]): Promise<HeldJobs> {
  const held: { job: Job; lock: HeldLock }[] = [];
  for (const job of jobs) {
    try {
      held.push({ job, lock: await acquireJobLock(job.path, job.store.lockDir, { timeoutMs: 0 }) });
    } catch (e) {
      if (!isScoutError(e, "lock_timeout")) {
        for (const h of held) h.lock.release();
        throw e;
      }
    }
  }
  return {
    jobs: held.map((h) => h.job),
    release: () => {
      for (const h of held) h.lock.release();
    },
  };
}

/** Scout's `batch_job`: SLURM's id as a number (Ruby writes an Integer), else as given. */
function batchJobValue(slurmId: string): number | string {
  return /^\d+$/.test(slurmId) ? Number(slurmId) : slurmId;
}

/**
 * Records the held jobs as `waiting` for SLURM job `slurmId`: a job with no
 * info gets `{status: "waiting", batch_job, batch_system: "SLURM"}` (Scout's
 * `init_info` and `set_info`); one whose info is an earlier attempt's (an
 * error, an abort, an earlier submission) gets the same fresh info, the
 * evidence of a failed run or of one that died in progress set aside first
 * as an earlier attempt (`attempts.ts`). Done jobs and unreadable infos are
 * left as they are.
 *
 * @param held the jobs whose lock is held
 * @param slurmId the SLURM id
 */
export async function markWaiting(held: HeldJobs, slurmId: string): Promise<void> {
  for (const job of held.jobs) {
    if (existsSync(job.path)) continue;
    const { info, problem } = readJobInfoSync(job.path);
    if (problem !== null) continue;
    // [TS-FIX] R109-3: a failed or dead run's evidence is set aside as an earlier attempt
    // where Scout cleans a recoverable error (the info is replaced below either way)
    if (info !== null) setAsideEarlierRun(job.path);
    await writeJobInfo(job.path, {
      status: "waiting",
      batch_job: batchJobValue(slurmId),
      batch_system: "SLURM",
    });
  }
}
