/**
 * What of an agent's chat is conversation rather than setup (`agents.md`
 * [TS-FIX] §7.11, §3.4): the live chat after its start-chat prefix, and the
 * conversation a chat task seeded into the start chat (§4.1 step 8).
 *
 * @module
 */
import type { Message } from "../chat/types.ts";
import type { Agent } from "./types.ts";

/**
 * The messages of the live chat after its start-chat prefix ([TS-FIX] §7.11):
 * the leading messages that are the very objects of `startChat` (or, when the
 * chat was adopted, value-equal to it) are sliced off — repeated messages equal
 * to a start message later on are kept.
 *
 * @param agent the agent
 * @returns the messages added since the start
 */
export function sinceStart(agent: Agent): Message[] {
  const chat = agent.currentChat ?? [];
  return chat.slice(startPrefixLength(chat, agent.startChat));
}

/**
 * How many leading messages of `chat` are its start: the very objects of
 * `start`, or (none of them) the longest value-equal common prefix.
 */
function startPrefixLength(chat: readonly Message[], start: readonly Message[]): number {
  let i = 0;
  while (i < start.length && i < chat.length && chat[i] === start[i]) i++;
  if (i === 0) {
    const same = (a: Message, b: Message) => JSON.stringify(a) === JSON.stringify(b);
    while (i < start.length && i < chat.length && same(chat[i]!, start[i]!)) i++;
  }
  return i;
}

/** The user's conversation a chat task put into an agent's start chat (§4.1 step 8). */
const seededConversations = new WeakMap<Agent, WeakSet<Message>>();

/**
 * Records that these start-chat messages are the conversation a chat task
 * was given (§4.1 step 8 seeds it into the start chat), not the agent's own
 * setup: {@link conversationSoFar} keeps them.
 *
 * @param agent the agent
 * @param messages the seeded messages (the very objects in `startChat`)
 */
export function markSeededConversation(agent: Agent, messages: readonly Message[]): void {
  seededConversations.set(agent, new WeakSet(messages));
}

/**
 * The conversation so far ([TS-FIX] §3.4 `inherit: "conversation"`):
 * {@link sinceStart}, after the conversation a chat task seeded into the
 * start chat — so a specialist sees the user's conversation whether its
 * caller runs as a chat task or directly.
 *
 * @param agent the agent
 * @param chat the chat to read (default: the live chat; an earlier part of it for a resumed
 *   conversation)
 * @returns the messages (not copies)
 */
export function conversationSoFar(
  agent: Agent,
  chat: readonly Message[] = agent.currentChat ?? [],
): Message[] {
  const seeded = seededConversations.get(agent);
  // an earlier part of the live chat holds only the seeded messages before its end
  const part = chat === agent.currentChat ? null : new Set(chat);
  const head = seeded
    ? agent.startChat.filter((m) => seeded.has(m) && (part === null || part.has(m)))
    : [];
  return [...head, ...chat.slice(startPrefixLength(chat, agent.startChat))];
}
