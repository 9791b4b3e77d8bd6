/**
 * The inference cache's keys (`inference.md` §6): `sha256` of the canonical
 * JSON (object keys sorted at every level) of `{v, endpoint, backend, model,
 * params, tools, messages, currentMeta}` — `v` 1 for a whole ask (the earlier
 * format), 2 for a round. The text is built member by member, each message's
 * part remembered while the message is unchanged, and the two keys of one
 * request share the digest of all but `v`; the keys are byte for byte those
 * of `sha256(canonicalJson({ v, ...input }))` (tests/llm/cache_key_test.ts).
 *
 * @module
 */
import { createHash, type Hash } from "node:crypto";
import type { Message } from "../chat/types.ts";
import { canonicalJson } from "../util/canonical_json.ts";
import { hashPieces, hashUpdate, sha256hex } from "../util/hash.ts";

/** Format of the whole-ask entries (`CachedAsk`, `cache.ts`; part of their keys). */
export const CACHE_VERSION = 1;

/** Format of the per-round entries (`CachedRound`; part of their keys). */
export const ROUND_CACHE_VERSION = 2;

/** JSON with object keys sorted at every level: the text a key digests (public in `llm`). */
export { canonicalJson };

/** What identifies an ask. */
export interface CacheKeyInput {
  /** Endpoint name (`""` for none). */
  endpoint: string;
  /** Backend name. */
  backend: string;
  /** Model. */
  model: string;
  /** Provider parameters and shaped maps (no keys, urls or clients). */
  params: unknown;
  /** Tool definitions only. */
  tools: unknown;
  /** Messages after meta removal. */
  messages: readonly Message[];
  /** The chat's current meta. */
  currentMeta: unknown;
}

/**
 * The cache key of an ask.
 *
 * @param input what identifies the ask
 * @returns 64 hex chars
 */
export function cacheKey(input: CacheKeyInput): string {
  return digests(input, [CACHE_VERSION])[0]!;
}

/**
 * The cache key of one round of the tool loop: the request of that round
 * (its messages, the meta before it, its parameters).
 *
 * @param input what identifies the round's request
 * @returns 64 hex chars
 */
export function roundCacheKey(input: CacheKeyInput): string {
  return digests(input, [ROUND_CACHE_VERSION])[0]!;
}

/**
 * Both keys of one request — the whole-ask key ({@link cacheKey}) and the
 * round key ({@link roundCacheKey}) of the same input — from one
 * serialisation: the texts differ only in the `v` member, so the digest of
 * everything before it is computed once and copied.
 *
 * @param input what identifies the ask (its first round)
 * @returns `{ legacy, round }`, 64 hex chars each
 */
export function roundCacheKeys(input: CacheKeyInput): { legacy: string; round: string } {
  const [legacy, round] = digests(input, [CACHE_VERSION, ROUND_CACHE_VERSION]);
  return { legacy: legacy!, round: round! };
}

/**
 * Digests of the parts of a key (the first 16 hex chars of the `sha256` of
 * each member's canonical text, as the key writes it): stored with a round
 * entry so that an offline miss can tell which part of a recorded request
 * differs (`cache_miss_hint.ts`). Not part of the key.
 */
export interface CacheKeyParts {
  /** The round's messages. */
  messages: string;
  /** The tool definitions offered. */
  tools: string;
  /** The provider parameters and shaped maps. */
  params: string;
  /** The meta before the round. */
  currentMeta: string;
}

/**
 * The {@link CacheKeyParts} of a request: computed when a round is stored
 * (or on an offline miss), never when it is looked up. The messages' UTF-8 is
 * the key's, remembered per message; a part the caller already knows (the
 * tools of every round of one ask) is not computed again.
 *
 * @param input what identifies the request
 * @param known parts computed before for the same members
 * @returns the part digests
 */
export function cacheKeyParts(
  input: CacheKeyInput,
  known: Partial<CacheKeyParts> = {},
): CacheKeyParts {
  return {
    messages: known.messages ?? messagesPart(input.messages),
    tools: known.tools ?? short(hashUpdate(createHash("sha256"), canonicalJson(input.tools))),
    params: known.params ?? short(hashUpdate(createHash("sha256"), canonicalJson(input.params))),
    currentMeta: known.currentMeta ??
      short(hashUpdate(createHash("sha256"), canonicalJson(input.currentMeta))),
  };
}

function short(h: Hash): string {
  return h.digest("hex").slice(0, 16);
}

/** One pass over the messages' canonical UTF-8 (remembered per message by the key). */
function messagesPart(messages: unknown): string {
  const pieces = Array.isArray(messages) ? messagesPieces(messages) : [canonicalJson(messages)];
  return short(hashPieces(createHash("sha256"), pieces));
}

/** `sha256(canonicalJson({ v, ...input }))` for each version `v`. */
function digests(input: CacheKeyInput, versions: number[]): string[] {
  if (Object.prototype.propertyIsEnumerable.call(input, "v")) {
    // the input's own v wins over the version (the spread); never the case for an ask
    return versions.map((v) => sha256hex(canonicalJson({ v, ...input })));
  }
  // every other member sorts before or after "v" (canonicalJson's key order)
  const members = canonicalMembers(input as unknown as Record<string, unknown>);
  const before: Piece[] = ["{"];
  let after = ""; // members after "v" are never messages: their pieces are strings
  for (const [k, pieces] of members) {
    if (k > "v") after += `,${pieces.join("")}`;
    else {
      if (before.length > 1) before.push(",");
      for (const p of pieces) before.push(p); // a chat of 100,000 calls overflows as arguments
    }
  }
  const head = hashPieces(createHash("sha256"), before);
  const sep = before.length > 1 ? "," : "";
  return versions.map((v) => hashUpdate(head.copy(), `${sep}"v":${v}${after}}`).digest("hex"));
}

/** Part of a key's canonical text: a string, or the UTF-8 of one. */
type Piece = string | Uint8Array;

/**
 * The members of `canonicalJson(input)`, byte for byte, in order, each with
 * its name and its text in pieces: built one by one so that the messages — the
 * history, which grows every round — skip {@link canonicalJson}: a `{role,
 * content}` message of two strings is written directly (its canonical form
 * depends on those two strings only), and its UTF-8 remembered per message
 * object while both stay the same; the pieces are hashed without being joined.
 */
function canonicalMembers(input: Record<string, unknown>): [string, Piece[]][] {
  const out: [string, Piece[]][] = [];
  for (const k of Object.keys(input).sort()) {
    const x = input[k];
    // members JSON does not write, as canonicalJson drops them
    if (x === undefined || typeof x === "function" || typeof x === "symbol") continue;
    const name = `${JSON.stringify(k)}:`;
    if (k === "messages" && Array.isArray(x)) out.push([k, [name, ...messagesPieces(x)]]);
    else out.push([k, [`${name}${canonicalJson(x)}`]]);
  }
  return out;
}

function messagesPieces(messages: readonly unknown[]): Piece[] {
  const parts: Piece[] = ["["];
  // an element JSON cannot write (a hole, undefined, a function) is `null` in an array
  for (let i = 0; i < messages.length; i++) {
    if (i > 0) parts.push(",");
    parts.push(messageJson(messages[i])); // canonicalJson writes those as "null"
  }
  parts.push("]");
  return parts;
}

/** A two-string message's canonical UTF-8, with the strings it was made of. */
const messageBytes = new WeakMap<object, { role: string; content: string; bytes: Uint8Array }>();
const utf8 = new TextEncoder();

function messageJson(m: unknown): Piece {
  if (typeof m !== "object" || m === null) return canonicalJson(m);
  const { role, content } = m as Message;
  if (typeof role !== "string" || typeof content !== "string" || Object.keys(m).length !== 2) {
    return canonicalJson(m);
  }
  const known = messageBytes.get(m);
  if (known && known.role === role && known.content === content) return known.bytes;
  const bytes = utf8.encode(
    `{"content":${JSON.stringify(content)},"role":${JSON.stringify(role)}}`,
  );
  messageBytes.set(m, { role, content, bytes });
  return bytes;
}
