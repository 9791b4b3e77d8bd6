/**
 * Types of `agent_meta` receipts (`provenance.md` §8.3), re-exported by
 * `receipts.ts`.
 *
 * @module
 */
import type { MetaRecord } from "./meta.ts";
import type { MessageAddress, ReceiptAddress } from "./lineage.ts";
import type { ToolCall } from "./tool_calls.ts";

/** Why a receipt (entry) was rejected. */
export type ReceiptReason =
  | "not_an_array"
  | "not_a_hash"
  | "invalid_role"
  | "invalid_content"
  | "unparseable_meta"
  | "unresolved_job_reference";

/** A rejected receipt or receipt entry (`provenance.md` §8.3). */
export interface ReceiptProblem {
  /** What was wrong. */
  reason: ReceiptReason;
  /** Canonical path of the chat, or null. */
  source: string | null;
  /** Address of the output message carrying the receipt. */
  outputAddress: MessageAddress | null;
  /** Address of the entry (null for `not_an_array`). */
  evidenceAddress: ReceiptAddress | null;
  /** Call id of the output. */
  callId: string | null;
  /** Tool name of the call. */
  toolName: string | null;
  /** Position of the entry in `agent_meta` (null for `not_an_array`). */
  agentMetaIndex: number | null;
  /** The offending value (the whole `agent_meta` value for `not_an_array`). */
  rawEntry: unknown;
  /** The job reference, for `unresolved_job_reference`. */
  reference: string | null;
  /** One line naming the reason, chat, output address, call, tool and reference. */
  message: string;
  /** What exactly was wrong, in words. */
  detail: string;
}

/** A valid receipt entry. */
export interface ReceiptEvidence {
  /** Always `agent_meta`. */
  origin: "agent_meta";
  /** Parsed meta record of the entry. */
  meta: MetaRecord;
  /** Canonical path of the chat holding the output, or null. */
  source: string | null;
  /** Address of the output message. */
  outputAddress: MessageAddress;
  /** Address of the entry: `[...outputAddress, "agent_meta", i]`. */
  evidenceAddress: ReceiptAddress;
  /** Call id of the output. */
  callId: string | null;
  /** Tool name of the call. */
  toolName: string | null;
  /** Position of the entry in `agent_meta`. */
  agentMetaIndex: number;
  /** The entry as written. */
  rawMessage: { role: string; content: string };
}

/** A receipt entry that names a job (`job=` in its meta). */
export interface ReceiptJobReference extends ReceiptEvidence {
  /** The raw job reference (`String(meta.job)`). */
  job: string;
}

/** A local `meta` message as evidence. */
export interface ChatMetaEvidence {
  /** Always `chat_meta`. */
  origin: "chat_meta";
  /** Parsed meta record (lenient: may be `{}`). */
  meta: MetaRecord;
  /** Canonical path of the chat, or null. */
  source: string | null;
  /** Address of the meta message. */
  metaAddress: MessageAddress;
}

/** Options of the receipt extractors. */
export interface ReceiptOptions {
  /** Canonical path of the chat (addresses include it). */
  source?: string | null;
  /** When given, every problem is appended here (once). */
  warnings?: ReceiptProblem[];
  /** Pre-computed {@link toolCalls} of the same messages (avoids pairing twice). */
  calls?: readonly ToolCall[];
}
