/**
 * Token evidence and events (`provenance.md` §9): each chat file is analysed
 * once into its direct `meta` records and its `agent_meta` receipt entries
 * (`file_evidence.ts`); events group evidence by identity and take their
 * tokens from one canonical copy (`events.ts`). This module re-exports both.
 *
 * @module
 */
export { chatMetaItem, fileEvidence, fresh, localTokens } from "./file_evidence.ts";
export type { ChatMetaItem, EvidenceItem, FileEvidence, ReceiptItem } from "./file_evidence.ts";
export {
  disputedFields,
  eventGrouping,
  eventStatus,
  identityConflict,
  identityText,
  scopeTotals,
  sumEvents,
  TOKEN_SCOPES,
  tokenEvents,
} from "./events.ts";
export type {
  Deduplication,
  EventStatus,
  IdentityConflict,
  TokenEvent,
  TokenScope,
} from "./events.ts";
