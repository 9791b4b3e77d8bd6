/**
 * Plain data of the provenance walker (`provenance.md` §1–§2): node
 * references, relations, traversal records and options.
 *
 * @module
 */
import type { ScoutError } from "../errors.ts";
import type { ReceiptEvidence, ReceiptJobReference, ReceiptProblem } from "../chat/receipts.ts";
import type { Message } from "../chat/types.ts";

/** The two persisted node kinds. */
export type NodeKind = "chat" | "job";

/**
 * A structural relation, named in discovery (root-outward) direction.
 * `attempt` ([TS-FIX] R109-3, not in Ruby): a job → an earlier, failed run of
 * it, set aside under `P.files/.attempts/<n>` when the job was run again in
 * place (`src/workflow/attempts.ts`).
 */
export type Relation = "job" | "dependency" | "log" | "result" | "agent_job" | "attempt";

/** Every relation, in the spec's order (`provenance.md` §1.2), then the port's `attempt`. */
export const PROVENANCE_RELATIONS: readonly Relation[] = Object.freeze([
  "job",
  "dependency",
  "log",
  "result",
  "agent_job",
  "attempt",
]);

/**
 * A job's `.info` sidecar as read (a JSON object). Keys used by provenance:
 * `workflow`, `task_name`, `type`, `status`, `dependencies`.
 */
export type JobInfo = Record<string, unknown>;

/** A chat file node (canonical path). */
export interface ChatRef {
  /** Always `chat`. */
  kind: "chat";
  /** Canonical path. */
  path: string;
}

/** A job node (canonical path of the job, i.e. of its result file). */
export interface JobRef {
  /** Always `job`. */
  kind: "job";
  /** Canonical path `P` (the result file; `P.info`, `P.files/` beside it). */
  path: string;
  /** Its `.info`, once read (null when missing or unreadable). */
  info: JobInfo | null;
}

/** A chat or a job. */
export type NodeRef = ChatRef | JobRef;

/** One step of {@link traverseProvenance}: a node and the edge that reached it. */
export interface TraversalRecord {
  /** Kind of the node. */
  kind: NodeKind;
  /** The node (one shared object per node id). */
  node: NodeRef;
  /** Kind of the parent, null for the root. */
  parentKind: NodeKind | null;
  /** The parent, null for the root. */
  parent: NodeRef | null;
  /** The relation from parent to node, null for the root. */
  relation: Relation | null;
  /** True the first time this node id is yielded (then it is expanded). */
  firstVisit: boolean;
  /** The receipt entry behind an `agent_job` edge, else null. */
  detail: ReceiptJobReference | null;
}

/**
 * A traversal problem: a {@link ScoutError} whose code is one of
 * `chat_unreadable`, `unresolved_job_reference`, `receipt_problem`,
 * `job_info_unreadable`, `missing_dependency`, `log_dir_unreadable`, with the
 * node and relation it is about.
 */
export type ProvenanceError = ScoutError & {
  /** Kind of the node being expanded. */
  kind: NodeKind;
  /** Canonical path of that node. */
  nodePath: string;
  /** Relation being followed (null for the root's own read). */
  relation: Relation | null;
  /** What could not be followed: a raw reference, a path, or a ReceiptProblem. */
  reference: unknown;
  /** For receipt problems: the reason (`not_an_array` … `unresolved_job_reference`). */
  reason?: string;
};

/** Receives traversal problems instead of throwing. A throwing callback aborts the traversal. */
export type OnError = (
  error: ProvenanceError,
  kind: NodeKind,
  node: NodeRef,
  relation: Relation | null,
  reference: unknown,
) => void;

/** A chat as the traversal read it: handed to {@link TraverseOptions.onChat}. */
export interface LoadedChat {
  /** Canonical path. */
  path: string;
  /** Parsed messages (nothing compiled). */
  messages: Message[];
  /** Valid receipt entries, when `agent_job` is followed (else null: not extracted). */
  receipts: ReceiptEvidence[] | null;
  /** Problems found while extracting them (null when not extracted). */
  receiptProblems: ReceiptProblem[] | null;
}

/**
 * Where a walk starts: one root (a path, or a job reference), or several
 * walked together as one traversal (`llm prov ROOT…`, R134-1): the queue
 * starts with each root in the order given, each yielded with a null parent
 * and relation, and a node (and so an inference) reached from two roots is
 * expanded once. Roots naming one node are one root.
 */
export type ProvenanceRoots = string | JobRef | readonly (string | JobRef)[];

/** Options of {@link traverseProvenance} and the collectors built on it. */
export interface TraverseOptions {
  /** Kind of a string root (default `chat`; the library never guesses). */
  rootType?: NodeKind;
  /** `all` (default), one relation, or a list: restricts expansion. */
  follow?: "all" | Relation | readonly Relation[];
  /** Receives problems; without it the first problem is thrown. */
  onError?: OnError;
  /** Directory relative paths resolve against (default `process.cwd()`). */
  cwd?: string;
  /** Job roots for short job references (default {@link defaultJobRoots}). */
  jobRoots?: readonly string[];
  /** Environment for the default job roots (`SCOUT_HOME`, `HOME`). */
  env?: Record<string, string | undefined>;
  /** Called once per chat node read, with its messages (lets a caller analyse each file once). */
  onChat?: (chat: LoadedChat) => void;
  /**
   * Pair each chat's tool calls as it is read (`ChatFacts.toolCalls`, given
   * to `provenanceReport`'s `onChatFacts`): unlike `onChat`, this keeps the
   * walk's helper thread, which does the pairing.
   */
  toolCalls?: boolean;
}

/** Workflow facts of a job node (from its `.info`). */
export interface JobSummary {
  /** `info.workflow`. */
  workflow: string | null;
  /** `info.task_name`. */
  task: string | null;
  /** `info.type`. */
  type: string | null;
  /** `info.status`, or what `ReportOptions.jobStatus` makes of it (`stale`…). */
  status: string | null;
  /** Basename without `Default_`, first 8 characters. */
  shortId: string;
  /**
   * For an earlier attempt of a job (`<job>.files/.attempts/<n>`, R109-3):
   * its number; absent for every other job.
   */
  attempt?: number;
}
