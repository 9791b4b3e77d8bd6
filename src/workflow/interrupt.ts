/**
 * SIGINT/SIGTERM/SIGHUP while jobs run (`workflow.md` §7.4 #7; SIGHUP — a
 * closed terminal, a dropped ssh session — as Ruby's SignalException): every job of this
 * process that is between setup and done is marked `aborted` (synchronous
 * atomic info write), its tmp result removed and its lock released; then the
 * process exits with 128 + signal number — unless a caller above holds the
 * exit ({@link holdInterruptExit}: `llm ask`/`agent ask`, which save the
 * chat so far and exit themselves). Handlers are installed only while jobs
 * run.
 *
 * @module
 */

type AbortFn = (signal: string) => void;

const running = new Map<string, AbortFn>();
let installed = false;

const EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

/** Told which jobs a signal recorded aborted, before the process exits (the CLI prints it). */
export type InterruptReport = (signal: string, aborted: string[]) => void;

const reporters = new Set<InterruptReport>();

function onSignal(signal: string): void {
  const aborted = [...running.keys()];
  for (const abort of [...running.values()].reverse()) {
    try {
      abort(signal);
    } catch { /* keep aborting the others: the process is going down */ }
  }
  running.clear();
  for (const report of reporters) {
    try {
      report(signal, aborted);
    } catch { /* a report must not keep the process from exiting */ }
  }
  if (holders === 0) process.exit(EXIT[signal] ?? 1);
}

/**
 * Does what SIGINT/SIGTERM do, for another cause: a `--deploy local` worker
 * told by its parent's SIGHUP, or whose parent is gone (R84-4). Every
 * tracked job is recorded `aborted` ("interrupted by <reason>"), the reports
 * run, and the process exits (129 for SIGHUP, else 1) unless held.
 *
 * @param reason the signal's name, or what ended the jobs
 */
export function interruptJobs(reason: string): void {
  onSignal(reason);
}

/**
 * Records every job of this process still running `aborted` ("interrupted
 * by <reason>"), as a signal would, but without exiting: for a server whose
 * client went away after cancelling its calls, which exits next (R91-5).
 *
 * @param reason what ended the jobs
 * @returns how many jobs were recorded aborted
 */
export function abandonRunningJobs(reason: string): number {
  const count = running.size;
  if (count === 0) return 0;
  const release = holdInterruptExit();
  try {
    onSignal(reason);
  } finally {
    release();
  }
  return count;
}

/**
 * Registers a report of the jobs a SIGINT/SIGTERM marks aborted, called
 * once they are recorded and before the process exits.
 *
 * @param report gets the signal and the aborted jobs' paths
 * @returns the unregister function
 */
export function reportInterrupts(report: InterruptReport): () => void {
  reporters.add(report);
  return () => void reporters.delete(report);
}

/** Event-loop turns a signal needs to reach its listener (Deno: one to read it, one to call). */
const SIGNAL_TURNS = 3;

/**
 * Lets a SIGINT/SIGTERM that arrived while a body computed synchronously
 * (JavaScript cannot interrupt it) be handled now, before its result is
 * recorded: the signal wins over the result. A few `setImmediate` turns of
 * the event loop (microseconds; a timer would cost a millisecond each) let
 * the runtime read the signal and call its listener — Bun needs one, Deno
 * two. Nothing to wait for when no job is tracked.
 *
 * @returns resolved once pending signals were delivered
 */
export async function deliverPendingSignals(): Promise<void> {
  for (let i = 0; i < SIGNAL_TURNS && installed; i++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

let holders = 0;

/**
 * While held, a signal aborts the running jobs (as always) but does not
 * exit the process: the holder has its own handler, which ends its work
 * (the aborted jobs' bodies see their signal) and exits itself.
 *
 * @returns the release function (call it once)
 */
export function holdInterruptExit(): () => void {
  holders++;
  let held = true;
  return () => {
    if (held) holders--;
    held = false;
  };
}

const onInt = () => onSignal("SIGINT");
const onTerm = () => onSignal("SIGTERM");
const onHup = () => onSignal("SIGHUP");

/**
 * Registers a running job; the returned function unregisters it.
 *
 * @param key the job path
 * @param abort synchronous cleanup run on SIGINT/SIGTERM/SIGHUP
 * @returns the unregister function
 */
export function trackRunning(key: string, abort: AbortFn): () => void {
  running.set(key, abort);
  if (!installed) {
    installed = true;
    process.on("SIGINT", onInt);
    process.on("SIGTERM", onTerm);
    process.on("SIGHUP", onHup);
  }
  return () => {
    running.delete(key);
    if (running.size === 0 && installed) {
      installed = false;
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      process.off("SIGHUP", onHup);
    }
  };
}
