/**
 * A `--deploy local` worker that ended while its job ran, not told to stop
 * (R106-4): killed by a signal (`kill -9`, the OOM killer) or exited with a
 * code. What to say of it, and the record in the job's `.info`: `aborted`
 * for a signal (as an interrupt is recorded, `workflow.md` §7.4 item 7),
 * `error` for an exit code (the run failed), each with the message.
 *
 * @module
 */
import { rmSync } from "node:fs";
import { pidAlive } from "../../util/process.ts";
import { readJobInfoSync, updateJobInfoSync } from "../info.ts";
import type { Job } from "../job_types.ts";
import { thisHost } from "../state.ts";
import { tmpPath } from "../store.ts";
import { rubyTime } from "../time.ts";

/** How a worker process ended: its exit code, or the signal that killed it. */
export interface WorkerEnd {
  /** Exit code, null when a signal killed it. */
  code: number | null;
  /** The signal's name, null when it exited. */
  signal: string | null;
}

/**
 * What happened to a job whose worker ended under it: `its worker was killed
 * by SIGKILL` or `its worker exited with code N` (`ended` when neither is
 * known), `before the job finished`.
 *
 * @param end how the worker ended
 * @returns the message
 *
 * @example
 * ```ts
 * import { workerEndMessage } from "./worker_end.ts";
 * workerEndMessage({ code: null, signal: "SIGKILL" });
 * // "its worker was killed by SIGKILL before the job finished"
 * ```
 */
export function workerEndMessage(end: WorkerEnd): string {
  const how = end.signal !== null
    ? `was killed by ${end.signal}`
    : end.code !== null
    ? `exited with code ${end.code}`
    : "ended";
  return `its worker ${how} before the job finished`;
}

/**
 * Records in a job's `.info` that its worker ended under it (see the
 * module): only when the info still says a process of this host runs it
 * that is the worker or gone (`SCOUT_AI_SELF` may wrap the worker); a job
 * that ended meanwhile, or that a live process runs, is left as it is. The
 * partial tmp result goes.
 *
 * @param job the job
 * @param pid the worker's pid
 * @param end how the worker ended
 * @returns true when the info now records it
 */
export function recordWorkerEnd(job: Job, pid: number | undefined, end: WorkerEnd): boolean {
  const { info } = readJobInfoSync(job.path);
  const status = info?.status;
  if (info === null || ["done", "error", "aborted", "noinfo"].includes(String(status))) {
    return false;
  }
  const here = info.pid_hostname === undefined || info.pid_hostname === thisHost();
  const holder = Number(info.pid);
  if (!here || (holder !== pid && pidAlive(holder))) return false;
  const message = workerEndMessage(end);
  try {
    updateJobInfoSync(job.path, {
      status: end.signal !== null ? "aborted" : "error",
      end: rubyTime(),
      messages: [end.signal !== null ? `Aborted: ${message}` : message],
    });
  } catch {
    return false; // the message still reaches stderr
  } finally {
    rmSync(tmpPath(job.path), { force: true, recursive: true });
  }
  return true;
}
