/**
 * What an attempt of an agent's `ask` that `processException` retried leaves
 * behind (`agents.md` §1.1, §1.3): the failed attempt was paid for, so its
 * record — meta records (its tokens, an `incomplete=true` answer's, a failed
 * job's `job=` marker) and the tool calls it ran, each with its output (the
 * receipts of the specialists it asked) — goes into the messages the ask
 * returns, before the retry's, as a failed ask's messages do wherever else
 * they are kept (`provenance.md` §1.1: failed steps keep partial logs). The
 * retry itself sends the provider what the first attempt did: none of this.
 *
 * @module
 */
import { parseMeta } from "../chat/meta.ts";
import { toolCalls } from "../chat/tool_calls.ts";
import type { Message } from "../chat/types.ts";
import { incompleteText } from "../llm/loop.ts";
import type { AgentReply } from "./types.ts";

const PAIRED_ROLES = new Set(["function_call", "function_call_output"]);

/**
 * The record a failed attempt leaves in the conversation: its messages
 * without a partial answer (a cut reply's text, its `incomplete=true` meta
 * kept: the retry's answer replaces it) and without a `function_call` or
 * `function_call_output` that has no partner, so that the chat stays valid
 * for the provider on every later turn.
 *
 * @param messages what the failed attempt produced (its error's `messages`)
 * @returns the messages to keep
 *
 * @example
 * ```ts
 * import { failedAttemptRecord } from "./failed_attempt.ts";
 * failedAttemptRecord([
 *   { role: "meta", content: "pt=3 incomplete=true" },
 *   { role: "assistant", content: "Half an ans" },
 * ]); // [{ role: "meta", content: "pt=3 incomplete=true" }]
 * ```
 */
export function failedAttemptRecord(messages: readonly Message[]): Message[] {
  const kept = incompleteText(messages) === null ? messages : messages.slice(0, -1);
  const paired = new Set<number>();
  for (const call of toolCalls(kept)) {
    if (call.role !== "function_call" || call.outputIndex === null) continue;
    paired.add(call.callIndex).add(call.outputIndex);
  }
  return kept.filter((m, i) => !PAIRED_ROLES.has(String(m.role)) || paired.has(i));
}

/**
 * `earlier` without what `later` repeats: meta records of the same inference
 * (a round the retry replayed from the inference cache) or of the same job
 * (a task-route job the retry reran in place), and tool calls with
 * the same call id, each with its output. Two calls of one id in a chat make
 * it invalid for providers that check (Anthropic: `tool_use` ids must be
 * unique), and a replayed round is the same inference, paid for once.
 *
 * @param earlier a failed attempt's record
 * @param later what came after it
 * @returns the record without the repeats
 *
 * @example
 * ```ts
 * import { withoutRepeats } from "./failed_attempt.ts";
 * const meta = { role: "meta", content: "pt=3 inference_id=i1" };
 * withoutRepeats([meta], [meta]); // []
 * ```
 */
export function withoutRepeats(earlier: readonly Message[], later: readonly Message[]): Message[] {
  const ids = new Set(toolCalls(later).map((c) => c.callId).filter((id) => id !== null));
  const seen = new Set(later.flatMap(metaEvidence));
  const dropped = new Set<number>();
  for (const call of toolCalls(earlier)) {
    if (call.callId === null || !ids.has(call.callId)) continue;
    dropped.add(call.callIndex);
    if (call.outputIndex !== null) dropped.add(call.outputIndex);
  }
  return earlier.filter((m, i) => !dropped.has(i) && !metaEvidence(m).some((id) => seen.has(id)));
}

/**
 * What a meta record is evidence of: its inference (`i <inference_id>`), or
 * the job it names (`j <job>`); nothing for any other message.
 *
 * @param m a message
 * @returns zero or one identity
 */
export function metaEvidence(m: Message): string[] {
  if (m.role !== "meta" || typeof m.content !== "string") return [];
  const meta = parseMeta(m.content);
  if (meta.inference_id !== undefined && meta.inference_id !== "") {
    return [`i ${meta.inference_id}`];
  }
  return meta.job !== undefined && meta.job !== "" ? [`j ${meta.job}`] : [];
}

/**
 * A reply with the records of the failed attempts before it: their messages
 * first (without what the reply repeats, {@link withoutRepeats}), then the
 * reply's (an answer given as text only becomes its `assistant` message, as
 * `chat` would append it).
 *
 * @param failed the records of the retried attempts, in order
 * @param reply the retry's reply
 * @returns the reply whose `messages` hold both
 *
 * @example
 * ```ts
 * import { afterFailedAttempts } from "./failed_attempt.ts";
 * const r = afterFailedAttempts([{ role: "meta", content: "pt=5" }], { text: "ok", messages: [] });
 * r.messages.map((m) => m.role); // ["meta", "assistant"]
 * ```
 */
export function afterFailedAttempts(failed: readonly Message[], reply: AgentReply): AgentReply {
  if (failed.length === 0) return reply;
  const own = reply.messages.length === 0 && reply.text !== ""
    ? [{ role: "assistant", content: reply.text }]
    : reply.messages;
  return { ...reply, messages: [...withoutRepeats(failed, own), ...own] };
}
