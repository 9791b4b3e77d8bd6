/**
 * How deep specialists nest (`SCOUT_MAX_AGENT_DEPTH`): an agent that asks
 * itself, or a cycle of agents, would otherwise recurse until memory runs out
 * (Ruby has no limit). Continued conversations keep the depth they were
 * created at. And how many `ask` calls one top-level ask may make in all
 * (`SCOUT_MAX_AGENT_CALLS`): the depth limit does not bound fan-out (three
 * calls a level, eight levels: nearly 10,000 specialists).
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import process from "node:process";
import type { Agent } from "./types.ts";
import { currentWarningSink } from "../util/warn_once.ts";

/** How deep an `ask` clone sits: the caller's depth + 1 (an agent not listed is 0). */
const depths = new WeakMap<Agent, number>();

/** Default of `SCOUT_MAX_AGENT_DEPTH`: how many levels of specialists may nest. */
export const MAX_AGENT_DEPTH = 8;

/**
 * The depth of a new conversation of `caller`'s; refuses one that would nest
 * specialists deeper than `SCOUT_MAX_AGENT_DEPTH` (default
 * {@link MAX_AGENT_DEPTH}). The model sees the refusal as an error output.
 *
 * @param caller the agent asking
 * @param name the specialist's name (for the message)
 * @returns the new conversation's depth
 */
export function nextDepth(caller: Agent, name: string): number {
  const max = envLimit(caller, "SCOUT_MAX_AGENT_DEPTH", MAX_AGENT_DEPTH);
  const depth = (depths.get(caller) ?? 0) + 1;
  if (depth > max) {
    throw new Error(
      `Cannot ask ${name}: specialists may nest ${max} levels deep (SCOUT_MAX_AGENT_DEPTH); answer without asking further`,
    );
  }
  return depth;
}

/**
 * Records the depth of a new conversation's clone.
 *
 * @param clone the clone
 * @param depth its depth ({@link nextDepth})
 */
export function setDepth(clone: Agent, depth: number): void {
  depths.set(clone, depth);
}

function envLimit(agent: Agent, key: string, fallback: number): number {
  const env = agent.runtime.env ?? process.env;
  const given = Number.parseInt(env[key] ?? "", 10);
  return Number.isFinite(given) && given >= 0 ? given : fallback;
}

/** Default of `SCOUT_MAX_AGENT_CALLS`: how many `ask` calls one top-level ask may make in all. */
export const MAX_AGENT_CALLS = 200;

/** The `ask` calls made so far by the tree of specialists of one top-level ask. */
interface CallBudget {
  used: number;
  warned: boolean;
  /** Its ask returned: a store seen after that leaked (below) and is not this ask's. */
  ended: boolean;
}

const budgets = new AsyncLocalStorage<CallBudget>();

/**
 * Runs `fn` under the call budget of the enclosing top-level ask, or a new
 * one when there is none (`fn` is a top-level ask): the specialists it runs,
 * at any depth, share it.
 *
 * @param fn the ask
 * @returns what `fn` returns
 */
export async function withCallBudget<T>(fn: () => Promise<T>): Promise<T> {
  const known = budgets.getStore();
  if (known && !known.ended) return await fn();
  // Deno lets a store outlive its `run` (seen: the next test's ask got the last one's):
  // a budget whose ask returned is never reused
  const budget: CallBudget = { used: 0, warned: false, ended: false };
  try {
    return await budgets.run(budget, fn);
  } finally {
    budget.ended = true;
  }
}

/**
 * Counts one `ask` call against the top-level ask's budget; refuses it once
 * `SCOUT_MAX_AGENT_CALLS` (default {@link MAX_AGENT_CALLS}) calls were made
 * (the model sees the refusal as an error output; the first refusal warns).
 *
 * @param caller the agent asking
 * @param name the specialist's name (for the message)
 */
export function spendAgentCall(caller: Agent, name: string): void {
  const budget = budgets.getStore();
  if (!budget || budget.ended) return;
  const max = envLimit(caller, "SCOUT_MAX_AGENT_CALLS", MAX_AGENT_CALLS);
  if (budget.used < max) {
    budget.used++;
    return;
  }
  if (!budget.warned) {
    budget.warned = true;
    const warn = caller.runtime.warn ?? currentWarningSink();
    warn(
      `the specialists of this ask made ${max} calls (SCOUT_MAX_AGENT_CALLS); further asks are refused`,
    );
  }
  throw new Error(
    `Cannot ask ${name}: the budget of ${max} specialist calls of this run is spent (SCOUT_MAX_AGENT_CALLS); answer without asking further`,
  );
}
