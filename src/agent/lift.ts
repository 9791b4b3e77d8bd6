/**
 * The option lines of an agent's start chat made agent options ([TS-FIX]
 * §7.5), and what its specialists inherit of its options (§3.3: not those).
 *
 * @module
 */
import { join } from "node:path";
import { extractOptions } from "../chat/options.ts";
import { mergeOptionLines, type OptionLine } from "../chat/written_at.ts";
import { setOwn } from "../util/own_record.ts";
import type { Agent, AgentOptions } from "./types.ts";

/**
 * [TS-FIX] §7.5: takes the option lines out of the agent's start chat and
 * makes them agent options, over the ones the agent has (its `agent.ts`'s)
 * except those named in `explicit` — the options given to `loadAgent` (the
 * CLI's `-e`/`-m`), a chat task's job options — which so win over
 * `endpoint:`/`model:` lines of the start chat. The start chat without its option lines stays the prefix
 * {@link sinceStart} cuts. Where the lifted lines were written joins the
 * runtime (`optionLines`), so an error about a value names its line.
 *
 * @param agent a loaded agent
 * @param explicit the options given explicitly (keys only matter)
 */
export function liftStartOptions(agent: Agent, explicit: AgentOptions): void {
  const { cwd } = agent.runtime;
  const lifted = extractOptions(agent.startChat, {
    ...(cwd !== undefined ? { cwd } : {}),
    ...(agent.path ? { origin: join(agent.path, "start_chat") } : {}),
  });
  agent.startChat = lifted.chat;
  const lines: Record<string, OptionLine> = {};
  for (const [k, v] of Object.entries(lifted.options)) {
    if (Object.hasOwn(explicit, k)) continue; // own keys: `toString` is an option like any (R112-5)
    recordLift(agent, k, v);
    // defined, not assigned: under Bun `option: __proto__ x` set no option (R112-5 follow-up)
    setOwn(agent.options, k, v);
    const at = lifted.lines?.[k];
    if (at) setOwn(lines, k, at);
  }
  // where they were written goes with the ask (an unknown endpoint names its line)
  if (Object.keys(lines).length > 0) {
    agent.runtime = {
      ...agent.runtime,
      optionLines: mergeOptionLines(agent.runtime.optionLines, lines),
    };
  }
}

/** A lifted key: the option it replaced (`before` absent: none), and the value lifted. */
type Lift = { before?: { value: unknown }; lifted: unknown };

/** Per lifted agent (this object; a clone gets a copy: {@link keepLift}), its lifted keys. */
const lifts = new WeakMap<Agent, Map<string, Lift>>();

function recordLift(agent: Agent, key: string, lifted: unknown): void {
  let keys = lifts.get(agent);
  if (!keys) lifts.set(agent, keys = new Map());
  // a second lift replaces a value lifted already: what it replaced is the first one's
  const first = keys.get(key);
  if (first) first.lifted = lifted;
  else {
    const before = Object.hasOwn(agent.options, key)
      ? { before: { value: agent.options[key] } }
      : {};
    keys.set(key, { ...before, lifted });
  }
}

/**
 * The agent's options without what {@link liftStartOptions} lifted from its
 * start chat (those keys as they were before): what its specialists inherit
 * (§3.3: the caller's agent options). Start-chat lines are its conversation's
 * options, not agent options, and in Ruby they never reach a specialist. An
 * option set again since the lift is the caller's own, and kept.
 *
 * @param agent the agent
 * @returns a new options object
 */
export function optionsUnlifted(agent: Agent): AgentOptions {
  const out = { ...agent.options };
  for (const [k, { before, lifted }] of lifts.get(agent) ?? []) {
    if (out[k] !== lifted) continue; // set since
    if (before) setOwn(out, k, before.value);
    else delete out[k];
  }
  return out;
}

/**
 * Gives a clone of a lifted agent (`cloneAgent`) its template's lift record,
 * so what the clone's specialists inherit leaves the template's start-chat
 * lines out too. A lifted value the template still has is matched to the
 * clone's copy of it (options are deep-copied).
 *
 * @param template the agent cloned
 * @param clone its clone
 */
export function keepLift(template: Agent, clone: Agent): void {
  const keys = lifts.get(template);
  if (!keys) return;
  const copy = new Map<string, Lift>();
  for (const [k, { before, lifted }] of keys) {
    const still = template.options[k] === lifted;
    copy.set(k, { ...(before ? { before } : {}), lifted: still ? clone.options[k] : lifted });
  }
  lifts.set(clone, copy);
}
