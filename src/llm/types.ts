/**
 * The provider interface between the ask loop and each backend: what a
 * backend gets for one request, what it returns, and the settings it is built
 * from. Backends are plain records of functions ({@link Backend}).
 *
 * @module
 */
import type { Message } from "../chat/types.ts";
import type { ToolDefinition } from "../tools/types.ts";

/** Where a backend finds its settings when nothing else gives them (§1.4). */
export interface BackendDefaults {
  /** Config scope tag (`openai`, `anthropic`…): scopes `<tag>_ask`, `ask`, `<tag>`. */
  tag: string;
  /** Default model, if the backend has one. */
  model?: string;
  /** Environment variable with the base url. */
  urlEnv?: string;
  /** Environment variables with the key, first set wins. */
  keyEnv: string[];
  /** Environment variables with the model, first set wins. */
  modelEnv: string[];
  /** Default base url (documentation; the adapter applies it). */
  url?: string;
  /**
   * When true a key is required unless a non-default `url` is configured
   * (local servers need none); otherwise keyless requests use `"EMPTY"`.
   */
  keyRequired?: boolean;
  /**
   * Further settings the backend reads (Bedrock's `region`, `access_key`…),
   * each from the options, then the config scopes, then these environment
   * variables (only the environment when `envOnly`). Resolved into
   * {@link ClientSettings.extra}; the option keys must be pipeline keys
   * (`PIPELINE_KEYS`), so they never reach a request body.
   */
  extra?: readonly ExtraSetting[];
}

/** One backend-specific setting (see {@link BackendDefaults.extra}). */
export interface ExtraSetting {
  /** Option and config key. */
  name: string;
  /** Environment variables, first set wins. */
  env?: readonly string[];
  /** Read only from the environment (e.g. `HOME`). */
  envOnly?: boolean;
}

/** Client settings of one ask, resolved from options, config and env. */
export interface ClientSettings {
  /** Backend name. */
  backend: string;
  /** Model name. */
  model: string;
  /** Configured url, if any (adapters derive their base url from it). */
  url?: string;
  /** The key (never logged, cached or written); `"EMPTY"` for keyless servers. */
  key: string;
  /** API version path segment of the OpenAI family (default `v1`). */
  apiVersion: string;
  /** Per-request timeout in milliseconds. */
  timeoutMs: number;
  /** Backend-specific settings ({@link BackendDefaults.extra}); may hold secrets, never written. */
  extra?: Record<string, string>;
}

/** One request to a provider. */
export interface BackendRequest {
  /** Messages to send: compiled, without meta, prompt strategies applied. */
  messages: Message[];
  /** Tool definitions to offer (pinned defaults are stripped by the adapter). */
  tools: ToolDefinition[];
  /** Provider parameters (temperature, tool_choice…): whatever is not a pipeline key. */
  params: Record<string, unknown>;
  /** Responses-style `reasoning` map (§2.5), converted per backend. */
  reasoning?: Record<string, unknown>;
  /** Responses-style `text` map (`{format: …}`, §2.5), converted per backend. */
  text?: Record<string, unknown>;
  /** Responses threading: the id to continue from. */
  previousResponseId?: string;
  /** Stream the answer (deltas go to `QueryContext.onDelta`). */
  stream: boolean;
}

/** What a backend gets besides the request. */
export interface QueryContext {
  /** Resolved client settings (url, key, model, timeout). */
  settings: ClientSettings;
  /** HTTP client (tests and the SDK get the same one). */
  fetch: typeof fetch;
  /** Abort signal of the ask (the timeout is applied by the adapter). */
  signal?: AbortSignal;
  /** Receives streamed answer text. */
  onDelta?: (text: string) => void;
  /**
   * Receives usage known before a stream completes (Anthropic's
   * `message_start` and `message_delta`, Chat Completions' usage chunk before
   * `[DONE]`), so a reply cut short still records what it cost.
   */
  onUsage?: (usage: unknown) => void;
  /** Warnings (unknown output items…). */
  warn?: (message: string) => void;
}

/**
 * A signed reasoning block of a reply, kept verbatim to be sent back with it
 * (Anthropic's form; Bedrock Converse's `reasoningContent` maps to it): a
 * `thinking` block with its `signature`, or a `redacted_thinking` block with
 * its encrypted `data`. Other fields the provider put on the block stay on it.
 */
export type ThinkingBlock =
  | { type: "thinking"; thinking: string; signature: string; [field: string]: unknown }
  | { type: "redacted_thinking"; data: string; [field: string]: unknown };

/**
 * One item of a provider reply, in response order. A text or a call may carry
 * the {@link ThinkingBlock}s that came right before it in a reply with a tool
 * call: they go back to the provider with it, in memory only (`thinking.ts`).
 */
export type ReplyItem =
  | { type: "text"; text: string; thinking?: ThinkingBlock[] }
  | { type: "call"; name: string; arguments: unknown; id: string; thinking?: ThinkingBlock[] }
  | { type: "hosted_call"; name: string; arguments: unknown; id: string; output: string }
  | { type: "message"; message: Message };

/** A processed provider reply. */
export interface BackendReply {
  /** Provider response id, if any. */
  id?: string;
  /** Raw usage block (normalised by `normalizeUsage`). */
  usage?: unknown;
  /** Extracted reasoning text (newlines are turned into spaces in meta). */
  reasoning?: string;
  /** Texts, tool calls and other items in order. */
  items: ReplyItem[];
  /** Set when the provider stopped the reply at its output token limit. */
  truncated?: Truncation;
}

/** Why a reply stopped short: the provider's words, and the parameter that raises the limit. */
export interface Truncation {
  /** The provider's stop reason, as `field=value` (`finish_reason=length`). */
  reason: string;
  /** The request parameter that sets the limit (`max_tokens`). */
  limit: string;
}

/**
 * A backend: its settings defaults and one request. Register custom ones with
 * `registerBackend(name, backend)`.
 */
export interface Backend {
  /** Settings defaults (§1.4). */
  defaults: BackendDefaults;
  /** Whether replies carry a response id the next request can continue from. */
  threading?: boolean;
  /** Sends one request and returns the processed reply. */
  query(request: BackendRequest, ctx: QueryContext): Promise<BackendReply>;
}
