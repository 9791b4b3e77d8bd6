/**
 * Token events of a report in compact form (issue 16): the grouping of
 * `events.ts` (`provenance.md` §9 steps 4–7) over a {@link ChatStore},
 * keeping per event and per copy a few numbers in typed arrays — identity
 * type, canonical tokens, flags, where each copy lives, the key `localTokens`
 * deduplicates it by — instead of objects with their meta records. An
 * event's full record ({@link TokenEvent}) is rebuilt from its chats'
 * stored facts when asked for, by the same functions that build it in
 * memory (`newEvent`, `settleEvent`), so both are equal.
 *
 * Identity maps keep each distinct identity string once. Provider response
 * ids are compared by a 53-bit digest (two different ids agreeing on it is
 * a 1-in-10^15 event; a rebuilt record compares the strings).
 *
 * @module
 */
import { nonEmpty, type TokenTotals } from "../chat/trace.ts";
import type { FileEvidence } from "./file_evidence.ts";
import type { ReportEvents } from "./event_types.ts";

export type { CanonicalCopy, CanonicalEvent, EventSummary, ReportEvents } from "./event_types.ts";
import type { TokenEvent } from "./events.ts";
import type { ChatStore } from "./chat_store.ts";
import { fitted, grown, K, tokensAt, TT } from "./typed.ts";
import { type IdTable, idTable } from "./id_table.ts";
import { fresh } from "./file_evidence.ts";
import { collectIfGrown } from "../util/gc.ts";
import { pendingReceipts } from "./pending_receipts.ts";
import {
  CONFLICT,
  copies,
  type Copy,
  copyOf,
  eventColumns,
  F,
  NAME_KEYS,
  NOT_UNIFORM,
  TYPES,
} from "./event_columns.ts";
import { eventLines, type EventSource, rebuild, rebuildOne, SLOW } from "./event_rebuild.ts";

/** What an event table holds while it groups, and after. */
interface TableState extends EventSource {
  /** The event of each identity, per identity type (dropped once grouped). */
  byIdentity: IdTable[];
  /** The lineage keys of chat metas an event does not key by lineage (rare). */
  readonly lineageKeys: Map<string, number>;
  /** Per chat seq: its first chat-meta copy. */
  chatStart: Int32Array;
  /** Receipt copies waiting for every chat's metas. */
  readonly pending: ReturnType<typeof pendingReceipts>;
  /** The distinct `model`/`backend`/`endpoint` values, and their indexes. */
  readonly nameList: string[];
  readonly nameIndex: Map<string, number>;
  /** Reused: the keys one walk of some chats has counted. */
  readonly seen: Set<number>;
}

/**
 * Groups the evidence of a store's chats into events: each chat's metas as
 * it arrives ({@link EventTable.addChat}), every receipt after all of them
 * ({@link EventTable.finish}), in the order `eventGrouping` uses.
 *
 * @param store the chats (their facts are read back to rebuild events)
 * @param capacity events and copies room is made for at first (grows as needed)
 * @returns the table
 */
export function eventTable(store: ChatStore, capacity = 1024) {
  const t: TableState = {
    store,
    items: copies(capacity),
    ev: eventColumns(capacity),
    byIdentity: TYPES.map(() => idTable()),
    lineageKeys: new Map(),
    chatStart: new Int32Array(256),
    pending: pendingReceipts(),
    nameList: [],
    nameIndex: new Map(),
    seen: new Set(),
  };
  return { ...groupingApi(t), ...chatTotalsApi(t), ...eventApi(t), ...tableApi(t) };
}

/** A compact event table ({@link eventTable}). */
export type EventTable = ReturnType<typeof eventTable>;

/** The index of a `model`/`backend`/`endpoint` value (-1: not a string). */
function nameOf(t: TableState, v: unknown): number {
  if (typeof v !== "string") return -1;
  let i = t.nameIndex.get(v);
  if (i === undefined) t.nameIndex.set(v, i = t.nameList.push(fresh(v)) - 1);
  return i;
}

/** The event of an identity (its value, or its UUID's words at `at`), or -1. */
function find(
  t: TableState,
  type: number,
  value: string,
  words: Uint32Array | null,
  at: number,
): number {
  return words === null ? t.byIdentity[type]!.get(value) : t.byIdentity[type]!.getWords(words, at);
}

/** Adds a copy to its event (`event`, else the one of its identity, else a new one). */
function addCopy(t: TableState, c: Copy, chat: boolean, seq: number, pos: number, event = -1) {
  const { items, ev } = t;
  const it = items.push(seq, pos);
  const ids = t.byIdentity[c.type]!;
  const known = event >= 0 ? event : find(t, c.type, c.value, c.words, c.wordsAt);
  const e = known >= 0 ? known : ev.push(c.type, it, c.tokens, c.prid, chat, c.names);
  if (known >= 0) ev.join(e, it, items, c.tokens, c.prid, chat);
  else if (c.words === null) ids.add(c.value, e);
  else ids.addWords(c.words, c.wordsAt, e);
  items.event[it] = e;
  return e;
}

/** Groups the direct metas of chat `seq`; keeps its receipts for {@link finishGrouping}. */
function addChat(t: TableState, seq: number, f: FileEvidence): void {
  const { items } = t;
  t.chatStart = grown(t.chatStart, seq + 2);
  t.chatStart[seq] = items.count;
  const name = (v: unknown) => nameOf(t, v);
  f.chat.forEach((item, k) => {
    const lineage = f.lineage?.[k] ?? null;
    const c = copyOf(item, lineage, name);
    const e = addCopy(t, c, true, seq, k);
    const byLineage = !nonEmpty(item.meta.inference_id);
    if (byLineage && TYPES[c.type] !== "lineage") {
      // localTokens keys it by lineage, the event by provider_response_id
      let key = t.lineageKeys.get(lineage ?? "");
      if (key === undefined) t.lineageKeys.set(lineage ?? "", key = t.lineageKeys.size);
      items.local[items.count - 1] = -1 - key;
    } else {
      items.local[items.count - 1] = e;
    }
  });
  t.chatStart[seq + 1] = items.count;
  f.receipts.forEach((r, k) => {
    const c = copyOf(r, null, name);
    t.pending.push(seq, ~k, c, r.toolName, t.byIdentity[c.type]!.get(c.value));
  });
}

/** Adds every chat's receipts (in store order), after all chat metas; the columns fit. */
function finishGrouping(
  t: TableState,
  onReceipt: (e: number, seq: number, toolName: string | null) => void,
): void {
  const { items, ev, pending } = t;
  // room made at once: every receipt is a copy, and those of unknown identities new events
  items.reserve(items.count + pending.count);
  ev.reserve(
    ev.count + pending.unknown((type, value, words, at) => find(t, type, value, words, at)),
  );
  pending.drain((seq, pos, c, tool, event) =>
    onReceipt(addCopy(t, c, false, seq, pos, event), seq, tool)
  );
  // Every copy is in: what only grouping needed goes, and the columns fit.
  t.byIdentity = [];
  t.lineageKeys.clear();
  collectIfGrown(); // the drained receipts, before the columns are copied to fit
  t.chatStart = fitted(t.chatStart, Math.min(t.chatStart.length, t.store.count + 1));
  items.fit();
  ev.fit();
}

/**
 * Visits the direct metas of some chats as `localTokens` counts them: each
 * key once, first copy first; `own` is the copy's tokens when they differ
 * from its event's.
 */
function forEachLocal(
  t: TableState,
  seqs: readonly number[],
  visit: (e: number, own: Float64Array | undefined) => void,
): void {
  const { items, chatStart, seen } = t;
  seen.clear();
  for (const seq of seqs) {
    for (let it = chatStart[seq]!; it < chatStart[seq + 1]!; it++) {
      const key = items.local[it]!;
      if (seen.has(key)) continue;
      seen.add(key);
      visit(items.event[it]!, items.tokens.get(it));
    }
  }
}

function addLocalSums(
  t: TableState,
  seqs: readonly number[],
  into: Float64Array,
  at: number,
): void {
  const tokens = t.ev.tokens;
  forEachLocal(t, seqs, (e, own) => {
    for (let k = 0; k < K; k++) into[at + k]! += own?.[k] ?? tokens[e * K + k]!;
  });
}

function localCost(
  t: TableState,
  seqs: readonly number[],
  cost: (e: number, t: TokenTotals) => number | null,
): { dollars: number; unpriced: number; priced: number } {
  const out = { dollars: 0, unpriced: 0, priced: 0 };
  forEachLocal(t, seqs, (e, own) => {
    const c = cost(e, own === undefined ? tokensAt(t.ev.tokens, e * K) : tokensAt(own, 0));
    if (c === null) out.unpriced++;
    else {
      out.dollars += c;
      out.priced++;
    }
  });
  return out;
}

/** Building the table: chats in, then receipts. */
function groupingApi(t: TableState) {
  return {
    /**
     * Groups the direct metas of the chat stored as `seq` now, and keeps
     * what its receipts need for {@link finish}.
     */
    addChat: (seq: number, f: FileEvidence): void => addChat(t, seq, f),
    /**
     * Adds every chat's receipts (in store order), after all chat metas.
     *
     * @param onReceipt visits each receipt copy: its event, chat and tool name
     */
    finish: (onReceipt: (e: number, seq: number, toolName: string | null) => void): void =>
      finishGrouping(t, onReceipt),
  };
}

/** What some chats' own metas add up to. */
function chatTotalsApi(t: TableState) {
  return {
    /**
     * The `localTokens` of some chats' direct metas: each inference once,
     * first copy wins, receipts not read.
     */
    localTotals(seqs: readonly number[]): TokenTotals {
      const sums = new Float64Array(K);
      addLocalSums(t, seqs, sums, 0);
      return tokensAt(sums, 0);
    },
    /**
     * Adds what {@link localTotals} returns into `into` at `at` (six values),
     * making nothing per call: the report's direct tokens, one call per node.
     */
    addLocalSums: (seqs: readonly number[], into: Float64Array, at: number): void =>
      addLocalSums(t, seqs, into, at),
    /**
     * The cost of some chats' direct metas, counted as {@link localTotals}
     * counts their tokens: each copy at its own tokens, at its event's
     * model price.
     *
     * @param seqs chat seqs
     * @param cost an event's cost at some tokens (null: no price)
     * @returns dollars, and the numbers of unpriced and priced inferences
     */
    localCost: (
      seqs: readonly number[],
      cost: (e: number, t: TokenTotals) => number | null,
    ): { dollars: number; unpriced: number; priced: number } => localCost(t, seqs, cost),
  };
}

/** One event's facts. */
function eventApi(t: TableState) {
  const { items, ev, nameList } = t;
  return {
    /** The `model`, `backend` and `endpoint` of event `e`'s record (string values only). */
    names(e: number): Record<string, string> {
      const meta: Record<string, string> = {};
      NAME_KEYS.forEach((k, j) => {
        const n = ev.names[e * 3 + j]!;
        if (n >= 0) meta[k] = nameList[n]!;
      });
      return meta;
    },
    /** Event `e`'s full record, rebuilt from its chats' facts. */
    event: (e: number): TokenEvent => rebuildOne(t, e, (seq) => t.store.facts(seq).evidence),
    /** Whether event `e`'s copies conflict (`conflict` of its record). */
    conflict: (e: number) => ev.flagged(e, CONFLICT),
    /** Event `e`'s canonical tokens. */
    tokensOf: (e: number): TokenTotals => tokensAt(ev.tokens, e * K),
    /** Event `e`'s canonical `tt` (nothing made: summed over every receipt copy). */
    ttOf: (e: number): number => ev.tokens[e * K + TT]!,
    /** Adds event `e`'s canonical tokens into `into[at…at+K)`. */
    addTokensTo(into: Float64Array, at: number, e: number): void {
      for (let k = 0; k < K; k++) into[at + k]! += ev.tokens[e * K + k]!;
    },
    /** Whether all copies of `e` agree on every token value. */
    uniform: (e: number) => !ev.flagged(e, NOT_UNIFORM),
    /** The chat seqs holding copies of `e`, in copy order (repeats kept). */
    files(e: number, out: number[]): number[] {
      out.length = 0;
      for (let it = ev.first[e]!; it !== -1; it = items.next[it]!) out.push(items.file[it]!);
      return out;
    },
    /** Identity type number of event `e` (see `TYPES`). */
    typeOf: (e: number) => ev.type[e]!,
    /** Whether event `e`'s copies differ in some way (its record must be rebuilt to be exact). */
    differs: (e: number) => ev.flagged(e, SLOW),
    /** Visits event `e`'s copies in order: chat seq, and index in its metas (~ in its receipts). */
    copiesOf(e: number, visit: (seq: number, pos: number) => void): void {
      for (let it = ev.first[e]!; it !== -1; it = items.next[it]!) {
        visit(items.file[it]!, items.pos[it]!);
      }
    },
  };
}

/** The table as a whole. */
function tableApi(t: TableState) {
  const { ev } = t;
  return {
    /** Number of events. */
    count: () => ev.count,
    /** How many events conflict and how many have incomplete evidence. */
    counts(): { conflictEvents: number; incompleteEvidenceEvents: number } {
      let c = 0;
      let i = 0;
      for (let e = 0; e < ev.count; e++) {
        if (ev.flagged(e, CONFLICT)) c++;
        if (ev.incomplete(e)) i++;
      }
      return { conflictEvents: c, incompleteEvidenceEvents: i };
    },
    /** Sums of the canonical tokens per coverage scope (as `scopeTotals`). */
    scopes: () => scopeSums(t),
    /**
     * The events as the report shows them.
     *
     * @param extra lighter readings made over this table (`event_reads.ts`)
     */
    view(extra: Pick<ReportEvents, "canonical" | "summaries"> = {}): ReportEvents {
      let receipts = false;
      for (let e = 0; e < ev.count && !receipts; e++) receipts = (ev.flags[e]! & F.receipt) !== 0;
      return {
        length: ev.count,
        hasReceiptEvidence: receipts,
        [Symbol.iterator]: () => rebuild(t, 0, ev.count),
        toJSON: () => Array.from(rebuild(t, 0, ev.count)),
        jsonLines: (json) => eventLines(t, json),
        ...extra,
      };
    },
  };
}

/** Sums of the canonical tokens per coverage scope. */
function scopeSums(t: TableState) {
  const { ev } = t;
  const sums = new Float64Array(4 * K);
  for (let e = 0; e < ev.count; e++) {
    const fl = ev.flags[e]!;
    for (let k = 0; k < K; k++) {
      const v = ev.tokens[e * K + k]!;
      sums[k]! += v;
      if (fl & F.chat) sums[K + k]! += v;
      if (fl & F.receipt) sums[2 * K + k]! += v;
      if (!(fl & F.chat)) sums[3 * K + k]! += v;
    }
  }
  return {
    deduplicated_total: tokensAt(sums, 0),
    chat_evidence: tokensAt(sums, K),
    receipt_evidence: tokensAt(sums, 2 * K),
    receipt_only: tokensAt(sums, 3 * K),
  };
}
