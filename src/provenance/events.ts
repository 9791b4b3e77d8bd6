/**
 * Token events (`provenance.md` §9 steps 4–7): evidence grouped by identity
 * (`inference_id`, then `provider_response_id`, then lineage for chat metas;
 * receipts without ids stay one event each), tokens from one canonical copy,
 * conflicts flagged, and totals per coverage scope. Duplicates are kept as
 * evidence and never summed.
 *
 * @module
 */
import { type MetaRecord, toInt, TOKEN_KEYS } from "../chat/meta.ts";
import type { ReceiptAddress } from "../chat/lineage.ts";
import { emptyTokens, metaTokens, nonEmpty, type TokenTotals } from "../chat/trace.ts";
import type { EvidenceItem, FileEvidence, ReceiptItem } from "./file_evidence.ts";

/** How an event's copies were merged. */
export type Deduplication =
  | "inference_id"
  | "provider_response_id"
  | "legacy_lineage"
  | "receipt_unresolved";

/** What an event's status says about its evidence. */
export type EventStatus =
  | "counted_once"
  | "receipt_only"
  | "legacy_unresolved"
  | "incomplete_evidence"
  | "conflict";

/** One inference: all the evidence that shares an identity. */
export interface TokenEvent {
  /** `String(inference_id)` for events identified by it, else null. */
  inferenceId: string | null;
  /** `[type, value]`: `inference_id`, `provider_response_id`, `lineage` or `receipt` (value = address). */
  identity: [string, string | ReceiptAddress];
  /** How copies were merged. */
  deduplication: Deduplication;
  /** Meta record of the canonical evidence. */
  meta: MetaRecord;
  /** Tokens of the canonical evidence (all six keys). */
  tokens: TokenTotals;
  /** Every copy, canonical first (chat metas before receipts, discovery order). */
  evidence: EvidenceItem[];
  /** Whether copies disagree on pt/ct/tt or on provider_response_id. */
  conflict: boolean;
  /** The disputed fields (empty without a conflict). */
  conflictFields: string[];
  /** Exactly one provider_response_id while some copy lacks it. */
  incompleteEvidence: boolean;
  /** Summary status. */
  status: EventStatus;
}

/** The identity types, in precedence order, and how each merges copies. */
const DEDUPLICATION = {
  inference_id: "inference_id",
  provider_response_id: "provider_response_id",
  lineage: "legacy_lineage",
  receipt: "receipt_unresolved",
} as const;

/** An identity type: `inference_id`, `provider_response_id`, `lineage` or `receipt`. */
export type IdentityType = keyof typeof DEDUPLICATION;

/** The identity type of a copy: the first of `inference_id`, `provider_response_id`, lineage, receipt. */
function identityType(item: EvidenceItem): IdentityType {
  const m = item.meta;
  if (nonEmpty(m.inference_id)) return "inference_id";
  if (nonEmpty(m.provider_response_id)) return "provider_response_id";
  return item.origin === "chat_meta" ? "lineage" : "receipt";
}

/** The value the copies of one event share, for a copy of identity type `type`. */
function identityValue(item: EvidenceItem, type: IdentityType, lineage: string | null): string {
  switch (type) {
    case "inference_id":
      return String(item.meta.inference_id);
    case "provider_response_id":
      return String(item.meta.provider_response_id);
    case "lineage":
      return lineage ?? "";
    case "receipt":
      return JSON.stringify((item as ReceiptItem).evidenceAddress);
  }
}

const CONFLICT_KEYS = ["pt", "ct", "tt"] as const;

/**
 * The fields on which an event's copies disagree: `pt`/`ct`/`tt` (by
 * `toInt`, missing = 0) and `provider_response_id` (two different non-empty
 * values).
 *
 * @param evidence the copies
 * @param ids their distinct provider response ids (computed when not given)
 * @returns disputed field names
 */
export function disputedFields(
  evidence: readonly EvidenceItem[],
  ids: ReadonlySet<string> = providerIds(evidence),
): string[] {
  const out: string[] = [];
  if (evidence.length < 2) return out;
  for (const k of CONFLICT_KEYS) {
    const first = toInt(evidence[0]!.meta[k]);
    if (evidence.some((e) => toInt(e.meta[k]) !== first)) out.push(k);
  }
  if (ids.size > 1) out.push("provider_response_id");
  return out;
}

function providerIds(evidence: readonly EvidenceItem[]): Set<string> {
  const ids = new Set<string>();
  for (const e of evidence) {
    if (nonEmpty(e.meta.provider_response_id)) ids.add(String(e.meta.provider_response_id));
  }
  return ids;
}

/**
 * The identity of one copy (`provenance.md` §9 step 4): its type and the
 * value the copies of one event share.
 *
 * @param item a copy
 * @param lineage its lineage id (chat metas without `inference_id`), else null
 * @returns `[type, value]`
 */
export function identityOf(item: EvidenceItem, lineage: string | null): [IdentityType, string] {
  const type = identityType(item);
  return [type, identityValue(item, type, lineage)];
}

/**
 * A new event whose first (canonical) copy is `item`; {@link settleEvent}
 * completes it once every copy is in `evidence`.
 *
 * @param item the canonical copy
 * @param type its identity type
 * @param value its identity value
 * @returns the event
 */
export function newEvent(item: EvidenceItem, type: IdentityType, value: string): TokenEvent {
  return {
    inferenceId: type === "inference_id" ? value : null,
    identity: [type, type === "receipt" ? (item as ReceiptItem).evidenceAddress : value],
    deduplication: DEDUPLICATION[type],
    meta: item.meta,
    tokens: metaTokens(item.meta),
    evidence: [item],
    conflict: false,
    conflictFields: [],
    incompleteEvidence: false,
    status: "counted_once",
  };
}

/**
 * Completes an event (in place) once all its copies are in: conflicts,
 * incomplete evidence, status.
 *
 * @param e the event
 */
export function settleEvent(e: TokenEvent): void {
  if (e.evidence.length > 1) {
    const ids = providerIds(e.evidence);
    e.conflictFields = disputedFields(e.evidence, ids);
    e.conflict = e.conflictFields.length > 0;
    e.incompleteEvidence = ids.size === 1 &&
      e.evidence.some((x) => !nonEmpty(x.meta.provider_response_id));
  }
  e.status = eventStatus(e);
}

/**
 * Groups evidence into events (`provenance.md` §9 steps 4–6), ordered by the
 * first discovery of each identity. Pure: conflicts are flagged, not thrown.
 *
 * @param files the files, in traversal order
 * @returns the events
 */
export function tokenEvents(files: readonly FileEvidence[]): TokenEvent[] {
  const grouping = eventGrouping();
  for (const f of files) grouping.addChatMetas(f);
  return grouping.finish(files);
}

/**
 * {@link tokenEvents} in two steps, so a caller can group each file's chat
 * metas as soon as the file is read (the report does it while the walk
 * waits for chats): `addChatMetas` per file in traversal order, then
 * `finish` with all the files (their receipts come after every chat meta).
 *
 * @returns the grouping
 */
export function eventGrouping(): {
  addChatMetas(file: FileEvidence): void;
  finish(files: readonly FileEvidence[]): TokenEvent[];
} {
  // One map per identity type, keyed by the raw value (no composite key strings).
  const byIdentity: Record<IdentityType, Map<string, TokenEvent>> = {
    inference_id: new Map(),
    provider_response_id: new Map(),
    lineage: new Map(),
    receipt: new Map(),
  };
  const events: TokenEvent[] = [];
  const add = (item: EvidenceItem, lineage: string | null) => {
    const [type, value] = identityOf(item, lineage);
    const known = byIdentity[type].get(value);
    if (known !== undefined) {
      known.evidence.push(item);
      return;
    }
    const event = newEvent(item, type, value);
    byIdentity[type].set(value, event);
    events.push(event);
  };
  return {
    addChatMetas(f) {
      f.chat.forEach((item, k) => add(item, f.lineage?.[k] ?? null));
    },
    finish(files) {
      // Discovery order: every file's chat metas (added), then every file's receipts.
      for (const f of files) for (const r of f.receipts) add(r, null);
      for (const e of events) settleEvent(e);
      return events;
    },
  };
}

/**
 * The status of an event (first match): `conflict`, `incomplete_evidence`,
 * `legacy_unresolved` (a receipt without ids), `receipt_only` (all evidence
 * is receipts), `counted_once`.
 *
 * @param e the event
 * @returns its status
 */
export function eventStatus(e: Omit<TokenEvent, "status">): EventStatus {
  if (e.conflict) return "conflict";
  if (e.incompleteEvidence) return "incomplete_evidence";
  if (e.deduplication === "receipt_unresolved") return "legacy_unresolved";
  if (e.evidence.every((x) => x.origin === "agent_meta")) return "receipt_only";
  return "counted_once";
}

/** An identity conflict, as a warning record. */
export interface IdentityConflict {
  /** Always `identity_conflict`. */
  reason: "identity_conflict";
  /** The event's inference id, or null. */
  inferenceId: string | null;
  /** The event's identity. */
  identity: TokenEvent["identity"];
  /** Disputed fields. */
  fields: string[];
  /** Raw values of each disputed field, field by field, in evidence order (missing → null). */
  values: unknown[];
  /** Raw values per disputed field, in evidence order. */
  valuesByField: Record<string, unknown[]>;
  /** The evidence. */
  evidence: EvidenceItem[];
  /** One line: `Identity conflict on <type>=<value>: disputed <fields>`. */
  message: string;
}

/**
 * The `<type>=<value>` text of an identity (receipt addresses as JSON).
 *
 * @param identity an event identity
 * @returns e.g. `inference_id=w1`
 */
export function identityText(identity: TokenEvent["identity"]): string {
  const v = identity[1];
  return `${identity[0]}=${typeof v === "string" ? v : JSON.stringify(v)}`;
}

/**
 * The warning record of a conflicting event.
 *
 * @param e a conflicting event
 * @returns the record
 */
export function identityConflict(e: TokenEvent): IdentityConflict {
  const valuesByField: Record<string, unknown[]> = {};
  const values: unknown[] = [];
  for (const f of e.conflictFields) {
    valuesByField[f] = e.evidence.map((x) => x.meta[f] ?? null);
    values.push(...valuesByField[f]!);
  }
  return {
    reason: "identity_conflict",
    inferenceId: e.inferenceId,
    identity: e.identity,
    fields: e.conflictFields,
    values,
    valuesByField,
    evidence: e.evidence,
    message: `Identity conflict on ${identityText(e.identity)}: disputed ${
      e.conflictFields.join(",")
    }`,
  };
}

/** The coverage scopes of token totals (`provenance.md` §9). */
export const TOKEN_SCOPES = [
  "deduplicated_total",
  "chat_evidence",
  "receipt_evidence",
  "receipt_only",
] as const;

/** One of {@link TOKEN_SCOPES}. */
export type TokenScope = typeof TOKEN_SCOPES[number];

/**
 * Sums the canonical tokens of the events in a scope.
 *
 * @param events events
 * @param scope which events (default all)
 * @returns all six keys
 */
export function sumEvents(
  events: readonly TokenEvent[],
  scope: TokenScope = "deduplicated_total",
): TokenTotals {
  return scopeTotals(events)[scope];
}

/**
 * The totals of every scope in one pass over the events.
 *
 * @param events events
 * @returns one total per scope
 */
export function scopeTotals(events: readonly TokenEvent[]): Record<TokenScope, TokenTotals> {
  const out = {
    deduplicated_total: emptyTokens(),
    chat_evidence: emptyTokens(),
    receipt_evidence: emptyTokens(),
    receipt_only: emptyTokens(),
  };
  for (const e of events) {
    let chat = false;
    let receipt = false;
    for (const x of e.evidence) {
      if (x.origin === "chat_meta") chat = true;
      else receipt = true;
    }
    const t = e.tokens;
    for (const k of TOKEN_KEYS) {
      out.deduplicated_total[k] += t[k];
      if (chat) out.chat_evidence[k] += t[k];
      if (receipt) out.receipt_evidence[k] += t[k];
      if (!chat) out.receipt_only[k] += t[k];
    }
  }
  return out;
}
