/**
 * SIGINT/SIGTERM/SIGHUP while jobs run (`workflow.md` §7.4 #7; SIGHUP — a
 * closed terminal, a dropped ssh session — as Ruby's SignalException), for a
 * process that opted in with {@link handleInterrupts} (the CLI does, for every
 * command): every job of this process that is between setup and done is marked
 * `aborted` (synchronous atomic info write), its tmp result removed and its
 * lock released; then, their runs settled (R109-2, below), the process exits
 * with 128 + signal number — unless a caller above holds the exit
 * ({@link holdInterruptExit}: `llm ask`/`agent ask`, which save the chat so
 * far and exit themselves).
 *
 * [TS-FIX] A library (`mod.ts`) never takes the host's signals nor exits on
 * its own (R105-1): without {@link handleInterrupts} no signal listener is
 * installed, a signal reaches the host's own handlers (or the default
 * disposition), and when the host exits (`process.exit`, or its loop drains)
 * while jobs run, an `exit` hook records them `aborted` ("interrupted by the
 * process's exit") and releases their locks — no job left `start`ed with a
 * stale lock. The hook is installed with the first tracked job, in the CLI too.
 *
 * [TS-FIX] A signal caught while jobs run is never lost. The runtime reads a
 * signal only when its event loop polls for I/O (Deno: after a dozen
 * `setImmediate` turns, or a timer), so one that came while a body computed
 * synchronously may reach the listener after the job was recorded done. The
 * listeners therefore stay installed from the first tracked job (or from
 * {@link handleInterrupts}, when jobs run already) for the process's life
 * (they keep no event loop alive): a signal that finds no job running
 * ("late") does what the default disposition would — exit 128 + n —
 * unless another listener on `process` takes that signal (an ask's, `llm
 * process`'s, `workflow mcp --http`'s), and a process about to exit by itself
 * waits one timer turn first (`beforeExit`, once) so that a caught signal is
 * delivered, not dropped by the exit.
 *
 * [TS-FIX] (R107-3) The listeners are installed too before the process makes
 * its temporary directory (`util/process_temp_dir.ts`: a read-only knowledge
 * base's index) or a temp file removed at exit (an index build's, R112-4),
 * jobs or not: a signal then exits 128 + n through the `exit` hooks, which
 * remove them — the default disposition ran none and left them. Other
 * commands' signals are untouched (the default disposition, as before).
 *
 * [TS-FIX] (R109-2) The exit waits, {@link DRAIN_MS} at most, until the
 * aborted jobs' runs have settled: their bodies, told by their signals, end
 * their work and log what they did (a chat task its agent's partial chat and
 * society, as an interrupted `agent ask` does), and the exit follows at once
 * (the runs' errors reach no one). A second signal in {@link SIGNAL_GRACE_MS}
 * is the first one's copy and ignored; a later one exits at once.
 *
 * [TS-FIX] (R107-2) A signal the process started with ignored (`nohup`: SIGHUP;
 * a background job of a non-interactive shell: SIGINT) gets no listener — a
 * listener would replace the ignore — and stays ignored
 * (`util/ignored_signals.ts`), as in Ruby.
 *
 * @module
 */

import { keepIgnored, listenableSignals, startupIgnoredSignals } from "../util/ignored_signals.ts";
import { onProcessTempDir } from "../util/process_temp_dir.ts";

type AbortFn = (signal: string) => void;

const running = new Map<string, AbortFn>();
let installed = false;
/** Whether this process opted in to the CLI's signal handling ({@link handleInterrupts}). */
let handling = false;
let exitHooked = false;

const EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

/**
 * Told which jobs a signal recorded aborted, before the process exits (the
 * CLI prints it); `exiting`: whether the process exits next (false while a
 * holder, {@link holdInterruptExit}, ends its work and exits itself).
 */
export type InterruptReport = (signal: string, aborted: string[], exiting: boolean) => void;

const reporters = new Set<InterruptReport>();

/** Signals a listener was removed from in this very task: a `once` one being called now. */
const consumed = new Set<string>();

/**
 * Whether a listener other than ours takes `signal`: one still registered,
 * or a `once` one this signal is calling. Bun calls ours first (prepended),
 * the `once` one still counted; Deno calls listeners in the order they were
 * added, a `once` one removed before it is called — seen by its
 * `removeListener` event in the same task.
 */
function othersListen(signal: string): boolean {
  return process.listenerCount(signal) > 1 || consumed.has(signal);
}

function onRemoveListener(event: string | symbol): void {
  if (typeof event !== "string" || !(event in EXIT) || consumed.has(event)) return;
  consumed.add(event);
  queueMicrotask(() => consumed.delete(event));
}

/**
 * A signal's listener: the running jobs aborted (see {@link onSignal}); a
 * late one — no job running — exits as the default disposition would
 * (128 + n), held or not, unless another listener takes it (a holder's own,
 * say; `workflow mcp --http`, whose `once` listeners are gone after the
 * first signal, is killed by a second one as before).
 */
function onProcessSignal(signal: string): void {
  if (draining !== null) return signalAgain();
  if (running.size === 0 && othersListen(signal)) return;
  onSignal(signal, running.size === 0);
}

function onSignal(signal: string, late = false): void {
  if (draining !== null) return signalAgain();
  const aborted = [...running.keys()];
  for (const abort of [...running.values()].reverse()) {
    try {
      abort(signal);
    } catch { /* keep aborting the others: the process is going down */ }
  }
  running.clear();
  const exiting = holders === 0 || late;
  // the last registered first: a command's own report (`workflow task --json`'s document)
  // before the CLI's, which prints its document only when the command printed none (R137-6)
  for (const report of [...reporters].reverse()) {
    try {
      report(signal, aborted, exiting);
    } catch { /* a report must not keep the process from exiting */ }
  }
  if (exiting) drainThenExit(aborted, EXIT[signal] ?? 1);
}

/**
 * How long an interrupted process waits for its aborted jobs' runs to settle
 * (R109-2): a body that saw its signal logs in milliseconds; one deaf to it,
 * or a hung write, costs this. Below `--deploy local`'s grace period (2 s),
 * after which a worker is killed.
 */
export const DRAIN_MS = 1500;

/**
 * How long after the first signal a second one is ignored (R91-1). One
 * signal often arrives twice: a terminal's Ctrl-C reaches every process of
 * the foreground group, and `deno task` (or a shell wrapper) passes its own
 * copy on to the child; SLURM's slurmstepd signals every process of the
 * step. Exiting on that copy lost what the first one was saving (an ask's
 * `-o` chat, an aborted job's logs). A save takes milliseconds; 500 ms
 * covers a busy node, and a user pressing Ctrl-C again later is still heard.
 */
export const SIGNAL_GRACE_MS = 500;

/** The aborted jobs whose runs have not settled yet, while the process waits to exit. */
let draining: Set<string> | null = null;
let drainStart = 0;
let drainExit = 1;

/**
 * Exits with `code` once every job in `aborted` has settled (its runner
 * untracked it), or after {@link DRAIN_MS}: now, when there is none.
 */
function drainThenExit(aborted: string[], code: number): void {
  if (aborted.length === 0) process.exit(code);
  draining = new Set(aborted);
  drainStart = Date.now();
  drainExit = code;
  setTimeout(() => process.exit(code), DRAIN_MS); // keeps the loop alive: a stuck body too
}

/** A job's run settled: the exit follows the last of the aborted ones. */
function settled(key: string): void {
  if (draining === null || !draining.delete(key)) return;
  if (draining.size === 0) process.exit(drainExit);
}

/** A signal while the process waits to exit: the first one's copy is ignored, a later one exits. */
function signalAgain(): void {
  if (Date.now() - drainStart < SIGNAL_GRACE_MS) return;
  process.exit(drainExit);
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
 * once they are recorded and before the process exits; the reports run the
 * last registered first (the innermost, as `finally` blocks unwind).
 *
 * @param report gets the signal and the aborted jobs' paths
 * @returns the unregister function
 */
export function reportInterrupts(report: InterruptReport): () => void {
  reporters.add(report);
  return () => void reporters.delete(report);
}

/** Event-loop turns given to a pending signal before a result is recorded. */
const SIGNAL_TURNS = 3;

/**
 * Lets a SIGINT/SIGTERM that arrived while a body computed synchronously
 * (JavaScript cannot interrupt it) be handled now, before its result is
 * recorded, so that the signal wins over the result: a few `setImmediate`
 * turns (microseconds; a timer would cost a millisecond each) — enough under
 * Bun, often not under Deno, which reads signals only when it polls for I/O.
 * Best effort: a signal it misses is still handled, once the job is recorded
 * done (see the module doc). Nothing to wait for when no job is tracked.
 *
 * @returns resolved once the turns passed
 */
export async function deliverPendingSignals(): Promise<void> {
  for (let i = 0; i < SIGNAL_TURNS && running.size > 0; i++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

let holders = 0;

/**
 * While held, a signal aborts the running jobs (as always) but does not
 * exit the process: the holder has its own handler, which ends its work
 * (the aborted jobs' bodies see their signal) and exits itself. A signal
 * that finds no job running is left to that handler, or exits when there is
 * none (see the module doc).
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

const onInt = () => onProcessSignal("SIGINT");
const onTerm = () => onProcessSignal("SIGTERM");
const onHup = () => onProcessSignal("SIGHUP");

let flushed = false;

/**
 * Before a process that ran jobs exits by itself: one timer turn, once, so
 * that the runtime polls for I/O and a signal it caught reaches its listener
 * (Deno would exit without reading it).
 */
function onBeforeExit(): void {
  if (flushed) return;
  flushed = true;
  setTimeout(() => {}, 0);
}

/** Installs the signal listeners, once, for the process's life (see the module doc). */
function installListeners(): void {
  if (installed) return;
  installed = true;
  // first where the runtime allows it (Bun), to see the `once` listeners this signal calls
  const listeners = { SIGINT: onInt, SIGTERM: onTerm, SIGHUP: onHup };
  for (const signal of listenableSignals(["SIGINT", "SIGTERM", "SIGHUP"] as const)) {
    process.prependListener(signal, listeners[signal]);
  }
  keepIgnored();
  process.on("removeListener", onRemoveListener);
  process.on("beforeExit", onBeforeExit);
}

/** What the `exit` hook records a job still running at the process's exit aborted with. */
export const PROCESS_EXIT = "the process's exit";

/**
 * At the process's exit (the host's `process.exit`, a drained loop): the jobs
 * still running are recorded `aborted` and their locks released, as a signal
 * would, without the reports; nothing else (the process is exiting already).
 */
function onExit(): void {
  for (const abort of [...running.values()].reverse()) {
    try {
      abort(PROCESS_EXIT);
    } catch { /* record the others */ }
  }
  running.clear();
}

/**
 * Opts this process in to the CLI's handling of SIGINT/SIGTERM/SIGHUP (see
 * the module doc): the running jobs recorded `aborted`, then exit 128 + n
 * (unless held). The CLI calls it once, for every command; a library host
 * that wants the same calls it too — else its own handlers get the signals
 * and the library never exits the process. Idempotent; the listeners are
 * installed with the first job tracked (now, if jobs run already), or before
 * the process makes its temporary directory; never for a signal the process
 * started with ignored (read now, before any listener).
 *
 * @example
 * ```ts ignore
 * import { handleInterrupts } from "@scout-ai/scout-ai";
 * handleInterrupts(); // Ctrl-C: running jobs recorded aborted, exit 130
 * ```
 */
export function handleInterrupts(): void {
  startupIgnoredSignals(); // before any listener is installed: one replaces an inherited ignore
  keepIgnored(); // a respawned child's (its parent's ignores, reset by Bun's spawn)
  handling = true;
  onProcessTempDir(installListeners);
  if (running.size > 0) installListeners();
}

/**
 * Registers a running job; the returned function unregisters it. With
 * {@link handleInterrupts}, the signal listeners are installed and stay
 * after the last job (see the module doc); in any case an `exit` hook
 * records a job still running at the process's exit `aborted`.
 *
 * @param key the job path
 * @param abort synchronous cleanup run on SIGINT/SIGTERM/SIGHUP or at exit
 * @returns the unregister function
 */
export function trackRunning(key: string, abort: AbortFn): () => void {
  running.set(key, abort);
  if (!exitHooked) {
    exitHooked = true;
    process.on("exit", onExit);
  }
  if (handling) installListeners();
  return () => {
    running.delete(key);
    settled(key);
  };
}
