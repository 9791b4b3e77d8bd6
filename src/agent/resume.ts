/**
 * A named specialist conversation continued in a later run (`agent ask -c F
 * -o F`, a chat task continued from its conversation): the specialist agent
 * lived in the earlier process only, but the caller's chat holds every call of
 * that conversation and its answer. The conversation is rebuilt from them —
 * what the first call inherited (read from the caller's chat as it stood
 * then: before the turn that made the call, whose model output was not yet in
 * the caller's chat, §3.4), then each prompt, the receipt of its answer's
 * inference and the answer — so reusing the id continues it, as the `ask`
 * tool tells the model, with the chat totals (`_c`) it had. The specialist's
 * own tool calls of those turns are not in the caller's chat and are not
 * replayed. A hand-off's conversation (`delegate`, §3.5) is rebuilt the same
 * way ({@link resumedHandOff}): its agent lived in the earlier process only.
 *
 * @module
 */
import { argumentsObject, askArguments, type InheritMode } from "../chat/ask_call.ts";
import { type ToolCall, toolCalls } from "../chat/tool_calls.ts";
import type { Message } from "../chat/types.ts";
import type { Agent } from "./types.ts";

/**
 * The messages after the start chat of `agent`'s conversation `conversation`
 * with `caller`, rebuilt from the calls in the caller's chat, or null when the
 * chat holds no call that ran in it.
 *
 * @param caller the calling agent
 * @param agent the specialist's name
 * @param conversation the conversation id
 * @param inherit what a conversation starting at a point of the caller's chat inherits (§3.4)
 * @returns inherited messages, then a user/meta/assistant triple per earlier answered call; or null
 */
export function resumed(
  caller: Agent,
  agent: string,
  conversation: string,
  inherit: (mode: InheritMode, chat: readonly Message[]) => Message[],
): Message[] | null {
  const chat = caller.currentChat ?? [];
  const calls = toolCalls(chat).flatMap((c) => {
    if (c.name !== "ask" || c.outputInfo === null) return [];
    const call = askArguments(argumentsObject(c.arguments));
    if (Array.isArray(call) || call.agent !== agent || call.conversation !== conversation) {
      return [];
    }
    return [{ at: c.callIndex, call, out: c.outputInfo, text: String(c.output ?? "") }];
  });
  const answered = calls.filter((c) => c.out.error === undefined);
  // the conversation began at the first call that ran in it — its output says so, failed or
  // not (a call refused before, e.g. an agent that would not load, began nothing); in a chat
  // written before outputs said so, at the first answered call
  const start = calls.find((c) => c.out.conversation === conversation) ?? answered[0];
  // begun and never answered, it still began there: its first call's turn is what it inherited
  if (start === undefined) return null;
  const turns = answered.flatMap((c): Message[] => [
    { role: "user", content: c.call.prompt },
    ...answerReceipt(c.out.agent_meta),
    { role: "assistant", content: c.text },
  ]);
  return [...inherit(start.call.inherit, chat.slice(0, turnStart(chat, start.at))), ...turns];
}

/** A hand-off conversation as the caller's chat shows it ({@link resumedHandOff}). */
export interface ResumedHandOff {
  /** The live conversation: `default` or `_default-<n>`. */
  conversation: string;
  /** A user/meta/assistant triple per answered call in it. */
  messages: Message[];
}

const RESTARTED = /^_default-(\d+)$/;

/** The conversation a hand-off's output records (none: `default`), or null for another tool's. */
function handOffConversation(c: ToolCall, tool: string): string | null {
  if (c.name !== tool || c.outputInfo === null) return null;
  const recorded = c.outputInfo.conversation;
  return typeof recorded === "string" && RESTARTED.test(recorded) ? recorded : "default";
}

/**
 * The conversation the hand-off tool `tool` of `caller` was in when the
 * caller's chat was saved, rebuilt from its calls: the live agent's chat then
 * held, after its start chat, each answered message, the receipt of its
 * answer's inference and the answer (as {@link resumed} rebuilds an `ask`
 * conversation; no inheritance: a hand-off's agent starts with its start
 * chat only). The conversation is the one the last call that ran recorded
 * (§3.5: `new_conversation` moves it on to `_default-<n>`); a call refused
 * before it ran (an error recording none) is not in any. Failed calls are not
 * replayed.
 *
 * @param caller the calling agent
 * @param tool the hand-off's tool name
 * @returns the conversation and its messages, or null when the chat holds no call that ran
 */
export function resumedHandOff(caller: Agent, tool: string): ResumedHandOff | null {
  const calls = toolCalls(caller.currentChat ?? []).flatMap((c) => {
    const conversation = handOffConversation(c, tool);
    if (conversation === null) return [];
    const ran = c.outputInfo!.error === undefined || conversation !== "default";
    return ran ? [{ c, conversation }] : [];
  });
  const conversation = calls.at(-1)?.conversation;
  if (conversation === undefined) return null;
  // the live conversation: the calls since the last one recorded in another, or since the last
  // that asked for a new one (a chat an older scout-ai continued recorded that one `default`, R136-1)
  const other = calls.findLastIndex((x) => x.conversation !== conversation) + 1;
  const restart = calls.findLastIndex(({ c }) =>
    argumentsObject(c.arguments).new_conversation === true
  );
  const from = Math.max(other, restart);
  const messages = calls.slice(from).filter(({ c }) => c.outputInfo!.error === undefined)
    .flatMap(({ c }): Message[] => [
      { role: "user", content: String(argumentsObject(c.arguments).message) },
      ...answerReceipt(c.outputInfo!.agent_meta),
      { role: "assistant", content: String(c.output ?? "") },
    ]);
  return { conversation, messages };
}

/**
 * The highest n of the `_default-<n>` conversations the hand-off tool `tool`
 * recorded in `chat` (1 when none): a restart in a later process goes on
 * after them, so no two conversations of the caller's chat share a log name.
 *
 * @param chat the caller's chat
 * @param tool the hand-off's tool name
 * @returns the highest n, or 1
 */
export function handOffRestarts(chat: readonly Message[], tool: string): number {
  return toolCalls(chat).reduce((n, c) => {
    const m = RESTARTED.exec(handOffConversation(c, tool) ?? "");
    return m ? Math.max(n, Number(m[1])) : n;
  }, 1);
}

/**
 * The meta record the specialist's chat got with an answer: the last receipt
 * of the call (its final inference's record, whose `_c` are its chat totals;
 * on the task route the `job=` marker), as the in-process conversation holds
 * it before the answer. Receipts before it are its earlier rounds' and those
 * of the specialists it asked, whose calls are not replayed. None in a chat
 * written before receipts.
 */
function answerReceipt(receipts: unknown): Message[] {
  const last = Array.isArray(receipts) ? receipts.at(-1) : undefined;
  if (typeof last !== "object" || last === null) return [];
  const { role, content } = last as Record<string, unknown>;
  return role === "meta" && typeof content === "string" ? [{ role: "meta", content }] : [];
}

/** What a model round adds to a chat besides its meta record (`ask_round.ts`). */
const ROUND_OUTPUT = new Set([
  "assistant",
  "function_call",
  "function_call_output",
  "mcp_call",
  "image",
]);

/**
 * Where the caller's turn holding the call at `at` began: the caller's chat
 * as a specialist saw it during that turn ends there (the tool loop adds the
 * turn's output when the turn ends). A turn's output begins with a meta record
 * (its first inference's, or on the task route the job's `job=` marker); a
 * later round's meta follows the previous round's tool outputs. A chat
 * without meta records: after the last message no model round adds (the
 * question).
 *
 * A limit (R107-6): a meta right after a `function_call_output` is taken for
 * a later round of the same turn, so a turn that begins with no question
 * (`agent ask -c F -o F` and nothing new) after one cut short on its tool
 * outputs (`tool_loop_limit`, an interrupt during tools, both saved as they
 * stood) is taken to begin where the cut one began, one turn too early. The
 * saved chat cannot tell the two apart: no turn record is written, a meta
 * has no round number, its `_c` totals go on the same way, and a fresh
 * process's `_s` totals (restarting at the new turn) also restart inside one
 * turn whose first rounds were replayed from the cache (a rerun job, the same
 * ask again). Likewise a retried attempt's `incomplete=true` record before a
 * later round's meta is taken for the end of a failed turn (the turn is then
 * taken to begin at the round's meta). `docs/spec-notes/agents-core.md`
 * §3.3–§3.4 says what would tell them apart.
 *
 * @param chat the caller's chat
 * @param at the index of the call
 * @returns the index of the turn's first output message
 */
export function turnStart(chat: readonly Message[], at: number): number {
  for (let i = at - 1; i >= 0; i--) {
    const role = String(chat[i]!.role);
    if (role === "meta") {
      if (i > 0 && chat[i - 1]!.role === "function_call_output") continue;
      return i;
    }
    if (!ROUND_OUTPUT.has(role)) return i + 1;
  }
  return 0;
}
