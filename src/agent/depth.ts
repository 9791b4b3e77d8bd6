/**
 * How deep specialists nest (`SCOUT_MAX_AGENT_DEPTH`): an agent that asks
 * itself, or a cycle of agents, would otherwise recurse until memory runs out
 * (Ruby has no limit). Continued conversations keep the depth they were
 * created at.
 *
 * @module
 */
import process from "node:process";
import type { Agent } from "./types.ts";

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
  const env = caller.runtime.env ?? process.env;
  const given = Number.parseInt(env.SCOUT_MAX_AGENT_DEPTH ?? "", 10);
  const max = Number.isFinite(given) && given >= 0 ? given : MAX_AGENT_DEPTH;
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
