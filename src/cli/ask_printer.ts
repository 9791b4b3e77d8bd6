/**
 * How `llm ask` shows an answer while it is being asked, from the ask's
 * progress events: on a terminal (`live`) the text as it arrives, and a retry
 * after partial text marked; anywhere else each attempt's text is held until
 * its response is complete, so what is printed is exactly what is saved.
 * Retries are warned about and tool calls listed on stderr. Structured output (`llm ask --schema`)
 * prints no text here (its value is printed once parsed).
 *
 * @module
 */
import type { AskEvent } from "../llm/loop.ts";
import { REPLAYED, retryNotice } from "../llm/retry.ts";
import type { Io } from "./io.ts";
import { paint, warn } from "./io.ts";

/** The printer's state: plain data, changed by the functions below. */
export interface AnswerPrinter {
  /** Where to print. */
  io: Io;
  /** `llm ask` (text printed) rather than structured output (`--schema`, `--format json`). */
  ask: boolean;
  /** Text shown as it arrives (a terminal) rather than held per response. */
  live: boolean;
  /** The last character written (`\n` before any). */
  lastChar: string;
  /** Whether any text was written. */
  wrote: boolean;
  /** Whether the current round has produced text. */
  roundText: boolean;
  /** Text held until its response is complete. */
  held: string;
}

/**
 * A printer with nothing written yet.
 *
 * @param io where to print
 * @param opts `ask`: print the text (`llm ask`); `live`: as it arrives
 * @returns the printer
 */
export function answerPrinter(io: Io, opts: { ask: boolean; live: boolean }): AnswerPrinter {
  return { io, ...opts, lastChar: "\n", wrote: false, roundText: false, held: "" };
}

/**
 * Writes answer text to stdout (nothing for `""`).
 *
 * @param p the printer
 * @param t the text
 */
export function printText(p: AnswerPrinter, t: string): void {
  if (t === "") return;
  p.wrote = true;
  p.io.stdout.write(t);
  p.lastChar = t.at(-1)!;
}

/**
 * Ends the line of text written so far (`llm ask` only).
 *
 * @param p the printer
 */
export function endAnswerLine(p: AnswerPrinter): void {
  if (p.lastChar !== "\n" && p.ask) printText(p, "\n");
}

/**
 * Takes one of the ask's progress events.
 *
 * @param p the printer
 * @param e the event
 */
export function printEvent(p: AnswerPrinter, e: AskEvent): void {
  switch (e.type) {
    case "text":
      p.roundText = true;
      if (!p.ask) break;
      if (p.live) printText(p, e.delta);
      else p.held += e.delta;
      break;
    case "response":
      printText(p, p.held);
      p.held = "";
      if (p.roundText) endAnswerLine(p);
      p.roundText = false;
      break;
    case "retry":
      printRetry(p, e);
      break;
    case "tool":
      if (p.io.stderrIsTTY) {
        p.io.stderr.write(paint(p.io, "stderr", "dim", `· ${e.name} (${e.id})`) + "\n");
      }
      break;
  }
}

/** A retry: warned about; on a terminal, partial text is ended and the restart marked. */
function printRetry(p: AnswerPrinter, e: Extract<AskEvent, { type: "retry" }>): void {
  const restart = p.roundText && p.live && p.ask;
  if (restart) endAnswerLine(p);
  p.roundText = false;
  p.held = "";
  // a cached round tells the retries it met when recorded: nothing waits now
  warn(p.io, retryNotice(e) + (e.replayed ? REPLAYED : ""));
  if (restart) {
    p.io.stderr.write(
      paint(p.io, "stderr", "dim", `↻ the answer restarts (attempt ${e.attempt + 1}):`) + "\n",
    );
  }
}
