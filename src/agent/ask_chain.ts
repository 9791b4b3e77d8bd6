/**
 * The chain of agents whose asks the running code is inside (outermost
 * first): an ask of an agent runs its tools, specialists and hand-offs within
 * it. `delegate.ts` asks whether an agent's turn waits on what runs now;
 * `ask_notes.ts` names a nested ask by its caller and job.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Agent } from "./types.ts";

/** The agents whose asks the current call runs inside (outermost first). */
const waiting = new AsyncLocalStorage<ReadonlySet<Agent>>();

/**
 * Runs `fn` as an ask of `agent`: inside it, the chain ends with `agent`
 * (an agent already in the chain keeps its place).
 *
 * @param agent the asking agent
 * @param fn the ask
 * @returns what `fn` returns
 */
export function inAskOf<T>(agent: Agent, fn: () => T): T {
  const chain = new Set(waiting.getStore());
  chain.add(agent);
  return waiting.run(chain, fn);
}

/**
 * The agents whose asks the code running now is inside, outermost first
 * (empty outside any).
 *
 * @returns the chain
 */
export function askChain(): Agent[] {
  return [...waiting.getStore() ?? []];
}

/**
 * Whether the code running now runs inside an `ask` of this agent — its turn
 * waits on what runs now, through specialists, tools or hand-offs (§3.5: a
 * message to it would land in its live chat mid-turn and start another turn
 * under the one in flight, without end). An ask of it running elsewhere (the
 * application's own, another caller's) is not this.
 *
 * @param agent the agent
 * @returns true inside one of its asks
 */
export function waitsOnThis(agent: Agent): boolean {
  return waiting.getStore()?.has(agent) === true;
}
