/**
 * An ask from the command line under SIGINT/SIGTERM/SIGHUP: the first signal
 * aborts the ask (the chat so far is saved; one during the save of a
 * complete answer lets it finish, `ask_save.ts`); a second one in the next
 * {@link SIGNAL_GRACE_MS} is ignored, a later one saves what it can at once
 * ({@link armLastSave}), says so and exits; and the exit code and word an
 * interrupted ask ends with.
 *
 * @module
 */
import { runInterruptHooks } from "../util/interrupt_hooks.ts";
import { holdInterruptExit, SIGNAL_GRACE_MS } from "../workflow/interrupt.ts";
import type { CliContext } from "./context.ts";
import { type Io, paint } from "./io.ts";
import { keepIgnored, listenableSignals } from "../util/ignored_signals.ts";

/** The signals an ask ends on (a terminal's Ctrl-C, SLURM's time limit, a dropped session). */
type AskSignal = "SIGINT" | "SIGTERM" | "SIGHUP";

/** How long after the first signal a second one is ignored (R91-1; see its definition). */
export { SIGNAL_GRACE_MS };

/** A last-resort save: synchronous; what it saved, for the exit's stderr line. */
export type LastSave = () => string | void;

let lastSave: LastSave | null = null;

/**
 * Registers what a late second signal saves before the process exits
 * (synchronously: nothing else runs after it) — the most complete turn of an
 * ask whose own save has not finished: the question, then what the save in
 * flight writes (`ask_save.ts`); arming again replaces it. Disarm it once
 * that save is done, so the chat is not appended twice: a save's rename and
 * its disarm run in one stretch of promise continuations, which no signal
 * listener (an event-loop task) can come between.
 *
 * @param save synchronous save; it may throw (the exit goes on)
 * @returns the disarm function
 */
export function armLastSave(save: LastSave): () => void {
  lastSave = save;
  return () => {
    if (lastSave === save) lastSave = null;
  };
}

/**
 * Runs `work` with an abort signal that SIGINT, SIGTERM or SIGHUP fires
 * (real processes only; SLURM's time limit and `scancel` send SIGTERM, a
 * closed terminal or dropped ssh session SIGHUP), and stores its exit code
 * in the context. Jobs running meanwhile are marked aborted but do not end
 * the process: `work` saves the chat so far.
 *
 * @param ctx invocation context
 * @param work the command's run, given the signal
 */
export async function withInterrupt(
  ctx: CliContext,
  work: (signal: AbortSignal) => Promise<number>,
): Promise<void> {
  const ac = new AbortController();
  const real = typeof process !== "undefined" && ctx.io.env === process.env;
  let first: { signal: AskSignal; at: number } | null = null;
  const on = (signal: AskSignal) => () => {
    if (first === null) {
      first = { signal, at: Date.now() };
      ac.abort(new DOMException(INTERRUPT_REASON[signal], "AbortError"));
      runInterruptHooks(); // MCP stdio servers: SIGTERM now, SIGKILL within ~2 s (R91-5)
      return;
    }
    // the first one's copy (see SIGNAL_GRACE_MS): the chat so far is being saved
    if (Date.now() - first.at < SIGNAL_GRACE_MS) return;
    // asked again to stop: save the most of the turn known (the question at least), say what,
    // then exit at once
    let saved: string | void = undefined;
    try {
      saved = lastSave?.();
    } catch { /* the exit goes on: a second signal means now */ }
    const word = INTERRUPT_REASON[first.signal];
    try {
      ctx.io.stderr.write(
        `${paint(ctx.io, "stderr", "red", "scout-ai:")} ${word}${saved ? `: ${saved}` : ""}\n`,
      );
    } catch { /* a terminal gone (SIGHUP): the exit goes on */ }
    ctx.jsonInterrupted?.(first.signal); // `--json`: the one document, as the ask's return prints it
    process.exit(INTERRUPT_EXIT[first.signal]);
  };
  const handlers = { SIGINT: on("SIGINT"), SIGTERM: on("SIGTERM"), SIGHUP: on("SIGHUP") };
  const release = real ? holdInterruptExit() : () => {};
  // not for a signal the process started with ignored (nohup): it stays ignored (R107-2)
  const taken = real ? listenableSignals(Object.keys(handlers) as AskSignal[]) : [];
  for (const s of taken) process.on(s, handlers[s]);
  keepIgnored();
  try {
    ctx.exitCode = await work(ac.signal);
  } finally {
    for (const s of taken) process.removeListener(s, handlers[s]);
    release();
  }
}

/** Exit codes of an interrupted ask (128 + signal number). */
const INTERRUPT_EXIT = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
/** The abort reason's message per signal ({@link interruptExit} reads it back). */
const INTERRUPT_REASON = {
  SIGINT: "Interrupted",
  SIGTERM: "Terminated",
  SIGHUP: "Hangup",
} as const;

/**
 * How an ask ended by `signal` exits: 130 `Interrupted` (SIGINT), 143
 * `Terminated` (SIGTERM) or 129 `Hangup` (SIGHUP).
 *
 * @param signal the ask's abort signal
 * @returns the exit code and the word for it
 */
export function interruptExit(signal: AbortSignal | undefined): { code: number; what: string } {
  const reason = (signal?.reason as Error | undefined)?.message;
  for (const [name, what] of Object.entries(INTERRUPT_REASON)) {
    if (what === reason) return { code: INTERRUPT_EXIT[name as AskSignal], what };
  }
  return { code: INTERRUPT_EXIT.SIGINT, what: INTERRUPT_REASON.SIGINT };
}

/**
 * Ends an ask that failed with `e`: when the signal aborted it (or `e` is an
 * abort, as the task route wraps it), says `scout-ai: <word>` and returns
 * 130/143/129; any other failure is thrown again.
 *
 * @param e what the ask threw
 * @param signal the ask's abort signal
 * @param io where the word goes
 * @returns the exit code
 */
export function endInterrupted(e: unknown, signal: AbortSignal | undefined, io: Io): number {
  if (!signal?.aborted && !(e instanceof Error && e.name === "AbortError")) throw e;
  const { code, what } = interruptExit(signal);
  io.stderr.write(`${paint(io, "stderr", "red", "scout-ai:")} ${what}\n`);
  return code;
}

/**
 * The word an interrupt is reported with: `Terminated` for SIGTERM, `Hangup`
 * for SIGHUP, `Interrupted` otherwise (as an interrupted ask says).
 *
 * @param signal the signal's name
 * @returns the word
 */
export function interruptWord(signal: string): string {
  return signal === "SIGTERM" || signal === "SIGHUP"
    ? INTERRUPT_REASON[signal]
    : INTERRUPT_REASON.SIGINT;
}
