/**
 * An event table's events as records (`event_table.ts`): each event's full
 * {@link TokenEvent} rebuilt from its chats' stored facts by the functions
 * that build it in memory (`newEvent`, `settleEvent`), and the document's
 * event lines — an event whose copies agree in every way written straight
 * from their texts, any other from its rebuilt record. Events are taken in
 * batches, each batch's chats read once.
 *
 * @module
 */
import type { EvidenceItem, FileEvidence } from "./file_evidence.ts";
import { type EvidenceTexts, evidenceTexts } from "./chat_facts.ts";
import { identityOf, newEvent, settleEvent, type TokenEvent } from "./events.ts";
import type { ChatStore } from "./chat_store.ts";
import { tokensAt } from "./typed.ts";
import { collectIfGrown } from "../util/gc.ts";
import {
  type copies,
  DEDUPLICATIONS,
  type eventColumns,
  F,
  firstCopyIdentity,
  NOT_UNIFORM,
  TYPES,
} from "./event_columns.ts";
import { K } from "./typed.ts";

/** Events whose document line needs their full record: copies differ in some way. */
export const SLOW = NOT_UNIFORM | F.pridMulti | F.pridLack;

/**
 * Events rebuilt together, each of their chats' facts read once. 2,048 held
 * ~25 MB of split chat texts at once on the 2 GB bench store, and `--json`
 * peaked there; 512 peaks 26 MB lower, no slower.
 */
const BATCH = 512;

/** What the events are rebuilt from: the chats, the copies and the event columns. */
export interface EventSource {
  /** The chats (their facts are read back). */
  readonly store: ChatStore;
  /** The copies. */
  readonly items: ReturnType<typeof copies>;
  /** The events. */
  readonly ev: ReturnType<typeof eventColumns>;
}

/**
 * Events `[from, to)` rebuilt, reading each chat's facts once per batch.
 *
 * @param t the table
 * @param from first event
 * @param to past the last event
 */
export function* rebuild(t: EventSource, from: number, to: number): Generator<TokenEvent> {
  for (let start = from; start < to; start += BATCH) {
    const end = Math.min(to, start + BATCH);
    const files = new Map<number, FileEvidence>();
    const evidence = (seq: number) => {
      let f = files.get(seq);
      if (f === undefined) files.set(seq, f = t.store.facts(seq).evidence);
      return f;
    };
    for (let e = start; e < end; e++) yield rebuildOne(t, e, evidence);
    collectIfGrown(); // the batch's parsed facts
  }
}

/**
 * Event `e`'s full record, rebuilt from its copies' evidence.
 *
 * @param t the table
 * @param e the event
 * @param evidence a chat's evidence by seq
 * @returns the record
 */
export function rebuildOne(
  t: EventSource,
  e: number,
  evidence: (seq: number) => FileEvidence,
): TokenEvent {
  const { items, ev } = t;
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
}

/**
 * The document's event lines, each batch's chats' texts split once.
 *
 * @param t the table
 * @param json an event record as the document writes it
 */
export function* eventLines(
  t: EventSource,
  json: (e: TokenEvent) => unknown,
): Generator<string> {
  const { store, ev } = t;
  for (let start = 0; start < ev.count; start += BATCH) {
    const end = Math.min(ev.count, start + BATCH);
    const texts = new Map<number, EvidenceTexts>();
    const textsOf = (seq: number) => {
      let x = texts.get(seq);
      if (x === undefined) texts.set(seq, x = evidenceTexts(store.path(seq), store.text(seq)));
      return x;
    };
    for (let e = start; e < end; e++) {
      yield ev.flagged(e, SLOW)
        ? JSON.stringify(json(rebuildOne(t, e, (seq) => store.facts(seq).evidence)))
        : uniformLine(t, e, textsOf);
    }
  }
}

/** An event whose copies agree in every way, written from their texts. */
function uniformLine(
  t: EventSource,
  e: number,
  textsOf: (seq: number) => EvidenceTexts,
): string {
  const { items, ev } = t;
  const type = ev.type[e]!;
  let it = ev.first[e]!;
  const first = textsOf(items.file[it]!);
  const { value, meta } = firstCopyIdentity(type, first, items.pos[it]!);
  const evidence: string[] = [];
  for (; it !== -1; it = items.next[it]!) {
    const x = textsOf(items.file[it]!);
    const p = items.pos[it]!;
    evidence.push(p >= 0 ? x.chat[p]! : x.receipts[~p]!);
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
}
