/**
 * Tools bound to an agent (`agents.md` §3.1, §3.5): the `ask` tool and
 * hand-offs act for the agent they are registered on (its conversations,
 * its chat). A clone of a specialist (§3.3) and the agent a task-route job
 * runs for its caller (§1.4 step 2) get them rebuilt for themselves.
 *
 * @module
 */
import type { ToolEntry, ToolRegistry } from "../tools/types.ts";
import { definitionName } from "../tools/registry.ts";
import { ScoutError } from "../errors.ts";
import type { Agent } from "./types.ts";

/**
 * Tools bound to the agent that registered them (`ask`, hand-offs): their
 * implementation → how to build the same tool for another agent. A clone
 * gets its own (an `agent.ts` that socializes runs on the template; its
 * clones must keep their own conversations and inherit their own chat).
 */
const agentBound = new WeakMap<object, (owner: Agent) => ToolEntry>();

/**
 * Registers an agent-bound tool: `build(owner)` makes the entry for an
 * agent; clones of `agent` get `build(clone)` (`cloneAgent`, socialize.ts).
 *
 * @param agent the agent the tool is registered on
 * @param name tool name
 * @param build builds the tool's entry for an owner
 */
export function addBoundTool(agent: Agent, name: string, build: (owner: Agent) => ToolEntry): void {
  const entry = build(agent);
  agentBound.set(entry.impl!, build);
  addAgentTool(agent, name, entry);
}

/** The entry for `owner`: an agent-bound tool rebuilt for it, any other shared. */
function boundFor(e: unknown, owner: Agent): unknown {
  const build = agentBound.get((e as ToolEntry | null)?.impl ?? {});
  if (!build) return e;
  const entry = build(owner);
  agentBound.set(entry.impl!, build);
  return entry;
}

/**
 * Whether a tool entry is agent-bound (registered with {@link addBoundTool}:
 * `ask` of `socialize`, a `delegate` hand-off), which an agent's own code
 * registers again wherever the agent is loaded.
 *
 * @param entry a tool entry
 * @returns true when bound
 */
export function isBoundTool(entry: ToolEntry): boolean {
  return entry.impl !== undefined && agentBound.has(entry.impl);
}

/**
 * Rebuilds the agent-bound tools of a clone's (copied) `tools` option for it.
 *
 * @param clone the clone
 */
export function rebindAgentTools(clone: Agent): void {
  const tools = clone.options.tools;
  if (tools === null || typeof tools !== "object") return;
  const rebound = (e: unknown): unknown => boundFor(e, clone);
  if (tools instanceof Map) { for (const [k, e] of tools) tools.set(k, rebound(e) as ToolEntry); }
  else if (Array.isArray(tools)) clone.options.tools = tools.map(rebound);
  else {
    const map = tools as Record<string, unknown>;
    for (const k of Object.keys(map)) map[k] = rebound(map[k]);
  }
}

/** Agents standing in for another (a task-route job's agent for the agent that asked). */
const standIns = new WeakMap<Agent, Agent>();

/**
 * The agent `agent` stands in for ({@link adoptTools}), else itself.
 *
 * @param agent an agent
 * @returns the agent whose tools it was given, or itself
 */
export function standsFor(agent: Agent): Agent {
  return standIns.get(agent) ?? agent;
}

/**
 * Gives `owner` the tools `from` was given, over its own same-named ones:
 * the agent a task-route job runs stands in for the agent that asked
 * (§1.4 step 2). Agent-bound tools are rebuilt for `owner` (its `ask` keeps
 * its own conversations and inherits its own chat, so they are logged with
 * the job); a hand-off still reaches the one live agent `from` was given
 * (§3.5); other tools are shared.
 *
 * @param owner the agent receiving the tools
 * @param tools the tools (call ∪ agent tools of `from`)
 * @param from the agent they were given to
 */
export function adoptTools(owner: Agent, tools: ToolRegistry, from: Agent): void {
  if (tools.size === 0) return;
  standIns.set(owner, standsFor(from));
  for (const [name, entry] of tools) addAgentTool(owner, name, boundFor(entry, owner) as ToolEntry);
}

/**
 * Adds a tool entry to an agent's `tools` option (a map, a registry, a list,
 * or a JSON string of definitions).
 *
 * @param agent the agent
 * @param name tool name
 * @param entry the entry
 */
export function addAgentTool(agent: Agent, name: string, entry: ToolEntry): void {
  let tools = agent.options.tools;
  if (typeof tools === "string") tools = JSON.parse(tools);
  if (tools instanceof Map) tools.set(name, entry);
  else if (Array.isArray(tools)) tools = [...tools, entry];
  else tools = { ...(tools as Record<string, unknown> ?? {}), [name]: entry };
  agent.options.tools = tools;
}

/**
 * Gives an agent a tool of its own (`api.addTool` in an `agent.ts`): the
 * entry goes into its `tools` option under its definition's name, whatever
 * form that option has (a map, a registry, a list, a JSON string); a tool of
 * that name is replaced.
 *
 * @param agent the agent
 * @param tool a tool entry, e.g. from `defineTool`
 * @throws ScoutError `invalid_input` for what is no tool entry
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { defineTool } from "../tools/define.ts";
 * import { createAgent } from "./agent.ts";
 * import { addTool } from "./bound_tools.ts";
 * const agent = createAgent({ name: "Calc" });
 * addTool(agent, defineTool({ name: "add", schema: z.object({ a: z.number() }), run: ({ a }) => a }));
 * Object.keys(agent.options.tools as object); // ["add"]
 * ```
 */
export function addTool(agent: Agent, tool: ToolEntry): void {
  const def = (tool as Partial<ToolEntry> | null)?.definition;
  if (def === null || typeof def !== "object" || typeof def.type !== "string") {
    throw new ScoutError(
      "invalid_input",
      "addTool(agent, tool) takes a tool entry ({definition, impl}): make one with defineTool({name, schema, run})",
    );
  }
  addAgentTool(agent, definitionName(def), tool);
}
