/**
 * What a report's events look like to the renderers (issue 16): the
 * iterable `ReportEvents` of `event_table.ts` and the partial views of an
 * event it can give without rebuilding its record.
 *
 * @module
 */
import type { EvidenceItem } from "./file_evidence.ts";
import type { TokenEvent } from "./events.ts";

/** The report's events: counted, flagged, and rebuilt a few at a time when iterated. */
export interface ReportEvents extends Iterable<TokenEvent> {
  /** Number of events. */
  readonly length: number;
  /** Whether some event has `agent_meta` evidence. */
  readonly hasReceiptEvidence: boolean;
  /** All events as an array (what `JSON.stringify` of a report prints). */
  toJSON(): TokenEvent[];
  /**
   * Each event as the JSON document's line, in order: `json(e)` of the
   * record, which is rebuilt only when its copies differ; the others are
   * written from the stored text as `JSON.stringify(json(e))` would.
   */
  jsonLines?(json: (e: TokenEvent) => unknown): Iterable<string>;
  /** Each event's tokens, meta record and canonical copy (and a society log's, see {@link CanonicalEvent}), in order. */
  canonical?(): Iterable<CanonicalEvent>;
  /** Each event's identity, tokens, conflict flag and where its copies are, in order. */
  summaries?(): Iterable<EventSummary>;
}

/** An event without its meta records: what the token analysis lists. */
export type EventSummary =
  & Pick<TokenEvent, "identity" | "deduplication" | "tokens" | "conflict">
  & {
    /** Each copy's address: a meta's `metaAddress`, a receipt entry's `evidenceAddress`. */
    sources: unknown[];
  };

/**
 * Where an event's canonical copy is (what a roll-up reads of it); a receipt
 * copy read from the store also says which agent its call named, when its
 * tool's name does not (`FileEvidence.agents`).
 */
export type CanonicalCopy = Pick<EvidenceItem, "origin" | "source" | "callId" | "toolName"> & {
  /** The agent a receipt's call named (an `ask`'s `agent`), or null / absent. */
  agent?: string | null;
};

/**
 * What a roll-up reads of an event: its tokens, its record's `model`,
 * `backend` and `endpoint` (a rebuilt event has the whole record), and its
 * canonical copy first.
 */
export type CanonicalEvent = Pick<TokenEvent, "tokens" | "meta"> & {
  /**
   * The canonical copy first; then, when it is not in a society log, the
   * first copy that is a society log's own record, if any (what `--by agent`
   * prefers). A rebuilt event has all of them.
   */
  evidence: readonly CanonicalCopy[];
};
