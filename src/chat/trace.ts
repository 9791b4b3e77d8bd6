/**
 * Response tracing (`provenance.md` §6): each `meta` record opens a segment
 * that covers the assistant/tool messages after it; segments are deduplicated
 * by `inference_id` (or by lineage for legacy records), so copied history is
 * counted once. {@link directEntries} and {@link tokenTotals} are local: they
 * never read `agent_meta` receipts.
 *
 * @module
 */
import type { Message } from "./types.ts";
import { type MetaRecord, toInt, TOKEN_KEYS, type TokenKey } from "./meta.ts";
import { type MessageAddress, messageIndex, type MessageIndexEntry } from "./lineage.ts";

/** A value for each of the six token keys (`pt ct tt cct cwt rt`). */
export type TokenTotals = Record<TokenKey, number>;

/** One traced segment: a meta record and the messages it covers. */
export interface TraceEntry {
  /** Lineage id of the meta message. */
  id: string;
  /** Same as {@link TraceEntry.id}. */
  lineageId: string;
  /** `String(meta.inference_id)` when non-empty, else null. */
  inferenceId: string | null;
  /** What the entry was deduplicated by. */
  deduplication: "inference_id" | "legacy_lineage";
  /** Address of the meta message. */
  metaAddress: MessageAddress;
  /** Parsed meta record, without `reas`. */
  meta: MetaRecord;
  /** Lineage ids of the covered messages. */
  messages: string[];
  /** Addresses of the covered messages. */
  messageAddresses: MessageAddress[];
  /** True when the segment covers no message (consecutive or final meta). */
  orphan: boolean;
  /** Source path of the chat, or null. */
  source: string | null;
}

/**
 * An all-zero {@link TokenTotals}.
 *
 * @returns `{pt:0, ct:0, tt:0, cct:0, cwt:0, rt:0}`
 */
export function emptyTokens(): TokenTotals {
  return { pt: 0, ct: 0, tt: 0, cct: 0, cwt: 0, rt: 0 };
}

/**
 * Adds `toInt(meta[k])` for each token key into `into` (mutates it).
 *
 * @param into running totals
 * @param meta a meta record or token totals
 * @returns `into`
 */
export function addTokens(into: TokenTotals, meta: Readonly<Record<string, unknown>>): TokenTotals {
  // Spelled out (the keys of TOKEN_KEYS): named property access is several
  // times faster than a loop over key names, and this runs per evidence copy.
  into.pt += toInt(meta.pt);
  into.ct += toInt(meta.ct);
  into.tt += toInt(meta.tt);
  into.cct += toInt(meta.cct);
  into.cwt += toInt(meta.cwt);
  into.rt += toInt(meta.rt);
  return into;
}

/**
 * The six token values of a meta record (`toInt`, missing = 0).
 *
 * @param meta a meta record
 * @returns token totals of that one record
 */
export function metaTokens(meta: Readonly<Record<string, unknown>>): TokenTotals {
  return addTokens(emptyTokens(), meta);
}

/**
 * True when a meta value counts as present: not null/undefined and not the
 * empty string (an empty `inference_id=` is absent, `provenance.md` §12 #9).
 *
 * @param v a meta value
 * @returns whether it is non-empty
 */
export function nonEmpty(v: unknown): boolean {
  return v !== undefined && v !== null && String(v) !== "";
}

/**
 * Whether a meta record is direct token evidence: no (or an empty) `job`
 * projection marker and at least one token key present (0 counts).
 *
 * @param meta parsed meta record
 * @returns true for a direct inference record
 */
export function isDirectMeta(meta: Readonly<Record<string, unknown>>): boolean {
  if (nonEmpty(meta.job)) return false;
  for (const k of TOKEN_KEYS) if (k in meta) return true;
  return false;
}

/**
 * The rule that keeps a token count from being counted twice
 * (`provenance.md` §6): of the copies of a traced meta, the first of each key
 * counts — the key being its `inference_id` when non-empty, else its lineage
 * id. Used by {@link traceIndices} and by provenance's `localTokens`.
 *
 * @returns `first(meta, lineage)`: true for the first copy of its key (and
 *   records the key), false for a later one
 */
export function firstCopies(): (
  meta: Readonly<Record<string, unknown>>,
  lineage: string,
) => boolean {
  // one set per kind of key: no composite key strings
  const ids = new Set<string>();
  const lineages = new Set<string>();
  return (meta, lineage) => {
    const byId = nonEmpty(meta.inference_id);
    const seen = byId ? ids : lineages;
    const key = byId ? String(meta.inference_id) : lineage;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
}

function withoutReas(meta: MetaRecord): MetaRecord {
  if (!("reas" in meta)) return { ...meta };
  const { reas: _reas, ...rest } = meta;
  return rest;
}

/**
 * Traces indexed chats (`provenance.md` §6). A `meta` closes the open segment
 * and opens a new one; `user`/`system` close it; any other role joins it; the
 * end of a chat closes it. With `deduplicate` (default) the first entry of
 * each key (see {@link firstCopies}) wins across all chats.
 *
 * @param indices one {@link messageIndex} per chat
 * @param opts `deduplicate` (default true)
 * @returns the entries, in order
 */
export function traceIndices(
  indices: readonly (readonly MessageIndexEntry[])[],
  opts: { deduplicate?: boolean } = {},
): TraceEntry[] {
  const deduplicate = opts.deduplicate ?? true;
  const first = firstCopies();
  const out: TraceEntry[] = [];
  for (const index of indices) {
    let pending: { meta: MessageIndexEntry; covered: MessageIndexEntry[] } | null = null;
    const close = () => {
      if (pending === null) return;
      const { meta: m, covered } = pending;
      pending = null;
      const meta = m.meta ?? {};
      if (deduplicate && !first(meta, m.id)) return;
      const inferenceId = nonEmpty(meta.inference_id) ? String(meta.inference_id) : null;
      out.push({
        id: m.id,
        lineageId: m.id,
        inferenceId,
        deduplication: inferenceId === null ? "legacy_lineage" : "inference_id",
        metaAddress: m.address,
        meta: withoutReas(meta),
        messages: covered.map((c) => c.id),
        messageAddresses: covered.map((c) => c.address),
        orphan: covered.length === 0,
        source: Array.isArray(m.address) ? m.address[0] : null,
      });
    };
    for (const e of index) {
      if (e.role === "meta") {
        close();
        pending = { meta: e, covered: [] };
      } else if (e.role === "user" || e.role === "system") {
        close();
      } else if (pending !== null) {
        (pending as { covered: MessageIndexEntry[] }).covered.push(e);
      }
    }
    close();
  }
  return out;
}

/**
 * Traces chats read from files, keeping their addresses.
 *
 * @param pairs `[sourcePath, messages]` per chat
 * @param deduplicate deduplicate across all chats (default true)
 * @returns the entries
 *
 * @example
 * ```ts
 * import { traceChatSources } from "./trace.ts";
 * const chat = [{ role: "user", content: "q" }, { role: "meta", content: "pt=3 tt=4 inference_id=a" },
 *   { role: "assistant", content: "a" }];
 * traceChatSources([["/w/a.chat", chat], ["/w/b.chat", chat]]).length; // 1
 * ```
 */
export function traceChatSources(
  pairs: readonly (readonly [string, readonly Message[]])[],
  deduplicate = true,
): TraceEntry[] {
  return traceIndices(pairs.map(([source, chat]) => messageIndex(chat, source)), { deduplicate });
}

/**
 * Traces chats without source paths (addresses are plain indices).
 *
 * @param chats the chats
 * @param deduplicate deduplicate across all chats (default true)
 * @returns the entries
 */
export function traceChats(
  chats: readonly (readonly Message[])[],
  deduplicate = true,
): TraceEntry[] {
  return traceIndices(chats.map((chat) => messageIndex(chat)), { deduplicate });
}

/**
 * The deduplicated direct inference entries of some chats: no `job` marker
 * and at least one token key present.
 *
 * @param chats the chats
 * @returns the entries
 */
export function directEntries(chats: readonly (readonly Message[])[]): TraceEntry[] {
  return traceChats(chats).filter((e) => isDirectMeta(e.meta));
}

/**
 * Local token totals of some chats: the per-key sum of `toInt` over
 * {@link directEntries}. Receipts are never read.
 *
 * @param chats the chats
 * @returns all six keys
 *
 * @example
 * ```ts
 * import { tokenTotals } from "./trace.ts";
 * tokenTotals([[{ role: "meta", content: "pt=10 ct=5 tt=15" }, { role: "meta", content: "job=W/t/x" }]]);
 * // {pt:10, ct:5, tt:15, cct:0, cwt:0, rt:0}
 * ```
 */
export function tokenTotals(chats: readonly (readonly Message[])[]): TokenTotals {
  const t = emptyTokens();
  for (const e of directEntries(chats)) addTokens(t, e.meta);
  return t;
}
