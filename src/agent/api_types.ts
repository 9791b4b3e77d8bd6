/**
 * The APIs user files get (`agents.md` §2.3): a workflow file's default
 * export gets {@link AgentWorkflowApi} — the workflow library plus the agent
 * functions under their `mod.ts` names and `chatTask` — and an agent
 * directory's `agent.ts` gets {@link AgentApi}, which adds the short names
 * (`start`, `chat`…). Typing them lets a user's file type-check with
 * `import type` only (nothing to resolve inside the compiled binary).
 *
 * @module
 */
import type { Message } from "../chat/types.ts";
import type { TaskSpec } from "../workflow/define.ts";
import type { WorkflowApi } from "../workflow/load.ts";
import type { ChatTaskBody, ChatTaskOptions } from "./chat_task.ts";
import type { defineTool } from "../tools/define.ts";
import type { ToolEntry } from "../tools/types.ts";
import type { specialistCall } from "./specialist_call.ts";
import type {
  Agent,
  AskFn,
  ChatFn,
  CreateAgentFn,
  DelegateFn,
  IterateDictionaryFn,
  IterateFn,
  JsonFn,
  JsonFormatFn,
  LoadAgentFn,
  PromptFn,
  RespondFn,
  SocializeFn,
  StartFn,
} from "./types.ts";

/**
 * `chatTask(name, body, options?)` (§4.1): a task `name` of type `chat`
 * whose body drives an agent, with an optional `description` (`--help`, the
 * MCP tool), `returns` and `deps` (as an ordinary task's); returns
 * `{[name]: spec}`, to spread into `tasks`.
 */
export type ChatTaskFn = (
  name: string,
  body: ChatTaskBody,
  options?: ChatTaskOptions,
) => Record<string, TaskSpec<Message[]>>;

/**
 * The API a workflow file's default export gets (`export default (api:
 * AgentWorkflowApi) => api.workflow(…)`): the workflow library and the agent
 * functions, named as `mod.ts` exports them.
 */
export interface AgentWorkflowApi extends WorkflowApi {
  /** Creates a bare agent. */
  agent: CreateAgentFn;
  /** Loads an agent by name or path. */
  loadAgent: LoadAgentFn;
  /** Starts/restarts the live chat. */
  agentStart: StartFn;
  /** The live chat, started on first access. */
  agentCurrent: (agent: Agent) => Message[];
  /** Inference without appending. */
  agentAsk: AskFn;
  /** Inference appending to the live chat. */
  agentChat: ChatFn;
  /** Inference on the live chat, nothing appended. */
  agentRespond: RespondFn;
  /** Parses chat text, prefixes the start chat and asks. */
  agentPrompt: PromptFn;
  /** JSON answer. */
  agentJson: JsonFn;
  /** Structured output. */
  agentJsonFormat: JsonFormatFn;
  /** Iterates a JSON list answer. */
  agentIterate: IterateFn;
  /** Iterates a JSON object answer. */
  agentIterateDictionary: IterateDictionaryFn;
  /** Declares a chat task (§4.1): spread its result into `tasks`. */
  chatTask: ChatTaskFn;
  /** Gives the agent the `ask` tool (§3.1). */
  socialize: SocializeFn;
  /** Gives `caller` a `hand_off_to_<name>` tool handing messages to `agent` (§3.5). */
  delegate: DelegateFn;
  /**
   * A function tool from a zod schema (`api.z`): `{name, description?,
   * schema, run(args, ctx)}`; what `run` returns is the tool's output, or
   * `{agent}` to run an agent or a {@link specialistCall}.
   */
  defineTool: typeof defineTool;
  /**
   * Gives an agent a tool of its own (one from `defineTool`), under its
   * definition's name, whatever form its `tools` option has.
   */
  addTool: (agent: Agent, tool: ToolEntry) => void;
  /**
   * A pending call on an agent with a prompt: a tool returns `{agent:
   * specialistCall(other, prompt)}` to have `other` answer it, as `ask` does
   * (receipts on the output; a log in a chat task).
   */
  specialistCall: typeof specialistCall;
}

/** The API object passed to an agent directory's `agent.ts` default export. */
export interface AgentApi extends AgentWorkflowApi {
  /**
   * Loads another agent where this one was loaded: unless given, with a copy
   * of its runtime hooks (env and cwd, which drive the search, signal,
   * offline…) and the warnings of its load.
   */
  loadAgent: LoadAgentFn;
  /** Starts/restarts the live chat. */
  start: StartFn;
  /** Inference without appending. */
  ask: AskFn;
  /** Inference appending to the live chat. */
  chat: ChatFn;
  /** Structured output. */
  jsonFormat: JsonFormatFn;
  /** The live chat, started on first access. */
  current: (agent: Agent) => Message[];
  /** Inference on the live chat, nothing appended. */
  respond: RespondFn;
  /** Parses chat text, prefixes the start chat and asks. */
  prompt: PromptFn;
  /** JSON answer. */
  json: JsonFn;
  /** Iterates a JSON list answer. */
  iterate: IterateFn;
  /** Iterates a JSON object answer. */
  iterateDictionary: IterateDictionaryFn;
}

/** The default export of `Agent/<Name>/agent.ts`: customise or replace the agent. */
export type AgentScript = (api: AgentApi, agent: Agent) => Agent | void | Promise<Agent | void>;
