/**
 * An ask from the command line under SIGINT/SIGTERM: the first signal aborts
 * the ask (the chat so far is saved), a second exits at once; and the exit
 * code and word an interrupted ask ends with.
 *
 * @module
 */
import { holdInterruptExit } from "../workflow/interrupt.ts";
import type { CliContext } from "./context.ts";

/**
 * Runs `work` with an abort signal that SIGINT or SIGTERM fires (real
 * processes only; SLURM's time limit and `scancel` send SIGTERM), and
 * stores its exit code in the context. Jobs running meanwhile are marked
 * aborted but do not end the process: `work` saves the chat so far.
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
  // the first signal ends the ask (the chat so far is saved); a second one exits at once
  const on = (signal: "SIGINT" | "SIGTERM") => () => {
    if (ac.signal.aborted) process.exit(INTERRUPT_EXIT[signal]);
    ac.abort(new DOMException(INTERRUPT_REASON[signal], "AbortError"));
  };
  const handlers = { SIGINT: on("SIGINT"), SIGTERM: on("SIGTERM") };
  const release = real ? holdInterruptExit() : () => {};
  if (real) { for (const [s, h] of Object.entries(handlers)) process.on(s, h); }
  try {
    ctx.exitCode = await work(ac.signal);
  } finally {
    if (real) { for (const [s, h] of Object.entries(handlers)) process.removeListener(s, h); }
    release();
  }
}

/** Exit codes of an interrupted ask (128 + signal number). */
const INTERRUPT_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;
/** The abort reason's message per signal ({@link interruptExit} reads it back). */
const INTERRUPT_REASON = { SIGINT: "Interrupted", SIGTERM: "Terminated" } as const;

/**
 * How an ask ended by `signal` exits: 130 `Interrupted` (SIGINT) or 143
 * `Terminated` (SIGTERM).
 *
 * @param signal the ask's abort signal
 * @returns the exit code and the word for it
 */
export function interruptExit(signal: AbortSignal | undefined): { code: number; what: string } {
  const reason = (signal?.reason as Error | undefined)?.message;
  return reason === INTERRUPT_REASON.SIGTERM
    ? { code: INTERRUPT_EXIT.SIGTERM, what: reason }
    : { code: INTERRUPT_EXIT.SIGINT, what: INTERRUPT_REASON.SIGINT };
}

/**
 * The word an interrupt is reported with: `Terminated` for SIGTERM,
 * `Interrupted` otherwise (as an interrupted ask says).
 *
 * @param signal the signal's name
 * @returns the word
 */
export function interruptWord(signal: string): string {
  return signal === "SIGTERM" ? INTERRUPT_REASON.SIGTERM : INTERRUPT_REASON.SIGINT;
}
