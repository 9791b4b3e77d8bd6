/**
 * What the strategies need to know about `function_call` /
 * `function_call_output` messages (`inference.md` §0: content is a JSON
 * string `{name, arguments, id}` / `{name?, content, id}`): parsing, sizes in
 * code points, compaction of one message, the repeated-call key, and the
 * call ↔ output pairing.
 *
 * Facts derived from a message are memoised per message object (a
 * `WeakMap`, validated against the content string), because the tool loop
 * hands the same message objects to the strategy on every round: a round
 * then costs a lookup per message instead of a JSON parse of every output.
 * Nothing is ever written to the messages themselves.
 *
 * @module
 */
import type { Message } from "../chat/types.ts";
import { codePointLength, shortenString } from "./shorten_string.ts";
import { canonicalJson } from "../util/canonical_json.ts";
import { setOwn } from "../util/own_record.ts";

/** Role of a tool call message. */
export const CALL = "function_call";
/** Role of a tool output message. */
export const OUTPUT = "function_call_output";

/** Truncation size of a call's string arguments (`DEFAULT_SHORT_STRING_LENGTH`). */
export const ARGUMENT_MAX = 200;
/** Truncation size of an output's content (`2 × DEFAULT_SHORT_STRING_LENGTH`). */
export const OUTPUT_MAX = 400;

/** The parsed facts of one tool message whose content is a JSON object string. */
export interface ToolMessageInfo {
  /** The content string these facts were derived from (cache validation). */
  source: string;
  /** The parsed JSON object. Never mutated. */
  json: Record<string, unknown>;
  /** Its `id` field (any JSON value, or undefined). */
  id: unknown;
  /** Length of the content string in code points. */
  chars: number;
  /** Repeated-call key, computed on first use (calls only). */
  key?: string;
  /** Compacted content (`null` = compaction changes nothing), computed on first use. */
  compacted?: string | null;
  /** Length of {@link ToolMessageInfo.compacted} in code points. */
  compactedChars?: number;
}

const infoCache = new WeakMap<object, { source: string; info: ToolMessageInfo | null }>();

/**
 * Parses a tool message's content, memoised per message object.
 * Returns null when the content is not a string, not JSON, or not a JSON
 * object: such messages are kept unchanged and count for nothing (the
 * spec's [TS-FIX] robustness rule; Ruby raises).
 *
 * @param m a `function_call` or `function_call_output` message
 * @returns the facts, or null when unusable
 */
export function toolInfo(m: Message): ToolMessageInfo | null {
  const content = m.content;
  if (typeof content !== "string") return null;
  const cached = infoCache.get(m);
  if (cached !== undefined && cached.source === content) return cached.info;
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch {
    json = undefined;
  }
  let info: ToolMessageInfo | null = null;
  if (json !== null && typeof json === "object" && !Array.isArray(json)) {
    const obj = json as Record<string, unknown>;
    info = { source: content, json: obj, id: obj.id, chars: -1 };
  }
  infoCache.set(m, { source: content, info });
  return info;
}

/**
 * Length in code points of a tool message's content string (memoised).
 *
 * @param info facts of the message
 * @returns code points of the JSON text as stored
 */
export function contentChars(info: ToolMessageInfo): number {
  if (info.chars < 0) info.chars = codePointLength(info.source);
  return info.chars;
}

/**
 * The compacted JSON text of a tool message (memoised): an output's string
 * `content` shortened to {@link OUTPUT_MAX}, or each top-level string
 * argument of a call shortened to {@link ARGUMENT_MAX}; re-serialized as
 * compact JSON, key order preserved. Null when nothing changes: no
 * `arguments`, non-object `arguments`, non-string `content`, or all values
 * already short enough.
 *
 * @param role `function_call` or `function_call_output`
 * @param info facts of the message
 * @returns the new content, or null to keep the original
 */
export function compactedContent(role: string, info: ToolMessageInfo): string | null {
  if (info.compacted !== undefined) return info.compacted;
  let out: string | null = null;
  if (role === OUTPUT) {
    const c = info.json.content;
    if (typeof c === "string") {
      const short = shortenString(c, OUTPUT_MAX);
      if (short !== c) out = JSON.stringify({ ...info.json, content: short });
    }
  } else {
    const args = info.json.arguments;
    if (args !== null && typeof args === "object" && !Array.isArray(args)) {
      let changed = false;
      const next: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(args as Record<string, unknown>)) {
        const nv = typeof v === "string" ? shortenString(v, ARGUMENT_MAX) : v;
        if (nv !== v) changed = true;
        setOwn(next, k, nv); // an argument `__proto__` is one, under Bun too
      }
      if (changed) out = JSON.stringify({ ...info.json, arguments: next });
    }
  }
  info.compacted = out;
  info.compactedChars = out === null ? 0 : codePointLength(out);
  return out;
}

/**
 * A copy of `m` with compacted content, or null when compaction changes
 * nothing (the caller keeps `m` itself).
 *
 * @param m the message
 * @param info its facts
 * @returns a new message, or null
 */
export function compactMessage(m: Message, info: ToolMessageInfo): Message | null {
  const c = compactedContent(m.role, info);
  return c === null ? null : { ...m, content: c };
}

/**
 * The repeated-call key of a call (`name + "\u0000" + canonicalJson(arguments ?? {})`);
 * the model-generated id is deliberately not part of it. Memoised.
 *
 * @param info facts of a `function_call` message
 * @returns the key
 */
export function callKey(info: ToolMessageInfo): string {
  if (info.key === undefined) {
    info.key = `${String(info.json.name)}\u0000${canonicalJson(info.json.arguments ?? {})}`;
  }
  return info.key;
}

/** Pairing of the tool messages of a list (indices into it). */
export interface ToolPairing {
  /** Facts per message index (null for non-tool or unusable messages). */
  infos: (ToolMessageInfo | null)[];
  /** Index of the paired message, or -1. */
  pairOf: Int32Array;
}

/**
 * Pairs each usable call with its output: by `id` (first pending call with
 * that id), else the output right after the call. Unusable messages
 * (see {@link toolInfo}) are never paired.
 *
 * @param messages the list
 * @returns facts and pairs per index
 */
export function pairToolMessages(messages: readonly Message[]): ToolPairing {
  const n = messages.length;
  const infos: (ToolMessageInfo | null)[] = new Array(n).fill(null);
  const pairOf = new Int32Array(n).fill(-1);
  const pending = new Map<unknown, number[]>();
  for (let i = 0; i < n; i++) {
    const m = messages[i]!;
    if (m.role !== CALL && m.role !== OUTPUT) continue;
    const info = toolInfo(m);
    infos[i] = info;
    if (info === null) continue;
    if (m.role === CALL) {
      const q = pending.get(info.id);
      if (q === undefined) pending.set(info.id, [i]);
      else q.push(i);
      continue;
    }
    let call = -1;
    const q = pending.get(info.id);
    while (q !== undefined && q.length > 0) {
      const c = q.shift()!;
      if (pairOf[c] === -1) {
        call = c;
        break;
      }
    }
    if (call === -1 && i > 0 && messages[i - 1]!.role === CALL && infos[i - 1] !== null) {
      if (pairOf[i - 1] === -1) call = i - 1;
    }
    if (call !== -1) {
      pairOf[call] = i;
      pairOf[i] = call;
    }
  }
  return { infos, pairOf };
}
