/**
 * What a job this process computes records (`workflow.md` §4, §7.4 #7): the
 * setup info, the info kept in memory and rewritten whole while the process
 * holds the job's lock, and the `aborted` record an interrupt leaves.
 *
 * @module
 */
import { rmSync } from "node:fs";
import { isJob, type Job } from "./job_types.ts";
import {
  type JobInfo,
  mergeJobInfo,
  truncateInputValue,
  updateJobInfoSync,
  writeJobInfo,
} from "./info.ts";
import type { HeldLock } from "./lock.ts";
import { trackRunning } from "./interrupt.ts";
import { tmpPath } from "./store.ts";
import { thisHost } from "./state.ts";
import { rubyTime } from "./time.ts";
import { ownRecord } from "../util/own_record.ts";

/** Job values stored in info: jobs as paths, bytes as text, long arrays truncated. */
function infoValue(v: unknown): unknown {
  if (isJob(v)) return v.path;
  if (v instanceof Uint8Array) return new TextDecoder("utf-8", { fatal: false }).decode(v);
  if (Array.isArray(v)) return v.map(infoValue);
  return v === undefined ? null : v;
}

/**
 * The info a run starts with (status `setup`): who runs it, its inputs and
 * dependencies, then the fields naming the batch job that runs it (`batch`).
 */
function setupInfo(job: Job, issued: Date, batch: Readonly<Record<string, unknown>>): JobInfo {
  const provided = ownRecord(); // an input `__proto__` is recorded as one (no prototype to set)
  for (const [k, v] of Object.entries(job.providedInputs)) provided[k] = infoValue(v);
  return {
    status: "setup",
    issued: rubyTime(issued),
    pid: process.pid,
    pid_hostname: thisHost(),
    task_name: job.taskName,
    workflow: job.workflowName,
    provided_inputs: provided,
    non_default_inputs: [...job.nonDefaultInputs],
    inputs: job.inputNames.map((n) => truncateInputValue(infoValue(job.inputs[n]))),
    input_names: [...job.inputNames],
    type: job.type,
    dependencies: job.deps.map((d) => d.path),
    ...batch,
  };
}

/** The info of a running job, kept in memory (see {@link runInfo}). */
export interface RunInfo {
  /** The info as it stands (`{}` until {@link RunInfo.setup}). */
  readonly current: JobInfo;
  /**
   * Starts the record afresh with the setup info (not written).
   *
   * @param issued when the run was issued
   * @param batch fields naming the batch job that computes the run (`batch_job`…)
   */
  setup(issued: Date, batch?: Readonly<Record<string, unknown>>): void;
  /**
   * Merges a patch into the info (as {@link mergeJobInfo}), then writes it.
   *
   * @param patch the fields
   */
  merge(patch: Record<string, unknown>): Promise<void>;
  /**
   * Replaces top-level fields of the info, then writes it.
   *
   * @param patch the fields
   */
  replace(patch: Record<string, unknown>): Promise<void>;
}

/**
 * The info of a job this process computes while it holds the job's lock:
 * kept in memory and rewritten whole. After an interrupt (`signal` aborted)
 * the info says `aborted` and the lock is released: no later write of the
 * body (a log's dependencies, a status) may replace it, so none is made.
 *
 * @param job the job
 * @param signal aborted on interrupt
 * @returns the info
 */
export function runInfo(job: Job, signal: AbortSignal): RunInfo {
  let current: JobInfo = {};
  const write = () => signal.aborted ? Promise.resolve() : writeJobInfo(job.path, current);
  return {
    get current() {
      return current;
    },
    setup: (issued, batch = {}) => {
      current = setupInfo(job, issued, batch);
    },
    merge: (patch) => {
      current = mergeJobInfo(current, patch);
      return write();
    },
    replace: (patch) => {
      current = { ...current, ...patch };
      return write();
    },
  };
}

/**
 * Registers a running job for SIGINT/SIGTERM: the signal aborts its body,
 * its info says `aborted`, its partial tmp result is removed and its lock
 * released (the process exits next). `abort` does the same for another
 * cause (every caller cancelled, R96-3) but keeps the lock: the process goes
 * on, and the body, told by its signal, may still run; the lock is released
 * when it settles (the runner's `finally`), so a retry waits for it (at most
 * `CANCELLED_RUN_WAIT_MS`, then `job_busy`: R100-3) and no
 * two bodies of one job run at once (R98-1). Either records once; a signal
 * after a cancellation still releases the lock.
 *
 * @param job the job
 * @param lock the job's lock, held by this process
 * @param controller aborted on the signal (the body's signal)
 * @returns the unregister function, and the abort for another reason
 */
export function abortOnInterrupt(
  job: Job,
  lock: HeldLock,
  controller: AbortController,
): { untrack: () => void; abort: (reason: string) => void } {
  const abort = (reason: string) => {
    if (controller.signal.aborted) return;
    controller.abort();
    recordAborted(job.path, reason);
  };
  const onSignal = (signal: string) => {
    try {
      abort(signal);
    } finally {
      lock.release();
    }
  };
  return { untrack: trackRunning(job.path, onSignal), abort };
}

/**
 * Records a job as interrupted (synchronously): its info says `aborted`,
 * with `end` and the message `Aborted: interrupted by <signal>`, and its
 * partial tmp result is removed.
 *
 * @param path the job's path
 * @param signal the signal's name
 */
export function recordAborted(path: string, signal: string): void {
  try {
    updateJobInfoSync(path, {
      status: "aborted",
      end: rubyTime(),
      messages: [`Aborted: interrupted by ${signal}`],
    });
  } finally {
    // A partial tmp result must not survive an interrupt.
    rmSync(tmpPath(path), { force: true, recursive: true });
  }
}
