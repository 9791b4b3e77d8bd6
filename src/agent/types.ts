/**
 * The agent as plain data (`agents.md` §1, §7 "Port shape"): a record of its
 * start chat, live chat, options, workflow, society… and the signatures of the
 * functions over it (implemented in `agent.ts`, `load.ts`; delegation in
 * `socialize.ts`/`delegate.ts`). No class wraps the chat: chat operations
 * apply to `agent.currentChat` through the chat functions.
 *
 * @module
 */
import type { Message } from "../chat/types.ts";
import type { AskOptions, AskResult, AskRuntime } from "../llm/ask.ts";
import type { Workflow } from "../workflow/define.ts";
import type { Job, JobContext } from "../workflow/job_types.ts";
import type { ToolFunction } from "../tools/types.ts";

/**
 * Agent options (§1.1): `endpoint`, `model`, `backend`, `persist`, `format`,
 * `tools` (a tools map or a JSON string of definitions), `no_ask_override`,
 * and any backend option. Plain data: deep-copied when an agent is cloned.
 */
export type AgentOptions = Record<string, unknown>;

/**
 * Runtime hooks an agent passes to every inference (never options, never
 * cached): env, cwd, fetch, warn, onEvent, stream, signal… Shared (not
 * copied) by clones. `delegate` resolves `agent: <Name>` lines (`loadAgent`
 * installs one that loads that agent).
 */
export type AgentRuntime = AskRuntime;

/** An agent: plain data, see `agents.md` §1.1. */
export interface Agent {
  /** Name (the directory name when loaded; `null` for a bare agent). */
  name: string | null;
  /** Seed messages (system prompts, tool lines, options). */
  startChat: Message[];
  /** Live conversation; `null` until {@link StartFn} runs (functions start it lazily). */
  currentChat: Message[] | null;
  /** Agent options (§1.1). */
  options: AgentOptions;
  /** Workflow whose tasks become tools; its `ask` task is the task route (§1.4). */
  workflow: Workflow | null;
  /** Knowledge-base directory: its databases' tools join the agent's (agents.md §6). */
  knowledgeBase: string | null;
  /** Specialist name → template agent (§3.3). */
  society: Record<string, Agent>;
  /** `"<Agent>/<conversation>"` → live specialist (§3.3). */
  chats: Record<string, Agent>;
  /** The job the agent works for (a chat task's context, or the task route's job). */
  job: JobContext | Job | null;
  /** Directory the agent was discovered in. */
  path: string | null;
  /** Decides on an error: true ⇒ retry the whole `ask`; otherwise rethrow. */
  processException: ((error: unknown) => boolean | Promise<boolean>) | null;
  /** Runtime hooks for every inference (shared by clones). */
  runtime: AgentRuntime;
}

/** Fields accepted by {@link CreateAgentFn} (all optional). */
export type AgentInit = Partial<Agent>;

/**
 * Per-call options of the inference functions: any chat-level option
 * (`model`, `endpoint`, `format`…), `tools`, runtime hooks (they override the
 * agent's `runtime`).
 */
export type AgentCallOptions = AskOptions;

/**
 * What an agent inference produced. `text` is the answer; `messages` are the
 * new messages (Ruby's `return_messages: true` view) — both always given, so
 * no option switches the return type.
 */
export interface AgentReply {
  /** The answer text (`""` when the last new message is not an assistant one). */
  text: string;
  /** New messages (`meta`, tool calls/outputs, `assistant`…; on the task route the projection). */
  messages: Message[];
  /** The job when the answer came from the workflow's `ask` task (§1.4 step 2). */
  job?: Job;
  /**
   * On the task route: true when no provider request was made for the answer —
   * the job was already done (its answer reused), or every inference its run
   * made was replayed from the inference cache (as `AskResult.cached`).
   */
  cached?: boolean;
  /** The inference result on the direct route (endpoint, backend, model, cached). */
  ask?: AskResult;
}

/** Creates a bare agent (`agent(...)`): defaults `[]`/`{}`/`null` for missing fields. */
export type CreateAgentFn = (init?: AgentInit) => Agent;

/**
 * `start(agent, chat?)` (§1.2): without `chat`, `currentChat` = a new array of
 * the same message objects as `startChat`; with `chat`, that array itself.
 * Returns `currentChat`.
 */
export type StartFn = (agent: Agent, chat?: Message[]) => Message[];

/** `ask(agent, messages = currentChat, options)` (§1.3/§1.4): inference, nothing appended. */
export type AskFn = (
  agent: Agent,
  messages?: Message[] | null,
  options?: AgentCallOptions,
) => Promise<AgentReply>;

/** `chat(agent, options)`: `ask` on `currentChat`, the new messages appended to it. */
export type ChatFn = (agent: Agent, options?: AgentCallOptions) => Promise<AgentReply>;

/** `respond(agent, options)`: `ask(currentChat)`, nothing appended. */
export type RespondFn = (agent: Agent, options?: AgentCallOptions) => Promise<AgentReply>;

/**
 * `prompt(agent, textOrMessages, options)`: a string is parsed **as chat
 * syntax** (never pass model-generated text, §3.6), prefixed with `startChat`
 * (not `currentChat`), then `ask`.
 */
export type PromptFn = (
  agent: Agent,
  input: string | Message[],
  options?: AgentCallOptions,
) => Promise<AgentReply>;

/** `json(agent, options)`: `format: json`, `chat`, format reset, the answer parsed (§1.3). */
export type JsonFn = (agent: Agent, options?: AgentCallOptions) => Promise<unknown>;

/** `jsonFormat(agent, schema, options)`: structured output with a JSON schema (§1.3). */
export type JsonFormatFn = (
  agent: Agent,
  schema: Record<string, unknown>,
  options?: AgentCallOptions,
) => Promise<unknown>;

/**
 * `iterate(agent, prompt, fn, options)`: asks for a list of strings with
 * structured output on the *current* endpoint ([TS-FIX] §7.6) and calls `fn`
 * per item; returns the items.
 */
export type IterateFn = (
  agent: Agent,
  prompt: string | null | undefined,
  fn: (item: string, index: number) => unknown,
  options?: AgentCallOptions,
) => Promise<string[]>;

/** Options of {@link IterateDictionaryFn}. */
export type IterateDictionaryOptions = AgentCallOptions & {
  /** Run `fn` for all entries concurrently (default false: in order). */
  parallel?: boolean;
};

/** `iterateDictionary(agent, prompt, fn, options)`: a string → string map, `fn` per entry. */
export type IterateDictionaryFn = (
  agent: Agent,
  prompt: string | null | undefined,
  fn: (key: string, value: string) => unknown,
  options?: IterateDictionaryOptions,
) => Promise<Record<string, string>>;

/**
 * `socialize(agent, options)` (§3.1, implemented by `socialize.ts`): registers
 * the `ask` tool in `agent.options.tools`. The direct route calls it when the
 * last `socialize:` message is true.
 */
export type SocializeFn = (agent: Agent, options?: AgentOptions) => void | Promise<void>;

/** Options of {@link LoadAgentFn}. */
export interface LoadAgentOptions {
  /**
   * Agent options (CLI `-e`/`-m` go here): they win over the option lines of
   * the agent's start chat ([TS-FIX] §7.5) and lose to call options.
   */
  options?: AgentOptions;
  /** Runtime hooks for the agent's inferences (env and cwd also drive the search). */
  runtime?: AgentRuntime;
  /** Working directory (search root `./`; default `runtime.cwd` or `process.cwd()`). */
  cwd?: string;
  /** Environment (`SCOUT_HOME`, `SCOUT_AGENT_PATH`; default `runtime.env` or `process.env`). */
  env?: Record<string, string | undefined>;
  /**
   * Warnings (Ruby-only directories, an empty agent directory, the start
   * chat's unscoped `config:` lines, knowledge bases), each once per sink;
   * default `runtime.warn`, else the enclosing `withWarningSink`, the
   * process-wide sink, or stderr.
   */
  warn?: (message: string) => void;
}

/**
 * `loadAgent(nameOrPath, options)` (§2.2/§2.3): finds `Agent/<Name>/…` (or a
 * path), loads `start_chat`, `workflow.ts`, runs `agent.ts`, and returns a
 * fresh agent (definitions cached by resolved directory, §7.17).
 */
export type LoadAgentFn = (nameOrPath: string, options?: LoadAgentOptions) => Promise<Agent>;

/** Options of {@link DelegateFn}. */
export interface DelegateOptions {
  /** Tool name (default `hand_off_to_<name>`). */
  toolName?: string;
  /** Custom handler, called with `(toolName, params)`; its result is the tool's result. */
  handler?: ToolFunction;
}

/** `delegate(caller, agent, name, description, options?)` (§3.5). */
export type DelegateFn = (
  caller: Agent,
  agent: Agent,
  name: string,
  description: string,
  options?: DelegateOptions,
) => void;
