/**
 * A job's state as seen on disk (`workflow.md` §4): done ⇔ the result file
 * exists; running ⇔ not done and the info pid is alive on this host; derived
 * views `missing`, `noinfo`, `unsync` and `stale` (the recorded process is
 * gone, the job will never finish) for reports.
 *
 * @module
 */
import { hostname } from "node:os";
import { existsSync } from "node:fs";
import { exists } from "../util/fs.ts";
import { pidAlive } from "../util/process.ts";
import { filesDir, infoPath } from "./store.ts";
import { infoError, type JobInfo, readJobInfo } from "./info.ts";
import { SCOUT_EXCEPTION_CLASSES } from "./marshal.ts";

/** What is on disk for a job. */
export interface JobState {
  /** Result path. */
  path: string;
  /** The result file exists. */
  done: boolean;
  /** Stored info, `{status: "noinfo"}` if unreadable, null if absent. */
  info: JobInfo | null;
  /** Why the info could not be read, or null. */
  problem: string | null;
  /**
   * Status to show: the info status, or a derived view — `missing` (nothing
   * on disk), `noinfo` (result without info), `unsync` (info says done, no
   * result), `stale` (info says in progress, its process is gone).
   */
  status: string;
  /** Not done and the info pid is alive on this host (or on another host: unknown, counted alive). */
  running: boolean;
  /** What is known of the process recorded in the info ({@link infoProcess}). */
  process: JobProcess;
  /** Not done, an in-progress status, and the recorded process is gone: it will never finish. */
  stale: boolean;
}

/**
 * What is known of the process recorded in a job's info (`pid`,
 * `pid_hostname`): `alive`, `gone` (no such process on this host),
 * `unknown` (recorded on another host: it cannot be checked from here), or
 * `none` (no pid recorded).
 */
export type JobProcess = "alive" | "gone" | "unknown" | "none";

/** Statuses after which no process works on the job any more. */
const FINAL_STATUSES = ["error", "aborted", "done", "cleaned", "noinfo", "missing", "unsync"];

/**
 * Whether no process works on a job whose status is `status` any more (a
 * failed, done or cleaned one); an in-progress status (`setup`, `start`, a
 * custom one) is not final, whether its process lives or not.
 *
 * @param status a job's status
 * @returns true for a final status
 */
export function finalStatus(status: string): boolean {
  return FINAL_STATUSES.includes(status);
}

let host: string | undefined;
/**
 * This machine's hostname (memoised).
 *
 * @returns the hostname
 */
export function thisHost(): string {
  return host ??= hostname();
}

/**
 * Whether the process recorded in an info is alive: same host and pid alive.
 * A pid on another host cannot be checked and counts as alive.
 *
 * @param info an info object
 * @returns true if the recorded process may still run
 */
export function infoPidAlive(info: JobInfo | null): boolean {
  const p = infoProcess(info);
  return p === "alive" || p === "unknown";
}

/**
 * What is known of the process recorded in an info: `none` without a pid,
 * `unknown` on another host, else `alive` or `gone` (signal 0 on this host).
 *
 * @param info an info object
 * @returns the process's state
 *
 * @example
 * ```ts
 * import { infoProcess } from "./state.ts";
 * infoProcess({ status: "napping", pid: process.pid }); // "alive"
 * infoProcess({ status: "napping", pid: 1, pid_hostname: "elsewhere" }); // "unknown"
 * ```
 */
export function infoProcess(info: JobInfo | null): JobProcess {
  if (info === null || typeof info.pid !== "number") return "none";
  if (typeof info.pid_hostname === "string" && info.pid_hostname !== thisHost()) return "unknown";
  return pidAlive(info.pid) ? "alive" : "gone";
}

/**
 * Reads a job's state from disk.
 *
 * @param jobPath result path
 * @returns the state
 *
 * @example
 * ```ts ignore
 * import { jobState } from "./state.ts";
 * const s = await jobState("/h/.scout/var/jobs/Baking/whisk/Default");
 * s.done; // true
 * ```
 */
export async function jobState(jobPath: string): Promise<JobState> {
  const done = exists(jobPath);
  const { info, problem } = await readJobInfo(jobPath);
  return { path: jobPath, done, info, problem, ...derivedState(info, done) };
}

/**
 * The status {@link jobState} gives a job whose info is already read (the
 * one `workflow info` shows: `stale` when the recorded process is gone,
 * `unsync`, …): the result file is looked for, the recorded pid signalled.
 *
 * @param jobPath result path
 * @param info its info (null when absent)
 * @returns the status
 *
 * @example
 * ```ts ignore
 * import { jobStatusOf } from "./state.ts";
 * jobStatusOf("/h/.scout/var/jobs/Slow/nap/Default", { status: "napping", pid: 1e7 }); // "stale"
 * ```
 */
export function jobStatusOf(jobPath: string, info: JobInfo | null): string {
  return derivedState(info, exists(jobPath)).status;
}

/** Status, process, running and stale of a job from its info and whether its result exists. */
function derivedState(
  info: JobInfo | null,
  done: boolean,
): Pick<JobState, "status" | "running" | "process" | "stale"> {
  let status: string;
  if (info === null) status = done ? "noinfo" : "missing";
  else if (typeof info.status !== "string" || info.status === "") {
    status = done ? "done" : "noinfo";
  } else if (info.status === "done" && !done) status = "unsync";
  else status = info.status;
  const proc = infoProcess(info);
  const running = !done && (proc === "alive" || proc === "unknown") &&
    !["error", "aborted", "done", "cleaned", "noinfo"].includes(status);
  const stale = !done && proc === "gone" && !finalStatus(status);
  if (stale) status = "stale";
  return { status, running, process: proc, stale };
}

/**
 * Whether a failed job's error is recoverable (a retry may succeed): status
 * `error`, the error class is not a deliberate Scout exception, and
 * `SCOUT_NO_RECOVERABLE_ERROR` is not `true`.
 *
 * @param info the job's info
 * @param env environment
 * @returns true when recoverable
 */
export function isRecoverableError(
  info: JobInfo | null,
  env: Record<string, string | undefined> = process.env,
): boolean {
  if (info?.status !== "error") return false;
  if (env.SCOUT_NO_RECOVERABLE_ERROR === "true") return false;
  const err = infoError(info);
  return err === null || !SCOUT_EXCEPTION_CLASSES.has(err.className.replace(/^.*::/, ""));
}

/**
 * Whether anything of the job exists (result, info or files dir).
 *
 * @param jobPath result path
 * @returns true if present
 */
export function jobPresent(jobPath: string): boolean {
  return existsSync(jobPath) || existsSync(infoPath(jobPath)) || existsSync(filesDir(jobPath));
}
