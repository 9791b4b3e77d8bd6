/**
 * What the agent of a hand-off (`delegate`, `agents.md` §3.5) takes from the
 * agent handing off to it ([TS-FIX]; README: "what it lacks comes from its
 * caller, and `-e`/`-m` given to `agent ask` reach the whole society"): the
 * options a specialist of that caller would be loaded with (§3.3,
 * `socialOptions`: the caller's agent options — `-e`/`-m`, a chat task's job
 * options — not its start-chat lines, nor tools, formats…), for each key the
 * agent has neither as an option nor as an option line of its start chat. So
 * an agent an `agent.ts` loaded with `api.loadAgent`, which got none of the
 * command line's options, runs on the caller's endpoint, and its own
 * `endpoint:`/`model:` lines still win (on the task route too, where they
 * stay in its start chat). In Ruby the agent gets nothing.
 *
 * @module
 */
import { extractOptions } from "../chat/options.ts";
import { setOwn } from "../util/own_record.ts";
import { socialOptions } from "./socialize.ts";
import type { Agent } from "./types.ts";

/**
 * Gives `agent` the options it lacks of those `caller`'s specialists get.
 * Once set they are the agent's own: its specialists inherit them, and a
 * later caller's do not replace them.
 *
 * @param agent the agent handed to (the live one)
 * @param caller the agent handing off
 *
 * @example
 * ```ts
 * import { createAgent } from "./agent.ts";
 * import { inheritCallerOptions } from "./hand_off_options.ts";
 * const boss = createAgent({ options: { endpoint: "loop", model: "m" } });
 * const critic = createAgent({ startChat: [{ role: "model", content: "own" }] });
 * inheritCallerOptions(critic, boss);
 * critic.options; // { endpoint: "loop" }
 * ```
 */
export function inheritCallerOptions(agent: Agent, caller: Agent): void {
  const given = socialOptions(caller);
  // its start chat's option lines (an agent on the task route keeps them there); a `format:`
  // file is not read: only the keys matter
  const lines = extractOptions(agent.startChat, { resolveFormat: (v) => v }).options;
  for (const [k, v] of Object.entries(given)) {
    if (Object.hasOwn(agent.options, k) || Object.hasOwn(lines, k)) continue;
    setOwn(agent.options, k, v);
  }
}
