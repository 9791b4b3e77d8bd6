/**
 * Which tool calls one reply made together (R113-1, [TS-FIX]; Ruby sends one
 * assistant message per call). Anthropic's parallel tool use wants a reply's
 * calls back as one assistant turn and their results as one user turn; the
 * chat keeps them as call, output, call, output (`inference.md` §5.5), which
 * does not say where one reply's calls end — grouping the calls of two
 * sequential rounds would misstate what the model did.
 *
 * So a `function_call` message carries its reply as a mark: the tool loop
 * marks the calls of each reply it gets ({@link markReply}), and an ask marks
 * those of the chat it is given by the `meta` record that opens their reply
 * ({@link markChatReplies}; a chat file keeps no other boundary, and the ask
 * takes the metas out before any request is built). The mark is a
 * non-enumerable symbol-keyed property, as the thinking blocks
 * (`thinking.ts`): `print`, JSON and cache keys never see it, a copy drops
 * it. Calls without a mark — a chat without meta records, a message a prompt
 * strategy copied — are sent one per turn, as before. {@link replyOrder} puts
 * the adjacent pairs of one reply in the provider's order.
 *
 * @module
 */
import type { Message } from "../chat/types.ts";

/** The property key (registered: survives bundles and realms). */
export const REPLY: unique symbol = Symbol.for("scout-ai.reply");

/**
 * The reply a call message was marked with, if any.
 *
 * @param m a message
 * @returns the reply's token, or undefined
 */
export function replyOf(m: object): object | undefined {
  return (m as { [REPLY]?: object })[REPLY];
}

/**
 * Marks a message as part of a reply (non-enumerable); a frozen or sealed
 * message is left as is (its calls go one per turn).
 *
 * @param m the message (modified)
 * @param reply one token per reply: the same object for every call it made
 * @returns `m`
 *
 * @example
 * ```ts
 * import { markReply, replyOf } from "./reply_calls.ts";
 * const reply = {};
 * const m = markReply({ role: "function_call", content: "{}" }, reply);
 * replyOf(m) === reply; // true
 * JSON.stringify(m); // '{"role":"function_call","content":"{}"}'
 * ```
 */
export function markReply<T extends object>(m: T, reply: object): T {
  if (Object.isExtensible(m)) {
    Object.defineProperty(m, REPLY, { value: reply, configurable: true, writable: true });
  }
  return m;
}

/** The roles of a reply's own messages (its texts, calls and their outputs). */
const REPLY_ROLES: ReadonlySet<string> = new Set([
  "assistant",
  "function_call",
  "function_call_output",
]);

/**
 * Marks the calls of a chat by the `meta` record that opens their reply
 * (`inference.md` §4.6): the calls after a meta, up to the next meta or the
 * first message a reply does not make (a user message…), are one reply's.
 * Calls before any meta stay unmarked, and a call already marked (by the
 * loop that got it) keeps its mark.
 *
 * @param chat the chat, metas included (its call messages are modified)
 *
 * @example
 * ```ts
 * import { markChatReplies, replyOf } from "./reply_calls.ts";
 * const call = (id: string) => ({ role: "function_call", content: `{"name":"f","id":"${id}"}` });
 * const output = { role: "function_call_output", content: "ok" };
 * const chat = [{ role: "meta", content: "pt=1" }, call("a"), output, call("b"), output];
 * markChatReplies(chat);
 * replyOf(chat[1]!) === replyOf(chat[3]!); // true
 * ```
 */
export function markChatReplies(chat: readonly Message[]): void {
  let reply: object | null = null;
  for (const m of chat) {
    if (m.role === "meta") reply = {};
    else if (!REPLY_ROLES.has(m.role)) reply = null;
    else if (reply && m.role === "function_call" && !replyOf(m)) markReply(m, reply);
  }
}

const isPair = (messages: readonly Message[], i: number) =>
  messages[i]?.role === "function_call" && messages[i + 1]?.role === "function_call_output";

/** How many adjacent call/output pairs of one marked reply start at `i`. */
function pairRun(messages: readonly Message[], i: number): number {
  const reply = isPair(messages, i) ? replyOf(messages[i]!) : undefined;
  if (!reply) return 0;
  let n = 1;
  while (isPair(messages, i + 2 * n) && replyOf(messages[i + 2 * n]!) === reply) n++;
  return n;
}

/**
 * The order to send messages in: each run of two or more adjacent
 * call/output pairs of one reply as its calls, then their outputs (both in
 * call order); every other message in its place. Nothing moves past a
 * message that is not one of the run's pairs.
 *
 * @param messages the messages to send (sendable ones)
 * @returns their indices, in sending order
 *
 * @example
 * ```ts
 * import { markReply, replyOrder } from "./reply_calls.ts";
 * const reply = {};
 * const call = () => markReply({ role: "function_call", content: "{}" }, reply);
 * const output = () => ({ role: "function_call_output", content: "ok" });
 * replyOrder([{ role: "user", content: "?" }, call(), output(), call(), output()]);
 * // [0, 1, 3, 2, 4]
 * ```
 */
export function replyOrder(messages: readonly Message[]): number[] {
  const order: number[] = [];
  let i = 0;
  while (i < messages.length) {
    const n = pairRun(messages, i);
    if (n < 2) {
      order.push(i++);
      continue;
    }
    for (let k = 0; k < n; k++) order.push(i + 2 * k);
    for (let k = 0; k < n; k++) order.push(i + 2 * k + 1);
    i += 2 * n;
  }
  return order;
}
