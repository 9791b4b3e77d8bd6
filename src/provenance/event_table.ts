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
import type { EvidenceItem, FileEvidence } from "./file_evidence.ts";
import type { ReportEvents } from "./event_types.ts";

export type { CanonicalCopy, CanonicalEvent, EventSummary, ReportEvents } from "./event_types.ts";
import { type EvidenceTexts, evidenceTexts } from "./chat_facts.ts";
import { identityOf, newEvent, settleEvent, type TokenEvent } from "./events.ts";
import type { ChatStore } from "./chat_store.ts";
import { fitted, grown, K, tokensAt, TT } from "./typed.ts";
import { idTable } from "./id_table.ts";
import { fresh } from "./file_evidence.ts";
import { collectIfGrown } from "../util/gc.ts";
import { pendingReceipts } from "./pending_receipts.ts";
import {
  CONFLICT,
  copies,
  type Copy,
  copyOf,
  DEDUPLICATIONS,
  eventColumns,
  F,
  firstCopyIdentity,
  NAME_KEYS,
  NOT_UNIFORM,
  TYPES,
} from "./event_columns.ts";

/** Events whose document line needs their full record: copies differ in some way. */
const SLOW = NOT_UNIFORM | F.pridMulti | F.pridLack;

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
  const items = copies(capacity);
  const ev = eventColumns(capacity);
  let byIdentity = TYPES.map(() => idTable());
  // The lineage keys of chat metas an event does not key by lineage (rare).
  const lineageKeys = new Map<string, number>();
  let chatStart = new Int32Array(256); // per chat seq: its first chat-meta copy
  const pending = pendingReceipts();
  const nameList: string[] = [];
  const nameIndex = new Map<string, number>();
  const name = (v: unknown): number => {
    if (typeof v !== "string") return -1;
    let i = nameIndex.get(v);
    if (i === undefined) nameIndex.set(v, i = nameList.push(fresh(v)) - 1);
    return i;
  };

  /** The event of an identity (its value, or its UUID's words at `at`), or -1. */
  const find = (type: number, value: string, words: Uint32Array | null, at: number): number =>
    words === null ? byIdentity[type]!.get(value) : byIdentity[type]!.getWords(words, at);

  const add = (c: Copy, chat: boolean, seq: number, pos: number, event = -1): number => {
    const it = items.push(seq, pos);
    const ids = byIdentity[c.type]!;
    const known = event >= 0 ? event : find(c.type, c.value, c.words, c.wordsAt);
    const e = known >= 0 ? known : ev.push(c.type, it, c.tokens, c.prid, chat, c.names);
    if (known >= 0) ev.join(e, it, items, c.tokens, c.prid, chat);
    else if (c.words === null) ids.add(c.value, e);
    else ids.addWords(c.words, c.wordsAt, e);
    items.event[it] = e;
    return e;
  };

  /** Rebuilds events, reading each chat's facts once per batch of events. */
  function* rebuild(from: number, to: number): Generator<TokenEvent> {
    for (let start = from; start < to; start += BATCH) {
      const end = Math.min(to, start + BATCH);
      const files = new Map<number, FileEvidence>();
      const evidence = (seq: number) => {
        let f = files.get(seq);
        if (f === undefined) files.set(seq, f = store.facts(seq).evidence);
        return f;
      };
      for (let e = start; e < end; e++) yield rebuildOne(e, evidence);
      collectIfGrown(); // the batch's parsed facts
    }
  }
  const rebuildOne = (e: number, evidence: (seq: number) => FileEvidence): TokenEvent => {
    const itemAt = (it: number) => {
      const f = evidence(items.file[it]!);
      const pos = items.pos[it]!;
      return pos >= 0
        ? { item: f.chat[pos]! as EvidenceItem, lineage: f.lineage?.[pos] ?? null }
        : { item: f.receipts[~pos]! as EvidenceItem, lineage: null };
    };
    let it = ev.first[e]!;
    const first = itemAt(it);
    const [type, value] = identityOf(first.item, first.lineage);
    const out = newEvent(first.item, type, value);
    for (it = items.next[it]!; it !== -1; it = items.next[it]!) out.evidence.push(itemAt(it).item);
    settleEvent(out);
    return out;
  };

  /**
   * Visits the direct metas of some chats as `localTokens` counts them: each
   * key once, first copy first; `own` is the copy's tokens when they differ
   * from its event's.
   */
  const seen = new Set<number>(); // reused: one walk of some chats at a time
  const forEachLocal = (
    seqs: readonly number[],
    visit: (e: number, own: Float64Array | undefined) => void,
  ) => {
    seen.clear();
    for (const seq of seqs) {
      for (let it = chatStart[seq]!; it < chatStart[seq + 1]!; it++) {
        const key = items.local[it]!;
        if (seen.has(key)) continue;
        seen.add(key);
        visit(items.event[it]!, items.tokens.get(it));
      }
    }
  };
  const addLocalSums = (seqs: readonly number[], into: Float64Array, at: number): void => {
    forEachLocal(seqs, (e, own) => {
      for (let k = 0; k < K; k++) into[at + k]! += own?.[k] ?? ev.tokens[e * K + k]!;
    });
  };
  const namesOf = (e: number): Record<string, string> => {
    const meta: Record<string, string> = {};
    NAME_KEYS.forEach((k, j) => {
      const n = ev.names[e * 3 + j]!;
      if (n >= 0) meta[k] = nameList[n]!;
    });
    return meta;
  };

  /** The document's event lines, each batch's chats' texts split once. */
  function* lines(json: (e: TokenEvent) => unknown): Generator<string> {
    for (let start = 0; start < ev.count; start += BATCH) {
      const end = Math.min(ev.count, start + BATCH);
      const texts = new Map<number, EvidenceTexts>();
      const textsOf = (seq: number) => {
        let t = texts.get(seq);
        if (t === undefined) texts.set(seq, t = evidenceTexts(store.path(seq), store.text(seq)));
        return t;
      };
      for (let e = start; e < end; e++) {
        yield ev.flagged(e, SLOW)
          ? JSON.stringify(json(rebuildOne(e, (seq) => store.facts(seq).evidence)))
          : eventLine(e, textsOf);
      }
    }
  }
  /** An event whose copies agree in every way, written from their texts. */
  const eventLine = (e: number, textsOf: (seq: number) => EvidenceTexts): string => {
    const type = ev.type[e]!;
    let it = ev.first[e]!;
    const first = textsOf(items.file[it]!);
    const { value, meta } = firstCopyIdentity(type, first, items.pos[it]!);
    const evidence: string[] = [];
    for (; it !== -1; it = items.next[it]!) {
      const t = textsOf(items.file[it]!);
      const p = items.pos[it]!;
      evidence.push(p >= 0 ? t.chat[p]! : t.receipts[~p]!);
    }
    const status = type === 3
      ? "legacy_unresolved"
      : (ev.flags[e]! & F.chat) === 0
      ? "receipt_only"
      : "counted_once";
    return `{"inferenceId":${type === 0 ? JSON.stringify(value) : "null"},"identity":[${
      JSON.stringify(TYPES[type])
    },${JSON.stringify(value)}],"deduplication":"${DEDUPLICATIONS[type]}","status":"${status}",` +
      `"meta":${meta},"tokens":${JSON.stringify(tokensAt(ev.tokens, e * K))},"evidence":[${
        evidence.join(",")
      }],"conflict":false,"conflictFields":[],"incompleteEvidence":false}`;
  };

  return {
    /**
     * Groups the direct metas of the chat stored as `seq` now, and keeps
     * what its receipts need for {@link finish}.
     */
    addChat(seq: number, f: FileEvidence): void {
      chatStart = grown(chatStart, seq + 2);
      chatStart[seq] = items.count;
      f.chat.forEach((item, k) => {
        const lineage = f.lineage?.[k] ?? null;
        const c = copyOf(item, lineage, name);
        const e = add(c, true, seq, k);
        const byLineage = !nonEmpty(item.meta.inference_id);
        if (byLineage && TYPES[c.type] !== "lineage") {
          // localTokens keys it by lineage, the event by provider_response_id
          let key = lineageKeys.get(lineage ?? "");
          if (key === undefined) lineageKeys.set(lineage ?? "", key = lineageKeys.size);
          items.local[items.count - 1] = -1 - key;
        } else {
          items.local[items.count - 1] = e;
        }
      });
      chatStart[seq + 1] = items.count;
      f.receipts.forEach((r, k) => {
        const c = copyOf(r, null, name);
        pending.push(seq, ~k, c, r.toolName, byIdentity[c.type]!.get(c.value));
      });
    },
    /**
     * Adds every chat's receipts (in store order), after all chat metas.
     *
     * @param onReceipt visits each receipt copy: its event, chat and tool name
     */
    finish(onReceipt: (e: number, seq: number, toolName: string | null) => void): void {
      // room made at once: every receipt is a copy, and those of unknown identities new events
      items.reserve(items.count + pending.count);
      ev.reserve(ev.count + pending.unknown(find));
      pending.drain((seq, pos, c, tool, event) =>
        onReceipt(add(c, false, seq, pos, event), seq, tool)
      );
      // Every copy is in: what only grouping needed goes, and the columns fit.
      byIdentity = [];
      lineageKeys.clear();
      collectIfGrown(); // the drained receipts, before the columns are copied to fit
      chatStart = fitted(chatStart, Math.min(chatStart.length, store.count + 1));
      items.fit();
      ev.fit();
    },
    /**
     * The `localTokens` of some chats' direct metas: each inference once,
     * first copy wins, receipts not read.
     */
    localTotals(seqs: readonly number[]): TokenTotals {
      const sums = new Float64Array(K);
      addLocalSums(seqs, sums, 0);
      return tokensAt(sums, 0);
    },
    /**
     * Adds what {@link localTotals} returns into `into` at `at` (six values),
     * making nothing per call: the report's direct tokens, one call per node.
     */
    addLocalSums,
    /**
     * The cost of some chats' direct metas, counted as {@link localTotals}
     * counts their tokens: each copy at its own tokens, at its event's
     * model price.
     *
     * @param seqs chat seqs
     * @param cost an event's cost at some tokens (null: no price)
     * @returns dollars, and the numbers of unpriced and priced inferences
     */
    localCost(
      seqs: readonly number[],
      cost: (e: number, t: TokenTotals) => number | null,
    ): { dollars: number; unpriced: number; priced: number } {
      const out = { dollars: 0, unpriced: 0, priced: 0 };
      forEachLocal(seqs, (e, own) => {
        const c = cost(e, own === undefined ? tokensAt(ev.tokens, e * K) : tokensAt(own, 0));
        if (c === null) out.unpriced++;
        else {
          out.dollars += c;
          out.priced++;
        }
      });
      return out;
    },
    /** The `model`, `backend` and `endpoint` of event `e`'s record (string values only). */
    names: namesOf,
    /** Number of events. */
    count: () => ev.count,
    /** Event `e`'s full record, rebuilt from its chats' facts. */
    event: (e: number): TokenEvent => rebuildOne(e, (seq) => store.facts(seq).evidence),
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
    scopes() {
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
        [Symbol.iterator]: () => rebuild(0, ev.count),
        toJSON: () => Array.from(rebuild(0, ev.count)),
        jsonLines: (json) => lines(json),
        ...extra,
      };
    },
  };
}

/**
 * Events rebuilt together, each of their chats' facts read once. 2,048 held
 * ~25 MB of split chat texts at once on the 2 GB bench store, and `--json`
 * peaked there; 512 peaks 26 MB lower, no slower.
 */
const BATCH = 512;

/** A compact event table ({@link eventTable}). */
export type EventTable = ReturnType<typeof eventTable>;
