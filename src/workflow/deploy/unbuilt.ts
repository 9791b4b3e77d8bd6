/**
 * A job a deploy's worker was sent to run but could not build as it was
 * submitted (R109-1): its inputs make another job now, or the files saved
 * for it are gone. The error is recorded in the job's `.info` (Scout's
 * failure record), so a job SLURM was to run does not stay `waiting` once
 * its batch job has ended, and `workflow info` says why.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { isScoutError } from "../../errors.ts";
import { errorInfoPatch } from "../failure.ts";
import { readJobInfoSync, updateJobInfoSync } from "../info.ts";
import { acquireJobLock } from "../job_lock.ts";

/**
 * Records `error` as the failure of the job at `path`, when nothing else
 * has become of it: no result, an info that is absent or says `waiting`,
 * and its lock free (no process runs it). A `waiting` info keeps its
 * `batch_job` and `batch_system`.
 *
 * @param path the job's path (as the worker was given it)
 * @param error what failed
 * @param lockDir the store's persist lock directory
 * @returns whether the info now records it
 */
export async function recordUnbuilt(
  path: string,
  error: unknown,
  lockDir: string,
): Promise<boolean> {
  if (existsSync(path)) return false;
  let lock;
  try {
    lock = await acquireJobLock(path, lockDir, { timeoutMs: 0 });
  } catch (e) {
    if (isScoutError(e, "lock_timeout")) return false; // another process runs it
    throw e;
  }
  try {
    const { info, problem } = readJobInfoSync(path);
    if (problem !== null || existsSync(path)) return false;
    if (info !== null && info.status !== "waiting") return false;
    updateJobInfoSync(path, errorInfoPatch(error));
    return true;
  } finally {
    lock.release();
  }
}
