/**
 * The typed-array columns behind `event_table.ts` (issue 16): copies,
 * events, receipts waiting for the end of the walk, and what grouping needs
 * of one copy. Plain columns and small functions over them; the grouping
 * itself is in `event_table.ts`.
 *
 * @module
 */
import { TOKEN_KEYS } from "../chat/meta.ts";
import { metaTokens, nonEmpty, type TokenTotals } from "../chat/trace.ts";
import type { EvidenceItem, ReceiptItem } from "./file_evidence.ts";
import { identityOf, type IdentityType } from "./events.ts";
import { compactTokens, fitted, grown, K, putTokens, type TokenColumn } from "./typed.ts";

/** Identity types by number, as the columns keep them. */
export const TYPES: readonly IdentityType[] = [
  "inference_id",
  "provider_response_id",
  "lineage",
  "receipt",
];

/** `deduplication` of each identity type number. */
export const DEDUPLICATIONS = [
  "inference_id",
  "provider_response_id",
  "legacy_lineage",
  "receipt_unresolved",
] as const;

/** The identity value of a copy of identity type `type` (0: inference_id, 1: provider_response_id). */
function identityValueOf(type: number, meta: Record<string, unknown>): string {
  return String(type === 0 ? meta.inference_id : meta.provider_response_id);
}

/** A chat's lines as the readers of an event's first copy need them (`FactsLines`). */
export interface CopyLines {
  /** Each direct meta's record, as JSON. */
  chatMeta: readonly string[];
  /** Lineage ids of the direct metas. */
  lineage: readonly (string | null)[] | null;
  /** Each receipt item, as JSON. */
  receipts: readonly string[];
}

/**
 * The identity value of an event from its first copy (index `pos` of a
 * chat's metas, or `~pos` of its receipts), with that copy's record as JSON
 * and, for a receipt, the parsed item.
 *
 * @param type identity type number
 * @param f the chat's lines
 * @param pos the copy's position
 * @returns value, record text and receipt item (null for a meta)
 */
export function firstCopyIdentity(
  type: number,
  f: CopyLines,
  pos: number,
): { value: unknown; meta: string; receipt: ReceiptItem | null } {
  if (pos >= 0) {
    const meta = f.chatMeta[pos]!;
    const value = type === 2 ? f.lineage?.[pos] ?? "" : identityValueOf(type, JSON.parse(meta));
    return { value, meta, receipt: null };
  }
  const r = JSON.parse(f.receipts[~pos]!) as ReceiptItem;
  const value = type === 3 ? r.evidenceAddress : identityValueOf(type, r.meta);
  return { value, meta: JSON.stringify(r.meta), receipt: r };
}

/** Event flags. */
export const F = {
  pt: 1,
  ct: 2,
  tt: 4,
  /** cct, cwt or rt differ between copies (not a conflict, but not uniform). */
  other: 8,
  pridMulti: 16,
  pridLack: 32,
  chat: 64,
  receipt: 128,
} as const;
export const CONFLICT = F.pt | F.ct | F.tt | F.pridMulti;
export const NOT_UNIFORM = F.pt | F.ct | F.tt | F.other;

/** A 53-bit digest of a string (two FNV-1a variants), never 0. */
function digest(s: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return ((a >>> 0) * 0x200000 + ((b >>> 0) & 0x1fffff)) || 1;
}

/** What grouping needs of one copy. */
export interface Copy {
  type: number;
  /** The identity value (unused when `words` holds it). */
  value: string;
  /** The identity value as a UUID's words at `wordsAt` (`uuidWords`), or null. */
  words: Uint32Array | null;
  wordsAt: number;
  tokens: TokenTotals;
  prid: number;
  /** Its record's `model`, `backend` and `endpoint` (string values only), as name numbers (-1: none). */
  names: [number, number, number];
}

/** Interned name strings (models, backends, endpoints: a handful per store). */
export const NAME_KEYS = ["model", "backend", "endpoint"] as const;

export function copyOf(
  item: EvidenceItem,
  lineage: string | null,
  name: (s: unknown) => number,
): Copy {
  const [type, value] = identityOf(item, lineage);
  const m = item.meta;
  const p = m.provider_response_id;
  return {
    type: TYPES.indexOf(type),
    value,
    words: null,
    wordsAt: 0,
    tokens: metaTokens(m),
    prid: nonEmpty(p) ? digest(String(p)) : 0,
    names: [name(m.model), name(m.backend), name(m.endpoint)],
  };
}

/** The copies: columns by copy number. */
export function copies(n: number) {
  const c = {
    count: 0,
    file: new Int32Array(n), // chat seq
    pos: new Int32Array(n), // index in the chat's metas, or ~index in its receipts
    next: new Int32Array(n), // next copy of the same event, -1 at the end
    event: new Int32Array(n),
    local: new Int32Array(n), // localTokens key: an event, or -1 - a lineage key
    /** Tokens of the copies that differ from their event's canonical ones. */
    tokens: new Map<number, Float64Array>(),
    push(seq: number, pos: number): number {
      const it = c.count++;
      if (it >= c.file.length) {
        c.file = grown(c.file, it + 1);
        c.pos = grown(c.pos, it + 1);
        c.next = grown(c.next, it + 1);
        c.event = grown(c.event, it + 1);
        c.local = grown(c.local, it + 1);
      }
      c.file[it] = seq;
      c.pos[it] = pos;
      c.next[it] = -1;
      return it;
    },
    /** Makes room for `n` copies in all (at once: growing by halves would copy them twice). */
    reserve(n: number): void {
      if (n > c.file.length) sizeTo(n);
    },
    /** Lets go of the room grown ahead of need (no copy is added after). */
    fit(): void {
      sizeTo(c.count);
    },
  };
  /** Every column with room for exactly `n` copies. */
  const sizeTo = (n: number) => {
    c.file = fitted(c.file, n);
    c.pos = fitted(c.pos, n);
    c.next = fitted(c.next, n);
    c.event = fitted(c.event, n);
    c.local = fitted(c.local, n);
  };
  return c;
}

/** The events' columns, by event number. */
interface EventCols {
  count: number;
  first: Int32Array;
  last: Int32Array;
  copies: Int32Array;
  type: Uint8Array;
  flags: Uint8Array;
  prid: Float64Array;
  /** K per event; doubles once a value is not an int32. */
  tokens: TokenColumn;
  /** The canonical record's model, backend, endpoint. */
  names: Int32Array;
}

/** The events: columns by event number. */
export function eventColumns(n: number) {
  const cols: EventCols = {
    count: 0,
    first: new Int32Array(n),
    last: new Int32Array(n),
    copies: new Int32Array(n),
    type: new Uint8Array(n),
    flags: new Uint8Array(n),
    prid: new Float64Array(n),
    tokens: new Int32Array(n * K),
    names: new Int32Array(n * 3),
  };
  return Object.assign(cols, {
    /** A new event of copy `it`; its number. */
    push: (
      type: number,
      it: number,
      t: TokenTotals,
      prid: number,
      chat: boolean,
      names: readonly number[],
    ): number => pushEvent(cols, type, it, t, prid, chat, names),
    /** Adds copy `it` (tokens `t`) to event `e`. */
    join: (
      e: number,
      it: number,
      c: ReturnType<typeof copies>,
      t: TokenTotals,
      prid: number,
      chat: boolean,
    ): void => joinCopy(cols, e, it, c, t, prid, chat),
    /** Makes room for `n` events in all, at once (see `copies().reserve`). */
    reserve(n: number): void {
      if (n <= cols.first.length) return;
      sizeTo(cols, n);
      cols.tokens = fitted<TokenColumn>(cols.tokens, n * K);
    },
    /**
     * Lets go of the room grown ahead of need (no event is added after).
     * Token values are 32-bit unless one of them does not fit.
     */
    fit(): void {
      const n = cols.count;
      sizeTo(cols, n);
      cols.tokens = cols.tokens instanceof Float64Array
        ? compactTokens(cols.tokens, n * K)
        : fitted(cols.tokens, n * K);
    },
    flagged: (e: number, mask: number) => cols.copies[e]! > 1 && (cols.flags[e]! & mask) !== 0,
    /** `incompleteEvidence`: one provider response id among the copies, some copy without. */
    incomplete: (e: number) =>
      cols.copies[e]! > 1 && cols.prid[e] !== 0 &&
      (cols.flags[e]! & (F.pridMulti | F.pridLack)) === F.pridLack,
  });
}

// (positional parameters: one call per event and per copy, and no record made for either)
function pushEvent(
  v: EventCols,
  type: number,
  it: number,
  t: TokenTotals,
  prid: number,
  chat: boolean,
  names: readonly number[],
): number {
  const e = v.count++;
  if (e >= v.first.length) {
    v.first = grown(v.first, e + 1);
    v.last = grown(v.last, e + 1);
    v.copies = grown(v.copies, e + 1);
    v.type = grown(v.type, e + 1);
    v.flags = grown(v.flags, e + 1);
    v.prid = grown(v.prid, e + 1);
    v.tokens = grown<TokenColumn>(v.tokens, v.first.length * K); // K per event slot
    v.names = grown(v.names, v.first.length * 3);
  }
  v.first[e] = v.last[e] = it;
  v.copies[e] = 1;
  v.type[e] = type;
  v.flags[e] = (chat ? F.chat : F.receipt) | (prid === 0 ? F.pridLack : 0);
  v.prid[e] = prid;
  v.tokens = putTokens(v.tokens, e * K, t);
  v.names.set(names, e * 3);
  return e;
}

function joinCopy(
  v: EventCols,
  e: number,
  it: number,
  c: ReturnType<typeof copies>,
  t: TokenTotals,
  prid: number,
  chat: boolean,
): void {
  c.next[v.last[e]!] = it;
  v.last[e] = it;
  v.copies[e]!++;
  let flags = v.flags[e]! | (chat ? F.chat : F.receipt);
  const at = e * K;
  const d = v.tokens;
  if (t.pt !== d[at]) flags |= F.pt;
  if (t.ct !== d[at + 1]) flags |= F.ct;
  if (t.tt !== d[at + 2]) flags |= F.tt;
  if (t.cct !== d[at + 3] || t.cwt !== d[at + 4] || t.rt !== d[at + 5]) flags |= F.other;
  if (!sameAt(d, at, t)) c.tokens.set(it, Float64Array.from(TOKEN_KEYS, (k) => t[k]));
  if (prid === 0) flags |= F.pridLack;
  else if (v.prid[e] === 0) v.prid[e] = prid;
  else if (v.prid[e] !== prid) flags |= F.pridMulti;
  v.flags[e] = flags;
}

/** Every column but the tokens with room for exactly `n` events. */
function sizeTo(v: EventCols, n: number): void {
  v.first = fitted(v.first, n);
  v.last = fitted(v.last, n);
  v.copies = fitted(v.copies, n);
  v.type = fitted(v.type, n);
  v.flags = fitted(v.flags, n);
  v.prid = fitted(v.prid, n);
  v.names = fitted(v.names, n * 3);
}

function sameAt(d: TokenColumn, at: number, t: TokenTotals): boolean {
  return t.pt === d[at] && t.ct === d[at + 1] && t.tt === d[at + 2] && t.cct === d[at + 3] &&
    t.cwt === d[at + 4] && t.rt === d[at + 5];
}
