/**
 * Running an agent directory's `agent.ts` (`agents.md` §2.3): its default
 * export gets the API and the loaded agent, and customises it (returns
 * nothing) or returns the agent to use. What fails is one `agent_load` error
 * naming the script (and its line, when the runtime says).
 *
 * @module
 */
import { plainMessage, ScoutError } from "../errors.ts";
import { importUserModule } from "../util/user_module.ts";
import { scriptLine } from "../util/script_line.ts";
import { isLoadCycle } from "./load_chain.ts";
import { agentShapeProblems, shapeText } from "./agent_shape.ts";
import type { AgentApi, AgentScript } from "./api_types.ts";
import type { Agent } from "./types.ts";

/**
 * Imports `file` and runs its default export with `(api, agent)`.
 *
 * @param file the script (absolute path)
 * @param agent the agent loaded from its directory
 * @param api the API the script gets
 * @returns the agent it returned, else `agent`
 * @throws ScoutError `agent_load` naming the script: it cannot be imported,
 *   exports no function, throws (a cycle of loads passes through as it is),
 *   returns something that is not an agent, or leaves its agent broken (a
 *   field of another kind: `options` null, `startChat` no list of messages…)
 */
export async function runAgentScript(file: string, agent: Agent, api: AgentApi): Promise<Agent> {
  const mod = await importUserModule(file, "agent_load", "agent script");
  if (typeof mod.default !== "function") {
    throw new ScoutError(
      "agent_load",
      `Agent script "${file}" must default-export a function (api, agent) => agent | void`,
      { file },
    );
  }
  let out: unknown;
  try {
    out = await (mod.default as AgentScript)(api, agent);
  } catch (e) {
    if (isLoadCycle(e)) throw e; // it names its line already: not once more per script it went through
    // the line of agent.ts the throw passed through (--debug prints the whole stack)
    const line = scriptLine(e, file);
    throw new ScoutError("agent_load", `Agent script "${file}" failed: ${plainMessage(e)}`, {
      file,
      ...(line === undefined ? {} : { line }),
      cause: e,
    });
  }
  return checkedAgent(file, agent, out ?? agent);
}

/**
 * What the script leaves (`agent`, changed in place) or returns, checked to be
 * an agent, its fields of their kinds, messages included (R131-2): a broken
 * one would fail at its first use, in the runtime's words, naming no script.
 */
function checkedAgent(file: string, agent: Agent, out: unknown): Agent {
  const p = typeof out === "object" ? agentShapeProblems(out as object, true) : null;
  if (p !== null && p.missing.length + p.wrong.length === 0) return out as Agent;
  if (out === agent && p !== null) {
    const message = `Agent script "${file}" left the agent broken: ${shapeText(p)}`;
    throw new ScoutError("agent_load", message, { file });
  }
  const what = p ? ` (${shapeText(p)})` : "";
  throw new ScoutError(
    "agent_load",
    `Agent script "${file}" returned something that is not an agent${what}: return the agent it was given, one made with api.agent(…), or nothing`,
    { file },
  );
}
