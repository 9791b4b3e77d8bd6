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

/** What {@link untilAborted} resolves with when the signal came first. */
export const ABANDONED: unique symbol = Symbol("abandoned");

/**
 * Waits for `work`, or for `signal` to abort, whichever comes first; an
 * abandoned `work` runs on, its failure ignored.
 *
 * @param work the call's promise
 * @param signal the ask's abort signal
 * @returns what `work` resolved with, or {@link ABANDONED}
 */
export function untilAborted<T>(
  work: Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T | typeof ABANDONED> {
  if (!signal) return work;
  work.catch(() => {}); // abandoned: nobody awaits it any more
  if (signal.aborted) return Promise.resolve(ABANDONED);
  return new Promise<T | typeof ABANDONED>((resolve, reject) => {
    const onAbort = () => resolve(ABANDONED);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
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
