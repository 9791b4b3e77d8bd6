/**
 * The agents a load is inside of (R82-1): loading an agent runs its
 * `agent.ts`, which may load other agents, whose `agent.ts` may load more.
 * Two scripts loading each other at load time would recurse without end, so
 * each load runs with the chain of directories it is nested in (per async
 * call chain, so concurrent loads and loads made later — a hand-off handler
 * loading its agent at run time — each have their own), and a load of a
 * directory already on its chain is refused, naming the cycle.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { isScoutError, ScoutError } from "../errors.ts";
import { scriptLine } from "../util/script_line.ts";

/** One agent being loaded. */
export interface LoadLink {
  /** Its name (as the cycle's message shows it). */
  name: string;
  /** What identifies the directory (the definition cache's key). */
  key: string;
  /** Its `agent.ts`, when it has one. */
  script: string | null;
}

const chain = new AsyncLocalStorage<readonly LoadLink[]>();

/**
 * Throws when `link`'s directory is being loaded already on this call chain.
 *
 * @param link the agent about to be loaded
 * @param at an error made where the load was asked for (its stack names the
 *   line of the `agent.ts` asking)
 * @throws ScoutError `agent_load` with `cycle` (the names, first and last
 *   the same) and the file and line of the call closing the cycle
 */
export function checkLoadCycle(link: LoadLink, at: Error): void {
  const outer = chain.getStore() ?? [];
  const from = outer.findIndex((l) => l.key === link.key);
  if (from < 0) return;
  const cycle = [...outer.slice(from).map((l) => l.name), link.name];
  const loader = outer.at(-1)!;
  const line = loader.script === null ? undefined : scriptLine(at, loader.script);
  const who = line === undefined ? loader.name : `the agent.ts of ${loader.name}`;
  throw new ScoutError(
    "agent_load",
    `Agent cycle: ${cycle.join(" → ")}: ${who} loads ${link.name}, which is still loading; ` +
      `let one agent.ts load the other and wire both ways (api.delegate(me, other, …) and ` +
      `api.delegate(other, me, …))`,
    {
      cycle,
      ...(loader.script !== null ? { file: loader.script } : {}),
      ...(line !== undefined ? { line } : {}),
    },
  );
}

/**
 * Runs a load with `link` added to the chain of the loads it is inside of.
 *
 * @param link the agent being loaded
 * @param load the load
 * @returns what the load returns
 */
export function withinLoad<T>(link: LoadLink, load: () => Promise<T>): Promise<T> {
  return chain.run([...(chain.getStore() ?? []), link], load);
}

/**
 * Whether `e` is the error {@link checkLoadCycle} throws (passed on as it is
 * by the scripts it goes through, not wrapped once per script).
 *
 * @param e anything thrown
 * @returns true for a cycle error
 */
export function isLoadCycle(e: unknown): e is ScoutError {
  return isScoutError(e, "agent_load") && Array.isArray(e.cycle);
}
