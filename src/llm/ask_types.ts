/**
 * The data of an ask: its runtime hooks ({@link AskRuntime}), its options and
 * result, and the option keys and roles the stages tell apart.
 *
 * @module
 */
import type { Message } from "../chat/types.ts";
import type { OptionLine } from "../chat/written_at.ts";
import type { ConfigStore } from "../config/store.ts";
import type { SpecialistRunner } from "../tools/agent_results.ts";
import type { ToolResolver } from "../tools/assemble.ts";
import type { ToolsInput } from "../tools/registry.ts";
import type { ToolFunction } from "../tools/types.ts";
import type { AskEvent } from "./ask_loop_types.ts";
import type { Session } from "./meta_record.ts";

/** Runtime hooks of an ask: never sent to a provider, never part of the cache key. */
export interface AskRuntime {
  /** Environment (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Config store (default: `$SCOUT_HOME/etc/config`). */
  config?: ConfigStore;
  /** Working directory (endpoint files in `./etc/AI`, `format:` files). */
  cwd?: string;
  /** The chat file the messages come from (`format:` files next to it). */
  origin?: string;
  /**
   * Where option lines taken out of a chat before the ask were written (a
   * `-c` chat's, an agent's start chat's, as `extractOptions` reports them):
   * an error about a value still in use (`endpoint: missing`) names its line.
   */
  optionLines?: Record<string, OptionLine>;
  /** HTTP client for every backend (default: the global `fetch`; under Bun, its closable session: `util/http_client.ts`). */
  fetch?: typeof fetch;
  /** Aborts the ask. */
  signal?: AbortSignal;
  /** Stream answer text as `text` events. */
  stream?: boolean;
  /** Progress events (text deltas, rounds, retries, tools, cache). */
  onEvent?: (e: AskEvent) => void;
  /**
   * Warnings: the ask's own (retries, cache problems…) and what the config
   * and chat layers find in a file during it (an `etc/config` entry no lookup
   * reads), each of the latter once per sink. Default: the enclosing
   * `withWarningSink`, else the process-wide sink, else stderr with the
   * `scout-ai: warning:` prefix.
   */
  warn?: (message: string) => void;
  /** Session totals for `_s` (default: one per process). */
  session?: Session;
  /** Fallback tool handler for names without implementation. */
  handler?: ToolFunction;
  /**
   * Resolves `tool:`/`introduce:`/`mcp:`… directives (default: workflows by
   * name, registered or found in `./workflows` and `$SCOUT_HOME/workflows`).
   */
  toolResolver?: ToolResolver;
  /**
   * Awaited once before the default resolver may load workflow files (`tool:`
   * and `introduce:` lines): a higher layer loads what it adds to the API
   * workflow files receive (the CLI loads the agent layer for `api.chatTask`).
   */
  prepareWorkflows?: () => Promise<unknown>;
  /** Use the inference cache (default true; `persist: false` also turns it off). */
  cache?: boolean;
  /**
   * Return before the cache entries this ask wrote behind are on disk: the
   * caller settles them (its own ask's end does, or `settleCacheWrites`).
   * The agent layer sets it for specialists, whose stores then overlap the
   * caller's next request.
   */
  deferCacheWrites?: boolean;
  /**
   * Offline replay: every inference must come from the inference cache; a
   * miss throws `not_cached` instead of calling the provider (also
   * `SCOUT_OFFLINE=1`). Turns the cache on even under `persist: false`.
   */
  offline?: boolean;
  /**
   * Runs the specialists that tools return as `{agent}` (`agents.md` §3.2);
   * supplied by the agent layer, so `llm/` never imports `agent/`.
   */
  runSpecialists?: SpecialistRunner;
  /**
   * Delegates to an agent when the chat names one (`agent:`): the agent's
   * name, the chat (option lines taken out), the ask's options as given
   * (`persist` among them), and the ask's runtime the agent runs with
   * (`delegatedRuntime`: signal, env, cwd, cache, offline, fetch, warn…;
   * `cache: false` when `persist` is off) — the agent layer is above `llm/`,
   * so the ask hands it what it needs.
   */
  delegate?: (
    agent: string,
    messages: Message[],
    options: Record<string, unknown>,
    runtime?: AskRuntime,
  ) => Promise<AskResult>;
  /** Clock (tests). */
  now?: () => Date;
  /** Inference id source (tests). */
  newId?: () => string;
  /** Retry sleep (tests). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * Whose ask this is (the agent layer sets it): written into a failure
   * snapshot's `.options.json` as `asked_by`, so a snapshot says which
   * agent, conversation, caller and job it belongs to.
   */
  asker?: Asker;
}

/** Whose ask an ask is: names only, never a credential. */
export interface Asker {
  /** The asking agent's name. */
  agent: string;
  /** Its conversation in its caller's society (`facts`, `_oneshot-1`), when a specialist. */
  conversation?: string;
  /** The agent that asked it, when a specialist. */
  caller?: string;
  /** The job it works in (`Workflow/task/name`), when one. */
  job?: string;
}

/** Options of {@link ask}: runtime hooks, `tools`, and any chat-level option. */
export type AskOptions = AskRuntime & {
  /** Tools (registry, `{name: [impl, definition]}`, definitions…). */
  tools?: ToolsInput;
  /** Any other option: `endpoint`, `model`, `backend`, `persist`, `format`, provider parameters… */
  [option: string]: unknown;
};

/** What an ask produced. */
export interface AskResult {
  /** New messages: `[meta, fc, fco, …, meta, assistant, previous_response_id?]`. */
  messages: Message[];
  /** The answer text (`""` when the last message is not an assistant one). */
  text: string;
  /**
   * True when no provider request was made for the answer: every round was
   * replayed from the inference cache, and so were the inferences of the
   * specialists it ran (their recorded usage stays in `messages`).
   */
  cached: boolean;
  /** Endpoint used, or null. */
  endpoint: string | null;
  /** Backend used. */
  backend: string;
  /** Model used. */
  model: string;
}

/** Option keys that configure the run (I/O, hooks, cache), never the model request. */
export const RUNTIME_KEYS: ReadonlySet<string> = new Set([
  "env",
  "config",
  "cwd",
  "origin",
  "optionLines",
  "fetch",
  "signal",
  "stream",
  "onEvent",
  "warn",
  "session",
  "handler",
  "toolResolver",
  "prepareWorkflows",
  "cache",
  "deferCacheWrites",
  "offline",
  "runSpecialists",
  "delegate",
  "now",
  "newId",
  "sleep",
  "asker",
  "tools",
]);

/** Roles `compile` resolves: their presence means the messages were not compiled. */
export const COMPILE_ROLES: ReadonlySet<string> = new Set([
  "import",
  "continue",
  "last",
  "file",
  "directory",
  "task",
  "inline_task",
  "exec_task",
  "job",
  "inline_job",
  "step",
  "clear",
  "clean_role",
  "clear_role",
  "config",
]);
