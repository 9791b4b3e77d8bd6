/**
 * Lighter readings of a report's events than rebuilding each whole record
 * (issue 16): what a roll-up reads (tokens, model names, the canonical
 * copy's place) and what the token analysis lists (identity, tokens,
 * conflict, where each copy is). Both come from the event columns and the
 * stored facts texts, parsing only the lines they need; an event whose
 * copies differ is rebuilt, so every value equals the whole record's.
 *
 * @module
 */
import type { ReceiptItem } from "./file_evidence.ts";
import { type FactsLines, factsLines } from "./chat_facts.ts";
import type { ChatStore } from "./chat_store.ts";
import type { CanonicalCopy, CanonicalEvent, EventSummary, EventTable } from "./event_table.ts";
import { DEDUPLICATIONS, firstCopyIdentity, TYPES } from "./event_columns.ts";
import { societyLog } from "./labels.ts";

/** Lines of the chats a run of events reads, each chat's text split once per run. */
function linesCache(store: ChatStore): (seq: number) => FactsLines {
  let cache = new Map<number, FactsLines>();
  return (seq) => {
    let f = cache.get(seq);
    if (f === undefined) {
      if (cache.size >= 4096) cache = new Map(); // a run's chats, not the store's
      cache.set(seq, f = factsLines(store.text(seq)));
    }
    return f;
  };
}

const chatCopy = (source: string): CanonicalCopy => ({
  origin: "chat_meta",
  source,
  callId: null,
  toolName: null,
});

function receiptCopy(f: FactsLines, k: number): CanonicalCopy {
  const r = JSON.parse(f.receipts[k]!) as ReceiptItem;
  const agent = f.agents?.[k] ?? null;
  return { origin: "agent_meta", source: r.source, callId: r.callId, toolName: r.toolName, agent };
}

/**
 * Each event's tokens, `model`/`backend`/`endpoint` and canonical copy (a
 * receipt's with the agent its call named), in order (what `rollup` reads); when the canonical copy is not in a society
 * log, also the first copy that is a society log's own record, after it.
 *
 * @param table the event table
 * @param store its chats
 * @returns the events, one at a time
 */
export function* canonicalEvents(table: EventTable, store: ChatStore): Generator<CanonicalEvent> {
  const linesOf = linesCache(store);
  for (let e = 0; e < table.count(); e++) {
    const evidence: CanonicalCopy[] = [];
    table.copiesOf(e, (seq, pos) => {
      if (evidence.length === 0) {
        evidence.push(
          pos >= 0 ? chatCopy(store.path(seq)) : receiptCopy(linesOf(seq), ~pos),
        );
      } else if (
        // a society log's own record after a canonical copy that is none (`agentOf`, R93-4)
        evidence.length === 1 && pos >= 0 && societyLog(evidence[0]!.source) === null &&
        societyLog(store.path(seq)) !== null
      ) {
        evidence.push(chatCopy(store.path(seq)));
      }
    });
    yield { tokens: table.tokensOf(e), meta: table.names(e), evidence };
  }
}

/**
 * Each event's identity, deduplication, tokens, conflict flag and the
 * address of each copy, in order (what ChatAnalyst's token analysis lists).
 *
 * @param table the event table
 * @param store its chats
 * @returns the summaries, one at a time
 */
export function* eventSummaries(table: EventTable, store: ChatStore): Generator<EventSummary> {
  const linesOf = linesCache(store);
  for (let e = 0; e < table.count(); e++) {
    if (table.differs(e)) {
      const r = table.event(e);
      yield {
        identity: r.identity,
        deduplication: r.deduplication,
        tokens: r.tokens,
        conflict: r.conflict,
        sources: r.evidence.map((x) =>
          x.origin === "chat_meta" ? x.metaAddress : x.evidenceAddress
        ),
      };
      continue;
    }
    const type = table.typeOf(e);
    const sources: unknown[] = [];
    let value: unknown = null;
    table.copiesOf(e, (seq, pos) => {
      const f = linesOf(seq);
      if (sources.length === 0) {
        const first = firstCopyIdentity(type, f, pos);
        value = first.value;
        sources.push(first.receipt?.evidenceAddress ?? [store.path(seq), f.indices[pos]!]);
      } else if (pos >= 0) {
        sources.push([store.path(seq), f.indices[pos]!]);
      } else {
        sources.push((JSON.parse(f.receipts[~pos]!) as ReceiptItem).evidenceAddress);
      }
    });
    yield {
      identity: [TYPES[type]!, value as string],
      deduplication: DEDUPLICATIONS[type]!,
      tokens: table.tokensOf(e),
      conflict: false,
      sources,
    };
  }
}
