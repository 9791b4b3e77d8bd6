/**
 * A named specialist conversation continued in a later run (`agent ask -c F
 * -o F`, a chat task continued from its conversation): the specialist agent
 * lived in the earlier process only, but the caller's chat holds every call of
 * that conversation and its answer. The conversation is rebuilt from them —
 * what the first call inherited (read from the caller's chat as it stood
 * then), then each prompt and answer — so reusing the id continues it, as the
 * `ask` tool tells the model. The specialist's own tool calls of those turns
 * are not in the caller's chat and are not replayed.
 *
 * @module
 */
import { argumentsObject, askArguments, type InheritMode } from "../chat/ask_call.ts";
import { toolCalls } from "../chat/tool_calls.ts";
import type { Message } from "../chat/types.ts";
import type { Agent } from "./types.ts";

/**
 * The messages after the start chat of `agent`'s conversation `conversation`
 * with `caller`, rebuilt from the calls in the caller's chat, or null when the
 * chat holds none that was answered.
 *
 * @param caller the calling agent
 * @param agent the specialist's name
 * @param conversation the conversation id
 * @param inherit what a conversation starting at a point of the caller's chat inherits (§3.4)
 * @returns inherited messages, then a user/assistant pair per earlier call; or null
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
  if (start === undefined || answered.length === 0) return null;
  const turns = answered.flatMap((c): Message[] => [
    { role: "user", content: c.call.prompt },
    { role: "assistant", content: c.text },
  ]);
  return [...inherit(start.call.inherit, chat.slice(0, start.at)), ...turns];
}
