/**
 * The plain data of the report behind `scout-ai llm prov` (`provenance.md`
 * §10.2): nodes, edges, display edges, warnings, totals and options.
 *
 * @module
 */
import type { TokenTotals } from "../chat/trace.ts";
import type { JobInfo, JobSummary, NodeKind, Relation, TraverseOptions } from "./types.ts";
import type { ReportEvents } from "./event_types.ts";
import type { PriceTable } from "./prices.ts";
import type { ChatFacts } from "./chat_facts.ts";
import type { ChatFailure } from "./chat_failure.ts";

export type { ChatFailure } from "./chat_failure.ts";

export type { JobSummary } from "./types.ts";

/** Why a node is not displayed. */
export type HiddenReason = "result_chat" | "top_level_agent_log";

/** Receipt evidence recorded in a chat (or, for a job, in its hidden chats). */
export interface ReceiptSummary {
  /** Root events with receipt evidence there. */
  events: number;
  /** Sum of their canonical `tt`. */
  tt: number;
  /** Sorted distinct tool names of that receipt evidence. */
  tools: string[];
}

/** A node of the report. */
export interface ReportNode {
  /** `chat:<path>` or `job:<path>`. */
  id: string;
  /** Node kind. */
  kind: NodeKind;
  /** Canonical path. */
  path: string;
  /** Display label (null for hidden nodes). */
  label: string | null;
  /** Why it is hidden, or null. */
  hidden: HiddenReason | null;
  /** Id of the job that owns a hidden node (its first incoming edge), or null. */
  owner: string | null;
  /**
   * For a nested society's log (`…/society/<A>/<conv>/society/<B>/<c>.chat`): the id of
   * its caller's log, which the views show it under; else null.
   */
  caller: string | null;
  /** Workflow facts of a job, or null for chats. */
  job: JobSummary | null;
  /** Direct tokens (a chat's own metas; a job's logs) and subtree tokens (all it reaches). */
  tokens: { direct: TokenTotals; subtree: TokenTotals };
  /** Receipt evidence, or null when there is none. */
  receipts: ReceiptSummary | null;
  /** With prices (`ReportOptions.prices`): what its direct and subtree inferences cost. */
  cost?: { direct: NodeCost; subtree: NodeCost };
  /**
   * A rerun whose label another job shares (the failed run it was made for):
   * the run its name says (`rerun-<n>_`), which the text views show after the
   * label (` rerun <n>`, R111-3); absent otherwise, and not in the JSON.
   */
  rerun?: number;
  /**
   * A chat whose last inference record says `incomplete=true` (R127-2): its
   * status (`error`, `aborted`), reason and error message; absent otherwise.
   */
  failure?: ChatFailure;
}

/**
 * The nodes of a report, in first-visit order: a plain `ReportNode[]` (a
 * report built by hand or read back from JSON) or the columns of a report
 * from `provenanceReport`, whose `at` makes a new record on every call
 * (records are not kept: compare nodes by `id`, not by object).
 */
export interface ReportNodes extends Iterable<ReportNode> {
  /** Number of nodes. */
  readonly length: number;
  /** Node `index` (negative: from the end, as `Array.prototype.at`), or undefined. */
  at(index: number): ReportNode | undefined;
}

/** What some inferences cost: dollars of the priced ones, and how many have no price. */
export interface NodeCost {
  /** Dollars (the priced inferences). */
  dollars: number;
  /** Inferences whose model has no price. */
  unpriced: number;
  /** Inferences whose model has a price (a free model's too: `$0.0000+?` is not `?`). */
  priced: number;
}

/** A structural edge between node ids, in discovery direction. */
export interface ReportEdge {
  /** Parent id. */
  from: string;
  /** Child id. */
  to: string;
  /** Relation. */
  relation: Relation;
  /** Whether the record was the child's first visit. */
  firstVisit: boolean;
  /** The receipt entry of an `agent_job` edge, else null. */
  detail: EdgeDetail | null;
}

/** What an `agent_job` edge's receipt entry says. */
export interface EdgeDetail {
  /** Call id. */
  callId: string | null;
  /** Tool name. */
  toolName: string | null;
  /** Address of the output. */
  outputAddress: unknown;
  /** Address of the receipt entry. */
  evidenceAddress: unknown;
  /** Position in `agent_meta`. */
  agentMetaIndex: number;
  /** The raw job reference. */
  reference: string;
}

/** An edge as displayed (hidden nodes folded into their owners). */
export interface DisplayEdge {
  /** Parent id. */
  from: string;
  /** Child id. */
  to: string;
  /** Relation (of the underlying edge). */
  relation: Relation;
}

/** A warning of the report. */
export interface ReportWarning {
  /** Error code (`receipt_problem`, `unresolved_job_reference`, `identity_conflict`…). */
  code: string;
  /** The full message. */
  message: string;
  /** Kind of the node it is about (null for identity conflicts). */
  kind: NodeKind | null;
  /** Id of the node it is about. */
  node: string | null;
  /** Relation being followed, null for the node itself. */
  relation: Relation | null;
  /** The reference: raw string, path, receipt problem or identity. */
  reference: unknown;
  /** Receipt problems: the reason. */
  reason?: string;
}

/** Totals of the root's events by coverage scope. */
export interface ReportTotals {
  /** All events: the cost. */
  deduplicated_total: TokenTotals;
  /** Events with saved chat/log evidence. */
  chat_evidence: TokenTotals;
  /** Events with receipt evidence (overlaps chat_evidence). */
  receipt_evidence: TokenTotals;
  /** Events with receipt evidence only. */
  receipt_only: TokenTotals;
  /** True when no event conflicts. */
  authoritative: boolean;
  /** Number of conflicting events. */
  conflictEvents: number;
  /** Number of events with incomplete provider evidence. */
  incompleteEvidenceEvents: number;
}

/** Everything the `prov` renderers need. */
export interface ProvenanceReport {
  /** Root node id (with several roots, the first). */
  root: string;
  /**
   * The roots' ids, in the order given (from `provenanceReport`); several
   * when several roots were walked together (R134-1). Absent: `[root]`.
   */
  roots?: string[];
  /** Relations followed. */
  follow: Relation[];
  /** False when some evidence could not be read. */
  complete: boolean;
  /**
   * Nodes in first-visit order: an array, or (from `provenanceReport`) columns
   * whose records are made when read (`at`, iteration; `JSON.stringify`
   * prints the array). Compare nodes by `id`.
   */
  nodes: ReportNodes;
  /** Deduplicated discovery edges. */
  edges: ReportEdge[];
  /** Display edges (hidden nodes folded), in discovery order. */
  displayEdges: DisplayEdge[];
  /**
   * The root's token events, in discovery order: counted, and rebuilt one at
   * a time when iterated (a store's events do not all fit in memory at once).
   */
  events: ReportEvents;
  /** Totals by scope. */
  totals: ReportTotals;
  /** Problems and conflicts, in discovery order. */
  warnings: ReportWarning[];
  /**
   * With prices (`ReportOptions.prices`): what each event cost (its canonical
   * copy's dollars, in `events` order; NaN when its model has no price), and
   * every event once (all the roots together).
   */
  costs?: { events: ArrayLike<number>; all: NodeCost };
}

/** Options of {@link provenanceReport}. */
export interface ReportOptions extends TraverseOptions {
  /** Called every so often with the number of records walked. */
  onProgress?: (records: number, chats: number) => void;
  /**
   * Chats queued before a helper thread starts reading chats ahead of the
   * walk (default 1,000; `Infinity`: never). The report is the same either
   * way; without `onChat` only.
   */
  helperThreshold?: number;
  /** Receives each chat's facts once, in first-visit order (with `toolCalls`, its calls). */
  onChatFacts?: (facts: ChatFacts) => void;
  /**
   * Characters of chat facts kept in memory before they move to a temporary
   * file (default 8 M; 0: always the file). The report is the same either way.
   */
  spillAt?: number;
  /** Prices per model: each node gets its direct and subtree cost (`ReportNode.cost`). */
  prices?: PriceTable;
  /**
   * The status a job shows (`JobSummary.status`), from its path and `.info`:
   * the caller's derivation, which may look at the disk and processes (the
   * CLI gives `workflow info`'s: `stale` when the recorded process is gone,
   * R106-3b). Default: the `.info`'s `status`.
   */
  jobStatus?: (path: string, info: JobInfo | null) => string | null;
  /** Called as each stage of the report ends (`walk`, `finish`, `subtree`, …: for measurements). */
  onPhase?: (stage: string) => void;
}
