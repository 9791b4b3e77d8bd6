/**
 * Tool calls (`inference.md` §5.1): parsing a provider's call record or a
 * `function_call` message into `{name, arguments, id}`.
 *
 * @module
 */
import { ScoutError } from "../errors.ts";
import type { ToolInvocation } from "./types.ts";
import { clipEnd } from "../util/clip.ts";

/**
 * Parses JSON arguments: objects pass through; strings are JSON-parsed (an
 * invalid string, or one whose JSON is a string, is kept as is so the caller
 * can report it); null/undefined and `""` become `{}`. A JSON value that is
 * not an object (`[1]`, `42`, `null`) is returned as parsed: dispatch
 * answers it with an error (R88-6).
 *
 * @param raw the arguments as received
 * @returns the parsed value, or the raw string when it is not JSON or is a JSON string
 */
export function parseArguments(raw: unknown): unknown {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== "string") return raw;
  if (raw.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === "string" ? raw : value;
  } catch {
    return raw;
  }
}

/**
 * The id of a call record or output envelope: `call_id` → `id` →
 * `tool_call_id`, as a string (undefined when absent or empty).
 *
 * @param record a call record, `function_call` content or output envelope
 * @returns the id, or undefined
 */
export function callIdOf(record: Record<string, unknown>): string | undefined {
  const id = record.call_id ?? record.id ?? record.tool_call_id;
  return id === undefined || id === null || id === "" ? undefined : String(id);
}

/**
 * Parses one call record: id = `call_id` → `id` → `tool_call_id`; name =
 * `name` → `function.name`; arguments = `arguments` → `function.arguments`
 * (strings JSON-parsed).
 *
 * @param record a provider call object or parsed `function_call` content
 * @returns the call
 * @throws ScoutError `provider_response` when the record has no id or no name
 *
 * @example
 * ```ts
 * import { parseToolCall } from "./calls.ts";
 * parseToolCall({ id: "c1", function: { name: "f", arguments: '{"a":1}' } });
 * // {name: "f", arguments: {a: 1}, id: "c1"}
 * ```
 */
export function parseToolCall(record: Record<string, unknown>): ToolInvocation {
  const { name, arguments: args, id } = callFields(record);
  if (typeof name !== "string" || name === "") {
    throw new ScoutError("provider_response", `Tool call without a name: ${short(record)}`);
  }
  if (id === undefined) {
    throw new ScoutError("provider_response", `Tool call "${name}" has no id`);
  }
  return { name, arguments: args, id };
}

/**
 * The fields of a call record, unchecked (see {@link parseToolCall} for the
 * lookup order): the name as found, the parsed arguments, the id if any.
 *
 * @param record a provider call object or parsed `function_call` content
 * @returns name, arguments and id
 */
export function callFields(
  record: Record<string, unknown>,
): { name: unknown; arguments: unknown; id: string | undefined } {
  const fn = (typeof record.function === "object" && record.function !== null)
    ? record.function as Record<string, unknown>
    : {};
  const args = "arguments" in record ? record.arguments : fn.arguments;
  return { name: record.name ?? fn.name, arguments: parseArguments(args), id: callIdOf(record) };
}

function short(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return clipEnd(s, 200);
}

/**
 * The JSON content of a `function_call` message (§5.5): `{"name","arguments","id"}`
 * in this key order, with the model's arguments (pinned values not merged).
 *
 * @param call the call
 * @returns JSON text
 */
export function functionCallContent(call: ToolInvocation): string {
  return JSON.stringify({ name: call.name, arguments: call.arguments, id: call.id });
}
