/**
 * A report's nodes as columns (issue 16): per node its id, kind, path,
 * hidden reason, owner and caller indices, job summary, direct and subtree
 * token values, receipts and costs, and a {@link ReportNode} record made
 * each time one is asked for. On the 2 GB bench store the records — a
 * record, a tokens pair, two token records and a label per node, ~120,000
 * nodes — were the largest part of the finished report, and the renderers
 * read each node once or twice.
 *
 * @module
 */
import type { TokenTotals } from "../chat/trace.ts";
import type { NodeKind } from "./types.ts";
import type {
  ChatFailure,
  HiddenReason,
  JobSummary,
  NodeCost,
  ReceiptSummary,
  ReportNode,
  ReportNodes,
} from "./report_types.ts";
import { jobLabel, logLabel, rootChatLabel } from "./labels.ts";
import { type TokenColumn, tokensAt } from "./typed.ts";

/** Hidden reasons by code (0: shown). */
const HIDDEN: readonly (HiddenReason | null)[] = [null, "result_chat", "top_level_agent_log"];

/**
 * The code of a hidden reason in {@link NodeColumns.hidden}.
 *
 * @param reason a hidden reason or null
 * @returns 0 for null, else its code
 */
export function hiddenCode(reason: HiddenReason | null): number {
  return HIDDEN.indexOf(reason);
}

/** What {@link nodeTable} makes records from; index `i` is node `i`. */
export interface NodeColumns {
  /** Node ids (`kind:path`). */
  ids: readonly string[];
  /** Kinds. */
  kinds: readonly NodeKind[];
  /** Canonical paths. */
  paths: readonly string[];
  /** {@link hiddenCode} of each node's hidden reason. */
  hidden: Uint8Array;
  /** The job a node was first reached from, or -1 (its owner when hidden; labels use it). */
  firstJob: Int32Array;
  /** A nested society log's caller log, or -1. */
  caller: Int32Array;
  /** Job summaries (null for chats). */
  jobs: readonly (JobSummary | null)[];
  /** Direct token values, six per node (`TOKEN_KEYS` order). */
  direct: TokenColumn;
  /** Subtree token values, six per node. */
  subtree: TokenColumn;
  /** The reruns the views mark (`labels.ts` `rerunMarks`): run numbers by node index. */
  reruns: ReadonlyMap<number, number>;
  /** Receipt summaries by node index (nodes without receipts absent). */
  receipts: ReadonlyMap<number, ReceiptSummary>;
  /** Chats whose last inference failed (R127-2), by node index. */
  failures: ReadonlyMap<number, ChatFailure>;
  /** Direct and subtree costs by node index (with prices), else null. */
  costs: readonly { direct: NodeCost; subtree: NodeCost }[] | null;
  /** The root's directory: other chats outside any job are labelled relative to it. */
  rootDir: string;
  /** The roots' node indices beyond node 0 (several roots, R134-1): labelled as the root is. */
  otherRoots?: ReadonlySet<number>;
}

/**
 * The job that owns node `i` when it is hidden (the job it was first reached
 * from), else -1.
 *
 * @param c the hidden codes and first jobs of the nodes
 * @param i a node index
 * @returns a node index or -1
 */
export function hiddenOwner(c: Pick<NodeColumns, "hidden" | "firstJob">, i: number): number {
  return c.hidden[i] !== 0 ? c.firstJob[i]! : -1;
}

/** Six token values of node `i` in two columns are equal. */
function sameAt(a: TokenColumn, b: TokenColumn, i: number): boolean {
  for (let k = 6 * i; k < 6 * i + 6; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** A node's label (null when hidden). */
function labelOf(c: NodeColumns, i: number): string | null {
  if (c.hidden[i] !== 0) return null;
  const job = c.jobs[i];
  if (job) return jobLabel(job);
  if (i === 0 || c.otherRoots?.has(i)) return rootChatLabel(c.paths[i]!);
  const owner = c.firstJob[i]!;
  return logLabel(c.paths[i]!, owner === -1 ? null : c.paths[owner]!, c.rootDir);
}

/**
 * Node `i`'s record, made now. Direct and subtree tokens are one record when
 * their values are equal (a leaf's are).
 *
 * @param c the columns
 * @param i a node index
 * @returns the record
 */
export function nodeAt(c: NodeColumns, i: number): ReportNode {
  const hidden = HIDDEN[c.hidden[i]!]!;
  const owner = hiddenOwner(c, i);
  const caller = c.caller[i]!;
  const subtree: TokenTotals = tokensAt(c.subtree, 6 * i);
  const node: ReportNode = {
    id: c.ids[i]!,
    kind: c.kinds[i]!,
    path: c.paths[i]!,
    label: labelOf(c, i),
    hidden,
    owner: owner === -1 ? null : c.ids[owner]!,
    caller: caller === -1 ? null : c.ids[caller]!,
    job: c.jobs[i] ?? null,
    tokens: {
      direct: sameAt(c.direct, c.subtree, i) ? subtree : tokensAt(c.direct, 6 * i),
      subtree,
    },
    receipts: c.receipts.get(i) ?? null,
  };
  if (c.costs !== null) node.cost = c.costs[i]!;
  const rerun = c.reruns.get(i);
  if (rerun !== undefined) node.rerun = rerun;
  const failure = c.failures.get(i);
  if (failure !== undefined) node.failure = failure;
  return node;
}

/**
 * The nodes of a report as columns: records made when asked for. Iterating
 * makes each record once; `JSON.stringify` prints the array of records.
 *
 * @param c the columns
 * @returns the nodes
 */
export function nodeTable(c: NodeColumns): ReportNodes & { toJSON(): ReportNode[] } {
  const length = c.ids.length;
  return {
    length,
    at(index) {
      const i = index < 0 ? index + length : index;
      return i >= 0 && i < length ? nodeAt(c, i) : undefined;
    },
    *[Symbol.iterator]() {
      for (let i = 0; i < length; i++) yield nodeAt(c, i);
    },
    toJSON: () => Array.from({ length }, (_, i) => nodeAt(c, i)),
  };
}
