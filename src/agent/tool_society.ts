/**
 * The society log of any tool that returns an agent (`agents.md` §3.2: "Any
 * tool returning an agent gets the same treatment"; §4.4): `ask` and the
 * hand-offs put the specialists they run in the caller's `chats`, which the
 * logs walk; a specialist another tool returns — `{agent}` or
 * `{agent: specialistCall(…)}` — is put there too before it runs, as
 * `<Agent>/<conversation>` (the call's `conversation` when it gives a free
 * one) or `<Agent>/_tool-<n>`, so a chat task logs it as
 * `society/<Agent>/_tool-<n>.chat`.
 *
 * @module
 */
import type { SpecialistRunner } from "../tools/agent_results.ts";
import { isSpecialistCall, specialistOf } from "./specialist_call.ts";
import type { Agent } from "./types.ts";
import { reached } from "./carried_over.ts";

const NAME = /^[A-Za-z0-9_.-]+$/;
const CONVERSATION = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

function agentPart(a: Agent): string {
  const n = a.name;
  return n !== null && NAME.test(n) && n !== "." && n !== ".." ? n : "_agent";
}

/** A free key for `specialist` in the caller's `chats`. */
function freeKey(caller: Agent, specialist: Agent, conversation: string | undefined): string {
  const who = agentPart(specialist);
  if (
    conversation !== undefined && CONVERSATION.test(conversation) &&
    !conversation.endsWith(".chat") && caller.chats[`${who}/${conversation}`] === undefined
  ) return `${who}/${conversation}`;
  let n = 1;
  while (caller.chats[`${who}/_tool-${n}`] !== undefined) n++;
  return `${who}/_tool-${n}`;
}

/**
 * Puts the specialists of a batch that the caller's `chats` does not hold
 * (by identity) there, in call order.
 *
 * @param caller the agent whose tools returned them
 * @param items what the tools returned under `agent`
 */
export function keepInSociety(caller: Agent, items: readonly object[]): void {
  const held = new Set<Agent>(Object.values(caller.chats));
  for (const item of items) {
    const specialist = specialistOf(item);
    if (specialist === caller || held.has(specialist)) continue;
    const conversation = isSpecialistCall(item) ? item.conversation : undefined;
    caller.chats[freeKey(caller, specialist, conversation)] = specialist;
    held.add(specialist);
  }
}

/**
 * A runner that first keeps the batch's specialists in the caller's society
 * ({@link keepInSociety}), then runs them with `runner`; then they are the
 * caller's conversation's (`carried_over.ts`).
 *
 * @param caller the agent whose tool loop runs
 * @param runner the runner
 * @returns the runner for this caller
 */
export function withSociety(caller: Agent, runner: SpecialistRunner): SpecialistRunner {
  return async (items) => {
    keepInSociety(caller, items);
    try {
      return await runner(items);
    } finally {
      // after the run: a hand-off's restart has by then kept the conversation it ended
      for (const item of items) reached(caller, specialistOf(item));
    }
  };
}
