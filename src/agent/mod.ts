/**
 * Agents (`agents.md`): an agent is a plain record ({@link Agent}) plus
 * functions — `agent`/`createAgent`, `agentStart`, `agentAsk`, `agentChat`,
 * `agentRespond`, `agentPrompt`, `agentJson`, `agentJsonFormat`,
 * `agentIterate`, `agentIterateDictionary` — and `loadAgent`, which finds
 * `Agent/<Name>/` directories (`start_chat`, `workflow.ts`, `agent.ts`) on the
 * search roots. The `agent` prefix keeps these apart from the chat and `llm`
 * functions of the same verbs.
 *
 * @example
 * ```ts ignore
 * import { agentChat, agentCurrent, loadAgent } from "./mod.ts";
 * const worker = await loadAgent("Worker", { options: { endpoint: "nano" } });
 * agentCurrent(worker).push({ role: "user", content: "Summarise the notes" });
 * console.log((await agentChat(worker)).text);
 * ```
 *
 * @module
 */
export type { AgentApi, AgentScript, AgentWorkflowApi, ChatTaskFn } from "./api_types.ts";
export type {
  Agent,
  AgentCallOptions,
  AgentInit,
  AgentOptions,
  AgentReply,
  AgentRuntime,
  AskFn,
  ChatFn,
  CreateAgentFn,
  DelegateFn,
  IterateDictionaryFn,
  IterateDictionaryOptions,
  IterateFn,
  JsonFn,
  JsonFormatFn,
  LoadAgentFn,
  LoadAgentOptions,
  PromptFn,
  RespondFn,
  SocializeFn,
  StartFn,
} from "./types.ts";
export {
  agentToolRegistry,
  ask as agentAsk,
  chat as agentChat,
  createAgent,
  createAgent as agent,
  current as agentCurrent,
  prompt as agentPrompt,
  respond as agentRespond,
  sinceStart as agentSinceStart,
  start as agentStart,
} from "./agent.ts";
export {
  DICTIONARY_SCHEMA,
  iterate as agentIterate,
  iterateDictionary as agentIterateDictionary,
  json as agentJson,
  jsonFormat as agentJsonFormat,
  LIST_SCHEMA,
} from "./structured.ts";
export { agentDelegate, clearAgentCache, loadAgent } from "./load.ts";
export type {
  AgentListing,
  AgentLocation,
  FindAgentOptions,
  ListAgentsOptions,
  SkippedAgentDirectory,
} from "./find.ts";
export {
  AGENT_KINDS,
  agentRoots,
  checkAgentName,
  findAgent,
  findAgentDirectory,
  isAgentPath,
  listAgents,
} from "./find.ts";
export type { ChatTaskBody, ChatTaskOptions, ChatTaskResult } from "./chat_task.ts";
export { chatTask } from "./chat_task.ts";
export type { ChatTaskContext, TaskAgentOptions } from "./chat_task_helpers.ts";
export type { LoggableAgent } from "./log.ts";
export { agentLogFiles, logAgent } from "./log.ts";
export { askArguments, cloneAgent, inherited, socialize, socialOptions } from "./socialize.ts";
export type { AskCall, InheritMode } from "./socialize.ts";
export { delegate, HAND_OFF_PARAMETERS } from "./delegate.ts";
export type { DelegateOptions } from "./delegate.ts";
export { addTool } from "./bound_tools.ts";
// SPECIALIST_CALL: the brand SpecialistCall's type names (a constant, not a hook); build calls
// with specialistCall
export { receipts, SPECIALIST_CALL, specialistCall } from "./specialists.ts";
export type { SpecialistCall } from "./specialists.ts";
