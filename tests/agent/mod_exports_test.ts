/**
 * What `mod.ts` gives a library user of agents (R82-10): the agent API, and
 * none of the wiring between the agent modules — setters and singletons that
 * one import could use to change what every `agent.ts`, workflow file or
 * socializing agent of the process gets (`setSpecialistLoader(null)` made
 * every `ask` answer "No agent found"). `SPECIALIST_CALL` stays: a constant,
 * the brand the exported `SpecialistCall` type names.
 */
import assert from "node:assert/strict";
import * as lib from "../../mod.ts";

const WIRING = [
  "setSpecialistLoader",
  "extendAgentApi",
  "agentApi",
  "chatTaskAgentOps",
  "chatTaskSpec",
  "specialistRunner",
];

const AGENT_API = [
  "createAgent",
  "loadAgent",
  "agentStart",
  "agentCurrent",
  "agentAsk",
  "agentChat",
  "agentRespond",
  "agentPrompt",
  "agentJson",
  "agentJsonFormat",
  "agentIterate",
  "agentIterateDictionary",
  "socialize",
  "delegate",
  "chatTask",
  "specialistCall",
  "agentDelegate",
  "clearAgentCache",
  "defineTool",
  "addTool",
  "save",
];

Deno.test("mod.ts: the agent API is exported; the agent modules' wiring is not (R82-10)", () => {
  const names = new Set(Object.keys(lib));
  assert.deepEqual(WIRING.filter((n) => names.has(n)), []);
  assert.deepEqual(AGENT_API.filter((n) => !names.has(n)), []);
});
