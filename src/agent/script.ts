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
 *   or returns something that is not an agent
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
  if (out === undefined || out === null) return agent;
  const missing = typeof out === "object" ? missingAgentFields(out as Record<string, unknown>) : [];
  if (typeof out !== "object" || missing.length > 0) {
    const what = missing.length ? ` (it has no ${missing.join(", ")})` : "";
    throw new ScoutError(
      "agent_load",
      `Agent script "${file}" returned something that is not an agent${what}: return the agent it was given, one made with api.agent(…), or nothing`,
      { file },
    );
  }
  return out as Agent;
}

/** The fields every caller of an agent reads: `startChat` an array, the rest records. */
function missingAgentFields(out: Record<string, unknown>): string[] {
  const record = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);
  return [
    ...(Array.isArray(out.startChat) ? [] : ["startChat"]),
    ...["options", "runtime", "society", "chats"].filter((k) => !record(out[k])),
  ];
}
