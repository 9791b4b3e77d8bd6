/**
 * Message identity (`provenance.md` §5): the **address** says where a message
 * is persisted (`[path, index]`, or just `index` without a source path); the
 * **lineage id** says which conversational content it is. Copied history
 * shares lineage ids; adding or removing `meta` messages never changes the
 * ids of conversational messages (meta is not provider input).
 *
 * @module
 */
import type { Message } from "./types.ts";
import { type MetaRecord, parseMeta } from "./meta.ts";
import { sha256hex } from "../util/hash.ts";
import {
  codePointLength,
  offsetAfterCodePoints,
  offsetOfLastCodePoints,
} from "../util/code_points.ts";

/** Where a message is persisted: `[path, index]`, or `index` when there is no source path. */
export type MessageAddress = [string, number] | number;

/**
 * Where a receipt entry is persisted: `[path, index, "agent_meta", i]`, or
 * `[index, "agent_meta", i]` without a source path.
 */
export type ReceiptAddress = [string, number, "agent_meta", number] | [
  number,
  "agent_meta",
  number,
];

/** One entry of {@link messageIndex}. */
export interface MessageIndexEntry {
  /** Lineage id: `H(prev, role, content)`. */
  id: string;
  /** Role of the message. */
  role: string;
  /** Lineage id of the nearest earlier non-meta message (null at the start). */
  prev: string | null;
  /** Display preview of the content (long content is cut in the middle). */
  fingerprint: string;
  /** Where the message is: `[source, index]`, or `index` without a source. */
  address: MessageAddress;
  /** Position in the message list. */
  index: number;
  /** Parsed meta record (meta messages only). */
  meta?: MetaRecord;
}

/**
 * The address of message `index` of a chat persisted at `source`.
 *
 * @param source canonical chat path, or null/undefined for an in-memory chat
 * @param index message position
 * @returns `[source, index]`, or `index` without a source
 */
export function messageAddress(source: string | null | undefined, index: number): MessageAddress {
  return source === null || source === undefined ? index : [source, index];
}

/**
 * The address of receipt entry `i` of the output at `outputAddress`.
 *
 * @param outputAddress address of the `function_call_output` message
 * @param i position in its `agent_meta` array
 * @returns `[...outputAddress, "agent_meta", i]`
 */
export function receiptAddress(outputAddress: MessageAddress, i: number): ReceiptAddress {
  return typeof outputAddress === "number"
    ? [outputAddress, "agent_meta", i]
    : [outputAddress[0], outputAddress[1], "agent_meta", i];
}

/**
 * The lineage id of a message: the sha256 of its predecessor's id, its role
 * and its content, framed so that no two different triples hash the same
 * (`<prev length>:<prev>` or `-`, `\n<role length>:<role>\n`, then `s` + the
 * string content or `j` + the JSON of non-string content). Depends on nothing else (no path, index,
 * cwd or file system), so identical history gives identical ids on any
 * machine. Content is hashed as is, never as the file it may name (Ruby
 * replaces content naming an existing file by that file's digest,
 * `provenance.md` §12 #7). Hashing the content directly, rather than a JSON
 * array holding it, avoids copying every message of a long chat.
 *
 * @param prev lineage id of the previous non-meta message, or null
 * @param role message role
 * @param content message content
 * @returns 64 hex characters
 *
 * @example
 * ```ts
 * import { lineageId } from "./lineage.ts";
 * lineageId(null, "user", "hi") === lineageId(null, "user", "hi"); // true
 * ```
 */
export function lineageId(prev: string | null, role: string, content: unknown): string {
  const head = `${prev === null ? "-" : `${prev.length}:${prev}`}\n${role.length}:${role}\n`;
  return sha256hex(
    typeof content === "string"
      ? `${head}s${content}`
      : `${head}j${JSON.stringify(content === undefined ? null : content) ?? "null"}`,
  );
}

const FINGERPRINT_MAX = 150;
const FINGERPRINT_HEAD = 100;
const FINGERPRINT_TAIL = 30;

/**
 * A display preview of message content: content up to 150 characters as is,
 * longer content as head + `<...LEN - d5...>` + tail, where LEN is the length
 * and d5 the first 5 hex digits of its sha256. Characters are code points
 * (Ruby's `String#length`), so head and tail never end on half of an
 * emoji's surrogate pair (R151-7).
 *
 * @param content message content (non-strings as JSON; `null`/absent content
 *   is the empty string, as Ruby's `nil.to_s`)
 * @returns the preview
 */
export function fingerprint(content: unknown): string {
  if (content === null || content === undefined) return "";
  const s = typeof content === "string" ? content : JSON.stringify(content) ?? "";
  if (s.length <= FINGERPRINT_MAX) return s; // UTF-16 length ≥ code points
  const length = codePointLength(s);
  if (length <= FINGERPRINT_MAX) return s;
  return s.slice(0, offsetAfterCodePoints(s, FINGERPRINT_HEAD)) +
    `<...${length} - ${sha256hex(s).slice(0, 5)}...>` +
    s.slice(offsetOfLastCodePoints(s, FINGERPRINT_TAIL));
}

/**
 * Indexes a chat's messages by lineage (`provenance.md` §5): one entry per
 * message with its lineage id, its predecessor's id, a preview and its
 * address. Meta messages get an id too (and their parsed record) but never
 * become `prev`.
 *
 * @param messages the chat
 * @param source canonical path the chat was read from (addresses include it)
 * @returns one entry per message, in order
 *
 * @example
 * ```ts
 * import { messageIndex } from "./lineage.ts";
 * const idx = messageIndex([
 *   { role: "user", content: "hi" },
 *   { role: "meta", content: "pt=1 tt=2" },
 *   { role: "assistant", content: "hello" },
 * ], "/w/a.chat");
 * idx[2]!.prev === idx[0]!.id; // true: the meta is skipped
 * idx[1]!.address; // ["/w/a.chat", 1]
 * ```
 */
export function messageIndex(
  messages: readonly Message[],
  source?: string | null,
): MessageIndexEntry[] {
  const ids = lineageIds(messages);
  let prev: string | null = null;
  return messages.map((m, i) => {
    const role = String(m.role);
    const entry: MessageIndexEntry = {
      id: ids[i]!,
      role,
      prev,
      fingerprint: fingerprint(m.content),
      address: messageAddress(source, i),
      index: i,
    };
    if (role === "meta") entry.meta = typeof m.content === "string" ? parseMeta(m.content) : {};
    else prev = ids[i]!;
    return entry;
  });
}

/**
 * Just the lineage ids of a chat's messages (what {@link messageIndex}
 * computes, without previews or addresses). An id depends only on the
 * messages before it, so `count` stops early when only the first ones are
 * needed.
 *
 * @param messages the chat
 * @param count how many leading messages need ids (default all)
 * @returns one id per message, for the first `count` messages
 */
export function lineageIds(messages: readonly Message[], count = messages.length): string[] {
  const n = Math.min(count, messages.length);
  const out: string[] = new Array(n);
  let prev: string | null = null;
  for (let i = 0; i < n; i++) {
    const m = messages[i]!;
    const role = String(m.role);
    const id = lineageId(prev, role, m.content);
    out[i] = id;
    if (role !== "meta") prev = id;
  }
  return out;
}
