/**
 * The tools an agent is given rather than has (`agents.md` §1.4 step 3b,
 * first two sources): the call's `tools` and the agent's `tools` option (a
 * JSON string is parsed), the agent's overriding same-named call tools. The
 * direct route adds its workflow and knowledge-base tools to these; the task
 * route hands these to the agent its job runs (`task_route.ts`).
 *
 * @module
 */
import { ScoutError } from "../errors.ts";
import { toolRegistry, type ToolsInput } from "../tools/registry.ts";
import type { ToolRegistry } from "../tools/types.ts";
import type { Agent } from "./types.ts";

/**
 * The agent option `tools` as a tools input: a JSON string is parsed.
 *
 * @param value the option's value
 * @returns the tools, or undefined when unset
 * @throws ScoutError `invalid_input` for a string that is not JSON
 */
export function agentTools(value: unknown): ToolsInput | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") return value as ToolsInput;
  try {
    return JSON.parse(value) as ToolsInput;
  } catch (e) {
    throw new ScoutError(
      "invalid_input",
      `Cannot parse the agent option "tools" as JSON: ${(e as Error).message}`,
    );
  }
}

/**
 * Call tools ∪ agent tools (§1.4 step 3b), later sources overriding
 * same-named earlier ones.
 *
 * @param agent the agent
 * @param callTools the call's `tools`
 * @returns a new registry
 *
 * @example
 * ```ts
 * import { createAgent } from "./agent.ts";
 * import { ownTools } from "./own_tools.ts";
 * const a = createAgent({ options: { tools: '[{"name":"x","parameters":{"type":"object"}}]' } });
 * [...ownTools(a).keys()]; // ["x"]
 * ```
 */
export function ownTools(agent: Agent, callTools?: ToolsInput): ToolRegistry {
  const reg = toolRegistry(callTools);
  for (const [k, v] of toolRegistry(agentTools(agent.options.tools))) reg.set(k, v);
  return reg;
}
