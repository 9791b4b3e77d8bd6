/**
 * An ask's `-o` save under signals (R141-1). What a late second signal
 * saves before it exits ({@link armLastSave}) is the most complete turn
 * known: the question while the ask runs, then what the save in flight
 * appends (the chat so far, or the complete answer) — the very bytes it is
 * writing once they are made, under the chat's lock it holds, so a late
 * signal never writes less over a save with the answer. A first signal
 * while the save of a complete answer runs is told on stderr and the save
 * finishes (atomic: temp + rename); the ask then exits with the signal's
 * code (130/143/129), as any interrupted ask does. An exit while the write
 * waits leaves no temp file (`util/atomic_write.ts`).
 *
 * @module
 */
import type { Message } from "../chat/types.ts";
import { type Io, paint } from "./io.ts";
import { appendToChatSync, rewriteChatSync } from "./chat_output.ts";
import { armLastSave, interruptExit } from "./ask_interrupt.ts";

/** A turn's last-resort save, armed: its `prepared` hook, and the disarm. */
export interface ArmedTurnSave {
  /** Told the bytes the save in flight writes (`appendToChat`'s `prepared`). */
  prepared: (file: string, bytes: Uint8Array) => void;
  /** Disarms it (the save is done, or failed). */
  disarm: () => void;
}

/**
 * Arms what a late second signal saves of this turn: `messages` appended to
 * the chat as it is, or — once the save in flight has made them — its
 * bytes, written again. The signal's stderr line then says what was saved.
 *
 * @param io the run's I/O (its env: `SCOUT_HOME`, for the lock)
 * @param outPath the `-o` chat, resolved
 * @param shown its name as given
 * @param messages the turn as the save in flight appends it
 * @param what what they are ("the question", "the chat with its answer"…)
 * @returns the `prepared` hook and the disarm
 */
export function armTurnSave(
  io: Io,
  outPath: string,
  shown: string,
  messages: readonly Message[],
  what: string,
): ArmedTurnSave {
  let made: { file: string; bytes: Uint8Array } | undefined;
  const disarm = armLastSave(() => {
    const saved = made === undefined
      ? appendToChatSync(outPath, messages, io.env)
      : rewriteChatSync(made.file, made.bytes, io.env);
    return saved ? `${what} was saved to "${shown}"` : `the chat was not saved to "${shown}"`;
  });
  return { prepared: (file, bytes) => made = { file, bytes }, disarm };
}

/**
 * Tells on stderr, at the signal, that the save of a complete answer goes
 * on before the exit (once: the signal's copies in the grace window fire
 * no second abort).
 *
 * @param io where the line goes
 * @param signal the ask's abort signal (none: nothing to tell)
 * @param shown the chat's name as given
 * @param onTold called when the line is written
 * @returns stops listening (the save is over)
 */
export function tellSavingOnSignal(
  io: Io,
  signal: AbortSignal | undefined,
  shown: string,
  onTold: () => void,
): () => void {
  if (signal === undefined || signal.aborted) return () => {};
  const tell = () => {
    onTold();
    const { what } = interruptExit(signal);
    try {
      io.stderr.write(
        `${paint(io, "stderr", "red", "scout-ai:")} ${what}: the answer is complete; ` +
          `saving the chat to "${shown}" before exiting\n`,
      );
    } catch { /* a terminal gone (SIGHUP): the save goes on */ }
  };
  signal.addEventListener("abort", tell, { once: true });
  return () => signal.removeEventListener("abort", tell);
}

/**
 * How an ask whose answer was complete (saved and printed) ends: 0, or —
 * the signal having come meanwhile — the signal's code, its word said on
 * stderr unless {@link tellSavingOnSignal} said it.
 *
 * @param io where the word goes
 * @param signal the ask's abort signal
 * @param told whether the signal was told already
 * @returns the exit code
 */
export function endAnswered(io: Io, signal: AbortSignal | undefined, told: boolean): number {
  if (signal?.aborted !== true) return 0;
  const { code, what } = interruptExit(signal);
  if (!told) {
    io.stderr.write(
      `${paint(io, "stderr", "red", "scout-ai:")} ${what} (the answer was complete)\n`,
    );
  }
  return code;
}
