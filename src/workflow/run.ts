/**
 * The runner (`workflow.md` §4–§5): dependencies first (shared ones once),
 * an exclusive lock per job (shared with Scout), the status lifecycle in
 * `.info` (`setup` → `start` → custom → `done`/`error`/`aborted`), atomic
 * result writes, outdated dependencies recomputed, clean and recursive clean.
 *
 * @module
 */
import { rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { ScoutError } from "../errors.ts";
import { ownRecord } from "../util/own_record.ts";
import { isJob, type Job, type Task } from "./job_types.ts";
import { findStep, isDone, jobContext } from "./context.ts";
import { writeJobInfo } from "./info.ts";
import {
  backtraceOf,
  errorInfoPatch,
  errorMessage,
  rootFailure,
  rubyExceptionClass,
} from "./failure.ts";
import type { HeldLock } from "./lock.ts";
import { acquireJobLock } from "./job_lock.ts";
import { readResult } from "./result.ts";
import { execOutput, saveResult } from "./result_save.ts";
import { tmpPath } from "./store.ts";
import { jobState } from "./state.ts";
import { rubyTime } from "./time.ts";
import { SCOUT_EXCEPTION_CLASSES } from "./marshal.ts";
import { setAsideEarlierRun } from "./attempts.ts";
import { dependenciesToRun } from "./run_deps.ts";
import { abortOnInterrupt, type RunInfo, runInfo } from "./run_info.ts";
import { deliverPendingSignals } from "./interrupt.ts";
import { awaitRun, type InflightRun } from "./run_waiters.ts";

export { isOutdated } from "./outdated.ts";
export { type RecordedFailure, unrecoverableFailure } from "./run_deps.ts";
export { cleanJob, cleanJobRecursive, cleanJobWaiting, cleanTargets } from "./clean.ts";
export type { CleanWaitNotice } from "./clean.ts";

/** Progress events of a run (for progress displays). */
export type RunEvent =
  | { type: "status"; job: Job; status: string }
  | { type: "wait"; job: Job; holder: string }
  /** Still waiting after a few seconds (`LONG_WAIT_MS`): on `lock`, held by `holder`. */
  | { type: "long_wait"; job: Job; holder: string; lock: string };

/** Options of {@link runJob} and {@link produceJob}. */
export interface RunOptions {
  /** Progress callback. */
  onEvent?: (event: RunEvent) => void;
  /** Environment (`SCOUT_NO_RECOVERABLE_ERROR`). */
  env?: Record<string, string | undefined>;
  /** Give up waiting for another process's lock after this many ms. */
  lockTimeoutMs?: number;
  /**
   * `"require-done"`: compute only this job, never its dependencies; a
   * dependency that is not done is an error (`dependency_not_done`). Used by
   * deploy workers and batch jobs, whose scheduler runs dependencies first.
   * Default `"run"`: dependencies are computed first (§4).
   */
  dependencies?: "run" | "require-done";
  /**
   * The caller's cancellation: when every caller waiting on a run has
   * cancelled, the run is aborted (recorded `aborted`, as on SIGTERM);
   * otherwise it goes on for the others (R96-3). A cancelled caller's
   * `runJob`/`produceJob` rejects with `job_aborted` (R105-3).
   */
  signal?: AbortSignal;
  /**
   * Fields naming the batch job that computes this run — a SLURM batch job's
   * `batch_job`, `batch_system` and `batch_cpus` (`deploy/slurm_env.ts`): the
   * info of a job it computes holds them from `setup` on, so another
   * `--deploy slurm` sees the job queued while it runs (R122-2), and keeps
   * them once done, each unless the run set it (Scout's `write_info
   * --force=false`).
   */
  batchInfo?: Readonly<Record<string, unknown>>;
}

function jobError(job: Job, e: unknown): ScoutError {
  if (e instanceof ScoutError && e.code === "job_failed" && typeof e.job === "string") return e;
  const prefix = `Job "${job.shortPath}" failed: `;
  // the message without the notes for the user, for a tool output (R84-3)
  const base = e instanceof ScoutError && typeof e.baseMessage === "string"
    ? { baseMessage: prefix + e.baseMessage }
    : {};
  return new ScoutError("job_failed", prefix + errorMessage(e), {
    ...base,
    file: job.path,
    job: job.path,
    rubyClass: rubyExceptionClass(e),
    backtrace: backtraceOf(e),
    cause: e,
  });
}

function isDeliberate(e: unknown): boolean {
  return SCOUT_EXCEPTION_CLASSES.has(rubyExceptionClass(e));
}

/**
 * Loads a done job's result (chat results parsed, never compiled).
 *
 * @param job the job
 * @returns the value
 * @throws ScoutError `job_not_finished` when there is no result
 */
export async function loadJobResult(job: Job): Promise<unknown> {
  if (!isDone(job)) {
    throw new ScoutError("job_not_finished", `Job "${job.shortPath}" has no result`, {
      file: job.path,
    });
  }
  return await readResult(job.path, job.type);
}

/**
 * Runs a job unless done, then returns its loaded result (§4 `run`). A done
 * job is loaded without touching its info; a job in error is rerun.
 *
 * @param job the job (from `createJob`)
 * @param opts progress callback, env, lock timeout, the caller's cancellation signal
 * @returns the loaded result
 * @throws ScoutError `job_failed` naming the job that failed; `job_aborted` when
 *   `opts.signal` aborted (before or during the run, whatever the body did: the job's
 *   `job.signal` fires once every caller waiting on it cancelled, and a chat task's
 *   agent stops its inference on it)
 *
 * @example
 * ```ts ignore
 * import { createJob, runJob } from "../../mod.ts";
 * const result = await runJob(createJob(wf, "whisk", { inputs: { eggs: 3 } }));
 * ```
 */
export async function runJob(job: Job, opts: RunOptions = {}): Promise<unknown> {
  if (!isDone(job)) await ensureDone(job, opts);
  return await loadJobResult(job);
}

/**
 * Makes sure a job is done without loading it (§4 `produce`): a job in
 * error is run again — one in a recoverable error not cleaned first, as
 * Scout does ([TS-FIX] R109-3): the run sets the failed run's evidence
 * aside (`attempts.ts`).
 *
 * @param job the job
 * @param opts progress callback, env, lock timeout, the caller's cancellation signal
 * @throws ScoutError as {@link runJob}: `job_failed`, or `job_aborted` once `opts.signal` aborted
 */
export async function produceJob(job: Job, opts: RunOptions = {}): Promise<void> {
  if (isDone(job)) return;
  // Scout cleans a job in a recoverable error here; the run itself now sets the failed
  // run aside, which leaves the job as a clean would (its info replaced, `.files/` empty
  // but for the attempts), and a job in another error is run again as before.
  await ensureDone(job, opts);
}

/**
 * Runs a job's body in memory: no lock, no files, no info (§4 `exec`).
 * Dependencies that are done are loaded, the others executed the same way.
 *
 * @param job the job
 * @returns the body's value
 */
export async function execJob(job: Job): Promise<unknown> {
  if (job.task === null) return await loadJobResult(job);
  // Input dependencies that are not done have no result file to load: execute them too.
  const executed = ownRecord();
  for (const [name, v] of Object.entries(job.inputs)) {
    if (isJob(v) && !isDone(v)) executed[name] = await execJob(v);
  }
  const ctx = jobContext(job, {
    persist: false,
    signal: new AbortController().signal,
    load: (dep) => isDone(dep) ? loadJobResult(dep) : execJob(dep),
    inputs: executed,
  });
  return await job.task.run(ctx.inputs, ctx);
}

/**
 * Executes a job (as {@link execJob}) for its value to be shown — a chat's
 * `exec_task:`, an exec export's tool output: a stream it returned read to
 * its bytes, a value no result file could hold refused naming the task, as
 * a persisted job's would be (`execOutput`).
 *
 * @param job the job
 * @param signal cancels a returned stream being read
 * @returns the body's value, a stream as its bytes
 * @throws ScoutError `unsavable_result` naming the task; the body's error
 */
export async function execJobOutput(job: Job, signal?: AbortSignal): Promise<unknown> {
  return await execOutput(job, await execJob(job), signal);
}

function ensureDone(job: Job, opts: RunOptions): Promise<void> {
  if (isDone(job)) return Promise.resolve();
  return awaitRun(job, opts.signal, (run) => compute(job, opts, run));
}

/** A job this process computes, its lock held: the task, options, info and interrupt signal. */
interface LockedRun {
  job: Job;
  task: Task;
  opts: RunOptions;
  info: RunInfo;
  signal: AbortSignal;
}

function emitStatus({ job, opts }: LockedRun, status: string): void {
  opts.onEvent?.({ type: "status", job, status });
}

/** The task that computes a job that is not done, or an error when none is defined here. */
function taskToCompute(job: Job): Task {
  if (job.task !== null) return job.task;
  throw new ScoutError(
    "job_not_finished",
    `Job "${job.shortPath}" is not done and has no task definition here to compute it`,
    { file: job.path },
  );
}

/**
 * Computes a job (§4): dependencies checked, the job's lock taken, an
 * interrupt handled, the run itself, a failure recorded.
 */
async function compute(job: Job, opts: RunOptions, inflight: InflightRun): Promise<void> {
  const task = taskToCompute(job);
  const plan = await dependenciesToRun(job, opts);
  const lock: HeldLock = await acquireJobLock(job.path, job.store.lockDir, {
    ...(opts.lockTimeoutMs !== undefined ? { timeoutMs: opts.lockTimeoutMs } : {}),
    onWait: (holder) => opts.onEvent?.({ type: "wait", job, holder }),
    onLongWait: (lock, holder) => opts.onEvent?.({ type: "long_wait", job, holder, lock }),
  });
  const controller = new AbortController();
  const { untrack, abort } = abortOnInterrupt(job, lock, controller);
  inflight.abort = abort;
  // This process holds the lock: the info is kept in memory and rewritten whole.
  const info = runInfo(job, controller.signal);
  const run: LockedRun = { job, task, opts, info, signal: controller.signal };
  try {
    if (isDone(job)) return;
    if (inflight.cancelled) {
      throw new ScoutError("job_aborted", `Job "${job.shortPath}" was cancelled`, {
        file: job.path,
      });
    }
    await computeLocked(run, plan);
  } catch (e) {
    await recordFailure(run, e);
    throw jobError(job, e);
  } finally {
    untrack();
    lock.release();
  }
}

/**
 * The run itself, lock held: a leftover tmp result removed, `setup` while
 * the planned dependencies run, then `start`, the body, its result
 * written, `done` with the times.
 */
async function computeLocked(run: LockedRun, plan: Job[]): Promise<void> {
  const { job, task, opts, info } = run;
  // [TS-FIX] A tmp result left by a run that died (SIGKILL, SIGHUP, the node)
  // is partial: the body would append to it and the rename put it in place.
  // Synchronous: an awaited rm here kept a SIGINT during a synchronous body
  // from being seen before its result (tests/workflow/cli_interrupt_test.ts).
  rmSync(tmpPath(job.path), { force: true, recursive: true });
  // [TS-FIX] R109-3: a failed run is rerun in place (its name is the user's), but what it
  // left — the evidence of the tokens it paid for — becomes an earlier attempt, not
  // replaced (Scout deletes it); so does a run that died in progress (its lock was stale
  // and taken over: no live process runs it; Scout runs over it). Lock held: no other
  // process sets it aside at once.
  setAsideEarlierRun(job.path);
  const issued = new Date();
  // [TS-FIX] The info names the batch job computing it from setup on: Scout's reset drops
  // `batch_job` and its `run_job` sees a running job only by a pid on its own host (R122-2).
  info.setup(issued, opts.batchInfo);
  if (plan.length > 0) {
    // `setup` while dependencies run; without any to run the reset goes straight to `start`.
    await writeJobInfo(job.path, info.current);
    emitStatus(run, "setup");
    await runDependencies(job, plan, opts);
  }
  const start = new Date();
  await info.merge({ status: "start", start: rubyTime(start) });
  emitStatus(run, "start");
  const ctx = jobContext(job, {
    persist: true,
    signal: run.signal,
    load: (dep) => runJob(dep, opts),
    onStatus: (_j, status) => emitStatus(run, status),
    info: { merge: info.merge, replace: info.replace },
  });
  const value = await task.run(ctx.inputs, ctx);
  // a signal that came while the body computed synchronously wins over its result, if read
  // by now; one read later still ends the process once the job is done (interrupt.ts)
  await deliverPendingSignals();
  if (run.signal.aborted) {
    throw new ScoutError("job_aborted", `Job "${job.shortPath}" was interrupted`, {
      file: job.path,
    });
  }
  await saveResult(job, task, value, run.signal);
  const end = new Date();
  await info.merge({
    status: "done",
    time_elapsed: (end.getTime() - start.getTime()) / 1000,
    total_time_elapsed: (end.getTime() - issued.getTime()) / 1000,
    end: rubyTime(end),
    ...unsetFields(info.current, opts.batchInfo),
  });
  emitStatus(run, "done");
}

/** The fields of `extra` an info does not hold yet (Scout's `write_info --force=false`). */
function unsetFields(
  info: Readonly<Record<string, unknown>>,
  extra: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> {
  return Object.fromEntries(Object.entries(extra ?? {}).filter(([k]) => !Object.hasOwn(info, k)));
}

/** Runs the planned dependencies in order; a deliberate failure of a `canfail` one is skipped. */
async function runDependencies(job: Job, plan: Job[], opts: RunOptions): Promise<void> {
  for (const d of plan) {
    try {
      await ensureDone(d, opts);
    } catch (e) {
      if (job.compute[d.path]?.includes("canfail") && isDeliberate(e)) continue;
      throw e;
    }
  }
}

/** Records a failed run in the info (as the root failure), removes its tmp result, emits `error`. */
async function recordFailure(run: LockedRun, e: unknown): Promise<void> {
  const { job, info } = run;
  // A dependency's failure is recorded as the dependency's own error, never the wrapper.
  const original = rootFailure(e);
  try {
    // an interrupt or a cancellation already wrote `aborted`: nothing more to record
    if (Object.keys(info.current).length > 0 && !run.signal.aborted) {
      await info.merge(errorInfoPatch(original));
    }
  } finally {
    await rm(tmpPath(job.path), { force: true, recursive: true });
    emitStatus(run, "error");
  }
}

/**
 * Finds a dependency (recursively) by task name; see `JobContext.step`.
 *
 * @param job the job
 * @param taskName task name
 * @returns the dependency or undefined
 */
export function jobStep(job: Job, taskName: string): Job | undefined {
  return findStep(job, taskName);
}

/**
 * Whether a job is running: not done, a non-final status, and the recorded
 * process alive (on this host; another host's pid counts as alive), as
 * {@link jobState} reports it.
 *
 * @param job the job
 * @returns true while another process (or this one) computes it
 */
export async function isRunning(job: Job): Promise<boolean> {
  return (await jobState(job.path)).running;
}
