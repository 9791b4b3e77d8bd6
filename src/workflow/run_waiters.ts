/**
 * The computations of jobs in flight in this process and who waits on them
 * (R96-3). Callers asking for the same job share its run; a caller may give
 * a signal (a cancelled MCP call, an aborted ask). When every caller waiting
 * on a run has cancelled, the run is aborted (its signal fired, recorded
 * `aborted`); its lock is kept until the body settles, so a later call
 * waits for it, then recomputes (R98-1) — for at most
 * {@link CANCELLED_RUN_WAIT_MS}: a body that ignores its signal and never
 * settles makes a later call fail with `job_busy` instead of hanging (R100-3).
 * A caller without a signal, or one still waiting, lets it finish.
 *
 * @module
 */
import { ScoutError } from "../errors.ts";
import { deliverPendingSignals } from "./interrupt.ts";
import type { Job } from "./job_types.ts";

/** One run in flight: its promise, its waiters, and how to abort it. */
export interface InflightRun {
  /** Settles when the run ends. */
  promise: Promise<void>;
  /** Callers waiting (a caller without a signal is never taken off). */
  waiters: number;
  /** Set once every waiter cancelled. */
  cancelled: boolean;
  /** Aborts the run once it holds its lock (set by the runner). */
  abort?: (reason: string) => void;
}

const inflight = new Map<string, InflightRun>();
/** Cancelled runs of a job whose body has not settled yet, by job path. */
const abandoned = new Map<string, Set<InflightRun>>();

/**
 * How long (ms) a call waits for a cancelled run of its job in this process
 * to settle before it fails with `job_busy` (R100-3).
 */
export const CANCELLED_RUN_WAIT_MS = 10_000;

/** The reason an abandoned run is recorded `aborted` with ("interrupted by …"). */
export const CANCELLED = "the cancellation of every call waiting on it";

function aborted(job: Job, cause?: unknown): ScoutError {
  return new ScoutError("job_aborted", `Job "${job.shortPath}" was cancelled`, {
    file: job.path,
    ...(cause !== undefined ? { cause } : {}),
  });
}

/**
 * How the run settles for a caller that gave `signal`: as the run does,
 * unless the caller cancelled by then — then `job_aborted`, whatever the run
 * became (the body's rejection, or the result of a run others waited on),
 * never the `job_failed` wrapping the body's reaction to its signal (R105-3).
 */
function forCaller(job: Job, run: Promise<void>, signal: AbortSignal): Promise<void> {
  return run.then(
    () => {
      if (signal.aborted) throw aborted(job);
    },
    (e) => {
      throw signal.aborted ? aborted(job, e) : e;
    },
  );
}

function busy(job: Job): ScoutError {
  return new ScoutError(
    "job_busy",
    `Job "${job.shortPath}": its cancelled run is still running in this server (pid ${process.pid}) ` +
      `and holds the job's lock; retry later or restart the server`,
    { file: job.path },
  );
}

function abandon(job: Job, run: InflightRun): void {
  const runs = abandoned.get(job.path) ?? new Set<InflightRun>();
  runs.add(run);
  abandoned.set(job.path, runs);
  const settled = () => {
    runs.delete(run);
    if (runs.size === 0 && abandoned.get(job.path) === runs) abandoned.delete(job.path);
  };
  run.promise.then(settled, settled);
}

/**
 * Waits up to {@link CANCELLED_RUN_WAIT_MS} for the cancelled runs of `job`
 * in this process to settle; rejects with `job_busy` when one has not.
 */
async function awaitAbandoned(job: Job): Promise<void> {
  const runs = abandoned.get(job.path) ?? new Set<InflightRun>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((r) => {
    timer = setTimeout(() => r("timeout"), CANCELLED_RUN_WAIT_MS);
  });
  const all = Promise.allSettled([...runs].map((r) => r.promise));
  try {
    if (await Promise.race([all, timeout]) === "timeout") throw busy(job);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Waits on the run of `job`, starting it with `start` when none is in flight.
 *
 * @param job the job
 * @param signal the caller's cancellation, if any
 * @param start starts the run (given its record, to set `abort`)
 * @returns settles when the run ends; rejects with `job_aborted` for a caller cancelled by then
 *   (at once when already cancelled)
 */
export function awaitRun(
  job: Job,
  signal: AbortSignal | undefined,
  start: (run: InflightRun) => Promise<void>,
): Promise<void> {
  if (signal?.aborted) return Promise.reject(aborted(job));
  let run = inflight.get(job.path);
  if (run === undefined) {
    const fresh: InflightRun = { promise: Promise.resolve(), waiters: 0, cancelled: false };
    // a cancelled run not settled keeps the lock: wait for it, bounded (R100-3)
    const started = abandoned.has(job.path)
      ? awaitAbandoned(job).then(() => start(fresh))
      : start(fresh);
    fresh.promise = started.finally(() => {
      if (inflight.get(job.path) === fresh) inflight.delete(job.path);
    });
    inflight.set(job.path, fresh);
    run = fresh;
  }
  run.waiters++;
  if (signal === undefined) return run.promise;
  const current = run;
  const onAbort = () => {
    if (--current.waiters > 0 || current.cancelled) return;
    current.cancelled = true;
    abandon(job, current);
    // a later caller starts a new run, not this abandoned one
    if (inflight.get(job.path) === current) inflight.delete(job.path);
    // a SIGINT/SIGTERM that cancelled the callers (an ask's handler) records the job first
    void deliverPendingSignals().then(() => current.abort?.(CANCELLED));
  };
  signal.addEventListener("abort", onAbort, { once: true });
  return forCaller(job, current.promise, signal).finally(() =>
    signal.removeEventListener("abort", onAbort)
  );
}
