/**
 * Tool-call pairing (`provenance.md` §7): `function_call`/`mcp_call` messages
 * matched to their `function_call_output` by call id, with both addresses
 * kept. Interpreting success is a separate policy ({@link toolCallStatus}).
 * Call ids are scoped to one chat.
 *
 * @module
 */
import type { Message } from "./types.ts";
import { toInt } from "./meta.ts";
import { type MessageAddress, messageAddress } from "./lineage.ts";

type JsonObject = Record<string, unknown>;

/** A tool call and (when found) its output. */
export interface ToolCall {
  /** `id ?? call_id ?? tool_call_id` of the call, as a string (null when absent). */
  callId: string | null;
  /** `name ?? function.name`. */
  name: string | null;
  /** `arguments ?? function.arguments`. */
  arguments: unknown;
  /** Role of the call message (`function_call` or `mcp_call`). */
  role: string;
  /** Address of the call message. */
  callAddress: MessageAddress;
  /** Position of the call message. */
  callIndex: number;
  /** The call's parsed content. */
  callInfo: Record<string, unknown>;
  /** Address of the paired output, or null. */
  outputAddress: MessageAddress | null;
  /** Position of the paired output, or null. */
  outputIndex: number | null;
  /** The output's parsed content (the envelope), or null. */
  outputInfo: Record<string, unknown> | null;
  /** `outputInfo.content` (undefined without an output). */
  output: unknown;
}

/** How a tool call ended. */
export interface ToolCallStatus {
  /** true, false, or null when there is no output. */
  success: boolean | null;
  /** Which rule decided. */
  reason: "missing_output" | "exception" | "exit_status" | "output";
  /** The exception, when `reason` is `exception`. */
  exception?: unknown;
  /** The exit status as an integer (Ruby's `to_i`: `"0"` → 0, `"3abc"` → 3, `"x"` → 0), when `reason` is `exit_status`. */
  exitStatus?: number;
}

/**
 * The content of a message as a JSON object: an object as is, a string that
 * parses to an object, else null.
 *
 * @param content message content
 * @returns the object or null
 */
export function contentObject(content: unknown): Record<string, unknown> | null {
  let v = content;
  if (typeof v === "string") {
    const s = v.trimStart();
    if (!s.startsWith("{")) return null;
    try {
      v = JSON.parse(s);
    } catch {
      return null;
    }
  }
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v as JsonObject : null;
}

/**
 * The call id of a parsed call or output: `id ?? call_id ?? tool_call_id`, as a string.
 *
 * @param obj the parsed content
 * @returns the id or null
 */
export function callIdOf(obj: Record<string, unknown>): string | null {
  return idOf(obj);
}

function idOf(obj: JsonObject): string | null {
  const v = obj.id ?? obj.call_id ?? obj.tool_call_id;
  return v === undefined || v === null ? null : String(v);
}

function fn(obj: JsonObject): JsonObject | null {
  const f = obj.function;
  return f !== null && typeof f === "object" && !Array.isArray(f) ? f as JsonObject : null;
}

const CALL_ROLES = new Set(["function_call", "mcp_call"]);

/**
 * Pairs tool calls with their outputs (`provenance.md` §7). Only
 * `function_call`, `mcp_call` and `function_call_output` messages whose
 * content is a JSON object count. Each call, in order, takes the first
 * unpaired output with its id (which may come earlier); extra outputs are
 * ignored.
 *
 * @param messages the chat
 * @param source canonical path of the chat (addresses include it)
 * @param select when given, only the messages it accepts are considered (a
 *   caller interested in some call ids can skip parsing the rest)
 * @returns one record per call, in call order
 *
 * @example
 * ```ts
 * import { toolCalls } from "./tool_calls.ts";
 * const calls = toolCalls([
 *   { role: "function_call", content: '{"name":"ls","arguments":{},"id":"c1"}' },
 *   { role: "function_call_output", content: '{"name":"ls","content":"a b","id":"c1"}' },
 * ]);
 * calls[0]!.output; // "a b"
 * ```
 */
export function toolCalls(
  messages: readonly Message[],
  source?: string | null,
  select?: (message: Message, index: number) => boolean,
): ToolCall[] {
  return pairToolCalls(
    messages,
    source,
    (m, i) => select !== undefined && !select(m, i) ? null : contentObject(m.content),
  );
}

/**
 * {@link toolCalls} with the content reader given: `contentOf` returns a
 * call or output message's parsed object, or null to leave the message out.
 * A caller that has already parsed some messages hands them back instead of
 * parsing them again.
 *
 * @param messages the chat
 * @param source canonical path of the chat (addresses include it)
 * @param contentOf parsed content of a call/output message, or null to skip it
 * @returns one record per call, in call order
 */
export function pairToolCalls(
  messages: readonly Message[],
  source: string | null | undefined,
  contentOf: (message: Message, index: number) => Record<string, unknown> | null,
): ToolCall[] {
  const calls: { index: number; obj: JsonObject; role: string }[] = [];
  const outputs = new Map<string, { index: number; obj: JsonObject; used: boolean }[]>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const role = String(m.role);
    const isCall = CALL_ROLES.has(role);
    if (!isCall && role !== "function_call_output") continue;
    const obj = contentOf(m, i);
    if (obj === null) continue;
    if (isCall) {
      calls.push({ index: i, obj, role });
    } else {
      const id = idOf(obj);
      if (id === null) continue;
      let list = outputs.get(id);
      if (list === undefined) outputs.set(id, list = []);
      list.push({ index: i, obj, used: false });
    }
  }
  return calls.map(({ index, obj, role }) => {
    const callId = idOf(obj);
    const out = callId === null ? undefined : outputs.get(callId)?.find((o) => !o.used);
    if (out !== undefined) out.used = true;
    const f = fn(obj);
    const name = obj.name ?? f?.name;
    return {
      callId,
      name: name === undefined || name === null ? null : String(name),
      arguments: obj.arguments ?? f?.arguments,
      role,
      callAddress: messageAddress(source, index),
      callIndex: index,
      callInfo: obj,
      outputAddress: out === undefined ? null : messageAddress(source, out.index),
      outputIndex: out === undefined ? null : out.index,
      outputInfo: out === undefined ? null : out.obj,
      output: out === undefined ? undefined : out.obj.content,
    };
  });
}

/**
 * The common success policy for a paired call: no output → `null`; a truthy
 * `exception` in the content → false; an `exit_status` key → whether it is 0;
 * otherwise true. The envelope's `error` field is ignored (a truncated result
 * already carries an `exception`).
 *
 * @param call a record of {@link toolCalls}
 * @returns success and the rule that decided it
 */
export function toolCallStatus(call: Pick<ToolCall, "outputInfo" | "output">): ToolCallStatus {
  if (call.outputInfo === null) return { success: null, reason: "missing_output" };
  let content = call.output;
  if (typeof content === "string") {
    try {
      content = JSON.parse(content);
    } catch { /* plain text output */ }
  }
  if (content !== null && typeof content === "object" && !Array.isArray(content)) {
    const o = content as JsonObject;
    if (o.exception) return { success: false, reason: "exception", exception: o.exception };
    if ("exit_status" in o) {
      const status = toInt(o.exit_status); // Ruby: parsed['exit_status'].to_i
      return { success: status === 0, reason: "exit_status", exitStatus: status };
    }
  }
  return { success: true, reason: "output" };
}
