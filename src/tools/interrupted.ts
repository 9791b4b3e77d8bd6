/**
 * A batch of tool calls cut short by its abort signal (Ctrl-C, SIGTERM): a
 * call still running is abandoned at once — a task that does not watch the
 * signal would hold the ask, and the chat, until it ended (R81-5) — and
 * answered with an output saying it was interrupted; the batch then throws
 * an `AbortError` carrying its call/output pairs, so the chat so far keeps
 * them.
 *
 * @module
 */
import type { Message } from "../chat/types.ts";
import { type ToolOutput, toolOutput } from "./types.ts";

/** What {@link AbortGate.until} resolves with when the signal came first. */
export const ABANDONED: unique symbol = Symbol("abandoned");

/** Races a batch's calls against its abort signal: {@link abortGate}. */
export interface AbortGate {
  /** What `work` resolves with, or {@link ABANDONED} when the signal aborts first. */
  until<T>(work: Promise<T>): Promise<T | typeof ABANDONED>;
  /** Removes the gate's listener from the signal (the batch is over). */
  close(): void;
}

/**
 * One listener on `signal` for a whole batch of calls: each call waits for
 * its work or the abort, whichever comes first; an abandoned work runs on,
 * its failure ignored. (A listener per call made a reply of N concurrent
 * calls cost O(N²): the signal's listener list is scanned on each add and
 * remove, R95-4.)
 *
 * @param signal the ask's abort signal
 * @returns the gate
 */
export function abortGate(signal: AbortSignal | undefined): AbortGate {
  if (!signal) return { until: (work) => work, close: () => {} };
  let onAbort = () => {};
  const aborted = new Promise<typeof ABANDONED>((resolve) => {
    onAbort = () => resolve(ABANDONED);
    if (signal.aborted) resolve(ABANDONED);
  });
  signal.addEventListener("abort", onAbort, { once: true });
  return {
    until: <T>(work: Promise<T>) => {
      work.catch(() => {}); // abandoned: nobody awaits it any more
      return signal.aborted ? Promise.resolve(ABANDONED) : Promise.race([work, aborted]);
    },
    close: () => signal.removeEventListener("abort", onAbort),
  };
}

/** Why the signal aborted, in words (`Terminated`, `Interrupted`, or the reason's message). */
function reasonText(signal: AbortSignal): string {
  const reason = signal.reason as { message?: unknown } | undefined;
  return typeof reason?.message === "string" && reason.message !== "" ? reason.message : "aborted";
}

/**
 * The output of a call the abort cut short or kept from starting: content
 * `{"exception": "Tool call interrupted before it finished: <why>",
 * "exception_line": null}`, `error: "error"`.
 *
 * @param signal the aborted signal
 * @returns the output
 */
export function interruptedOutput(signal: AbortSignal): ToolOutput & { content: string } {
  const exception = `Tool call interrupted before it finished: ${reasonText(signal)}`;
  return toolOutput({
    content: JSON.stringify({ exception, exception_line: null }),
    error: "error",
  }) as ToolOutput & { content: string };
}

const batches = new WeakMap<object, Message[]>();

/**
 * The error an interrupted batch throws: an `AbortError` (its message the
 * signal's reason's) whose `messages` are the batch's pairs.
 *
 * @param signal the aborted signal
 * @param messages the call/output pairs, interrupted ones included
 * @returns the error
 */
export function interruptError(signal: AbortSignal, messages: Message[]): Error {
  const e = new Error(reasonText(signal), { cause: signal.reason });
  e.name = "AbortError";
  (e as { messages?: Message[] }).messages = messages;
  batches.set(e, messages);
  return e;
}

/**
 * The messages of an interrupted batch (see {@link interruptError}), set
 * again by each layer it passes that adds its own (the texts before the
 * calls); null for any other error.
 *
 * @param e what was thrown
 * @param messages when given, the messages to carry from now on
 * @returns the messages it carries, or null
 */
export function interruptedBatch(e: unknown, messages?: Message[]): Message[] | null {
  if (typeof e !== "object" || e === null || !batches.has(e)) return null;
  if (messages) {
    batches.set(e, messages);
    (e as { messages?: Message[] }).messages = messages;
  }
  return batches.get(e)!;
}
