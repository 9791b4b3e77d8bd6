/**
 * Tool data types (`inference.md` §2.3, §5): definitions as sent to a model,
 * implementations, registry entries and parsed calls. Plain data only.
 *
 * @module
 */
import type { Message } from "../chat/types.ts";

/** A JSON Schema object (the subset tool definitions use; extra keys allowed). */
export interface JsonSchema {
  /** JSON type name (`object`, `string`, …). */
  type?: string | string[];
  /** Human description. */
  description?: string;
  /** Object properties. */
  properties?: Record<string, JsonSchema>;
  /** Required property names. */
  required?: string[];
  /** Array items. */
  items?: JsonSchema;
  /** Allowed values. */
  enum?: unknown[];
  /** Further keywords. */
  [keyword: string]: unknown;
}

/** Parameters of a function tool: a JSON Schema plus pinned values (§5.3). */
export interface ToolParameters extends JsonSchema {
  /**
   * Pinned argument values (from `tool:` lines): hidden from the provider and
   * merged over the model's arguments at call time.
   */
  defaults?: Record<string, unknown>;
}

/** The function part of a function-tool definition. */
export interface FunctionSpec {
  /** Tool name the model calls. */
  name: string;
  /** What the tool does (default `""`). */
  description?: string;
  /** Argument schema. */
  parameters?: ToolParameters;
}

/** A function tool definition in the internal (Chat Completions) shape. */
export interface FunctionToolDefinition {
  /** Always `function`. */
  type: "function";
  /** The function. */
  function: FunctionSpec;
}

/** A hosted tool, passed to the provider as is (e.g. `{type: "web_search_preview"}`). */
export interface HostedToolDefinition {
  /** Provider tool type. */
  type: string;
  /** Provider-specific fields. */
  [field: string]: unknown;
}

/** Any tool definition. */
export type ToolDefinition = FunctionToolDefinition | HostedToolDefinition;

/** What a tool implementation receives besides its arguments. */
export interface ToolCallContext {
  /** The call id. */
  id: string;
  /** Aborts with the ask. */
  signal?: AbortSignal;
  /** Told the progress of the call (a workflow job's statuses), when someone listens. */
  onProgress?: (message: string) => void;
}

/**
 * A tool implementation: called with the tool name and the merged arguments.
 * The returned value becomes the output content (§5.4); return
 * {@link toolOutput} to set envelope fields (`step`, `error`, …).
 */
export type ToolFunction = (
  name: string,
  args: Record<string, unknown>,
  ctx: ToolCallContext,
) => unknown;

/** One registry entry: a definition and (usually) its implementation. */
export interface ToolEntry {
  /** Definition sent to the model. */
  definition: ToolDefinition;
  /** Implementation; absent for hosted tools and definition-only entries. */
  impl?: ToolFunction;
  /** Optional validator of arguments (returns problems; empty = valid). */
  validate?: (args: Record<string, unknown>) => string[];
  /**
   * Calls of this tool may run while the rest of the batch goes on (workflow
   * jobs of one batch are produced together); other calls run one at a time.
   */
  concurrent?: boolean;
}

/** Tools by name (later entries win when merging). */
export type ToolRegistry = Map<string, ToolEntry>;

/** Marker of {@link ToolOutput} values. */
export const TOOL_OUTPUT: unique symbol = Symbol.for("scout-ai.tool-output");

/** A tool result with envelope fields (workflow jobs, agents). */
export interface ToolOutput {
  /** Brand. */
  [TOOL_OUTPUT]: true;
  /** Output content (strings as is; anything else JSON). */
  content: unknown;
  /** `error` or `truncated`. */
  error?: "error" | "truncated";
  /** Stack lines for errors. */
  stack?: string[];
  /** Receipts of a delegated agent's inferences. */
  agent_meta?: Message[];
  /** The delegated conversation, when the call does not name it (a one-shot clone's). */
  conversation?: string;
  /** The delegated agent, when the call does not name it (a custom tool's specialist). */
  agent?: string;
  /** Job short path (`Workflow/task/name`). */
  step?: string;
  /** Persisted path used in truncation notices. */
  path?: string;
}

/**
 * Builds a {@link ToolOutput}.
 *
 * @param fields content and envelope fields
 * @returns the branded output
 */
export function toolOutput(fields: Omit<ToolOutput, typeof TOOL_OUTPUT>): ToolOutput {
  return { [TOOL_OUTPUT]: true, ...fields };
}

/**
 * Whether `v` is a {@link ToolOutput}.
 *
 * @param v any value
 * @returns true for branded outputs
 */
export function isToolOutput(v: unknown): v is ToolOutput {
  return typeof v === "object" && v !== null &&
    (v as Record<symbol, unknown>)[TOOL_OUTPUT] === true;
}

/** A call parsed from a provider response or a `function_call` message (§5.1). */
export interface ToolInvocation {
  /** Tool name. */
  name: string;
  /** Arguments: an object, or the raw string when it was not valid JSON. */
  arguments: unknown;
  /** Call id. */
  id: string;
}
