/**
 * The society log of any tool that returns an agent (`agents.md` §3.2: "Any
 * tool returning an agent gets the same treatment"; §4.4): `ask` and the
 * hand-offs put the specialists they run in the caller's `chats`, which the
 * logs walk; a specialist another tool returns — `{agent}` or
 * `{agent: specialistCall(…)}` — is put there too before it runs, as
 * `<Agent>/<conversation>` (the call's `conversation` when it gives a free
 * one) or `<Agent>/_tool-<n>`, so a chat task logs it as
 * `society/<Agent>/_tool-<n>.chat`; the call's output records that log's
 * agent and conversation (`"agent"`, `"conversation"`), which the call does
 * not name, so provenance links the call to it.
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
    toolKept.add(specialist);
  }
}

/** Specialists {@link keepInSociety} put in a society (not an `ask` clone, not a hand-off's). */
const toolKept = new WeakSet<Agent>();

/**
 * What the output of a call running a specialist another tool returned
 * records: the agent and conversation of its log (`<Agent>/<conversation>`),
 * which the call's arguments do not name, as an `ask`'s output records its
 * one-shot conversation (R87-5); nothing for `ask` and hand-off calls.
 */
function logOf(caller: Agent, item: object): { agent: string; conversation: string } | null {
  const specialist = specialistOf(item);
  if (!toolKept.has(specialist)) return null;
  const key = Object.keys(caller.chats).find((k) => caller.chats[k] === specialist);
  if (key === undefined) return null;
  const at = key.indexOf("/");
  return { agent: key.slice(0, at), conversation: key.slice(at + 1) };
}

/**
 * A runner that first keeps the batch's specialists in the caller's society
 * ({@link keepInSociety}), then runs them with `runner`, each result of a
 * specialist a tool other than `ask` and the hand-offs returned naming its
 * log; then they are the caller's conversation's (`carried_over.ts`).
 *
 * @param caller the agent whose tool loop runs
 * @param runner the runner
 * @returns the runner for this caller
 */
export function withSociety(caller: Agent, runner: SpecialistRunner): SpecialistRunner {
  return async (items, ended, started) => {
    keepInSociety(caller, items);
    try {
      const results = await runner(items, ended, started);
      return results.map((r, i) => {
        const log = i < items.length ? logOf(caller, items[i]!) : null;
        return log === null ? r : { ...r, ...log };
      });
    } finally {
      // after the run: a hand-off's restart has by then kept the conversation it ended
      for (const item of items) reached(caller, specialistOf(item));
    }
  };
}
