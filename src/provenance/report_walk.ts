/**
 * The walk behind the `prov` report (issue 16): one traversal indexed into
 * a graph of node numbers (children, first parents, logs, deduplicated
 * edges as columns) while each chat's facts go to the store and the event
 * table as they arrive. Ids and edge records are made by the report's last
 * stages ({@link nodeIds}, {@link edgeRecords}).
 *
 * @module
 */
import type { ReceiptJobReference } from "../chat/receipts.ts";
import {
  type NodeRef,
  PROVENANCE_RELATIONS,
  type ProvenanceError,
  type ProvenanceRoots,
  type Relation,
} from "./types.ts";
import { walkProvenance } from "./traverse.ts";
import { nodeId } from "./paths.ts";
import { fresh } from "./evidence.ts";
import { jobSummary } from "./labels.ts";
import { type ChatStore, chatStore } from "./chat_store.ts";
import { type EventTable, eventTable } from "./event_table.ts";
import { grown } from "./typed.ts";
import { addChild, type ChildPairs, childPairs } from "./child_lists.ts";
import type { EdgeDetail, JobSummary, ReportEdge, ReportOptions } from "./report_types.ts";

function edgeDetail(d: ReceiptJobReference | null): EdgeDetail | null {
  if (d === null) return null;
  return {
    callId: fresh(d.callId),
    toolName: fresh(d.toolName),
    outputAddress: d.outputAddress,
    evidenceAddress: d.evidenceAddress,
    agentMetaIndex: d.agentMetaIndex,
    reference: fresh(d.job),
  };
}

const PROGRESS_EVERY = 500;
/** Node numbers stay below this in numeric edge keys (exact below 2^53). */
const NODE_LIMIT = 2 ** 21;
/** Relations by code (edge keys and {@link WalkedEdges.codes}). */
const RELATIONS: readonly Relation[] = PROVENANCE_RELATIONS;
const RELATION_CODE = Object.fromEntries(RELATIONS.map((r, i) => [r, i])) as Record<
  Relation,
  number
>;
const FIRST_VISIT = 8;

/** The graph one walk saw, by node index (the root is 0). */
export interface WalkedGraph {
  /** The roots' node indices, in the order given (the first is 0). */
  roots: number[];
  /** One NodeRef per node (a job's `.info` is let go once expanded: see `jobs`). */
  refs: NodeRef[];
  /** The summary of each job node's `.info` (null for chats). */
  jobs: (JobSummary | null)[];
  /** (parent, child) per record (repeats allowed), in expansion order: see `childLists`. */
  children: ChildPairs;
  /** The parent of each node's first edge, -1 for the root. */
  firstFrom: number[];
  /** Nodes reached by a `result` edge. */
  resultTargets: Set<number>;
  /** The log chats of each job. */
  logsOf: Map<number, number[]>;
  /** The deduplicated discovery edges, as columns ({@link edgeRecords} makes the records). */
  edges: WalkedEdges;
}

/** Deduplicated discovery edges by edge number, in discovery order. */
export interface WalkedEdges {
  /** Number of edges. */
  count: number;
  /** Node indices of each edge: from, to (2 per edge; grown ahead of need). */
  ends: Int32Array;
  /** Relation of each edge, as its index in {@link RELATIONS}, plus 8 when it was its target's first record. */
  codes: Uint8Array;
  /** The receipt entry of each `agent_job` edge, by edge number. */
  details: Map<number, EdgeDetail>;
}

/** What each chat's facts gave, as they arrived. */
export interface ChatEvidence {
  /** The chats read, their facts stored out of the way. */
  store: ChatStore;
  /** Events grouped so far (chat metas; receipts come at `finish`). */
  table: EventTable;
}

function emptyGraph(): WalkedGraph {
  return {
    roots: [],
    refs: [],
    jobs: [],
    children: childPairs(),
    firstFrom: [],
    resultTargets: new Set(),
    logsOf: new Map(),
    edges: { count: 0, ends: new Int32Array(512), codes: new Uint8Array(256), details: new Map() },
  };
}

/** Adds an edge to the columns. */
function addEdge(
  edges: WalkedEdges,
  from: number,
  to: number,
  relation: Relation,
  firstVisit: boolean,
  detail: EdgeDetail | null,
): void {
  const k = edges.count++;
  edges.ends = grown(edges.ends, 2 * k + 2);
  edges.codes = grown(edges.codes, k + 1);
  edges.ends[2 * k] = from;
  edges.ends[2 * k + 1] = to;
  edges.codes[k] = RELATION_CODE[relation] + (firstVisit ? FIRST_VISIT : 0);
  if (detail !== null) edges.details.set(k, detail);
}

/**
 * The node id of each node (`chat:<path>`, `job:<path>`).
 *
 * @param g the walked graph
 * @returns ids by node index
 */
export function nodeIds(g: WalkedGraph): string[] {
  return g.refs.map((n) => nodeId(n.kind, n.path));
}

/**
 * The edge records of the report, made last: on a big store they would
 * otherwise live through every stage after the walk (~165,000 at 2 GB).
 *
 * @param edges the walk's edge columns
 * @param ids node ids by index
 * @returns the records, in discovery order
 */
export function edgeRecords(edges: WalkedEdges, ids: readonly string[]): ReportEdge[] {
  const out: ReportEdge[] = new Array(edges.count);
  for (let k = 0; k < edges.count; k++) {
    const code = edges.codes[k]!;
    out[k] = {
      from: ids[edges.ends[2 * k]!]!,
      to: ids[edges.ends[2 * k + 1]!]!,
      relation: RELATIONS[code & (FIRST_VISIT - 1)]!,
      firstVisit: (code & FIRST_VISIT) !== 0,
      detail: edges.details.get(k) ?? null,
    };
  }
  return out;
}

/** Walks once, indexing nodes and deduplicating edges, and reads each chat's evidence. */
export function walkGraph(
  root: ProvenanceRoots,
  o: ReportOptions,
  onError: (error: ProvenanceError) => void,
): { g: WalkedGraph; chats: ChatEvidence } {
  // Per-file work is done as each chat's facts arrive: when chats are read
  // on a helper thread, this thread would otherwise wait for them.
  const store = chatStore({ spillAt: o.spillAt });
  const chats: ChatEvidence = { store, table: eventTable(store) };
  const run = walkProvenance(root, {
    ...o,
    releaseInfo: true, // read once, into its summary (below)
    onError,
    onFacts: (facts) => {
      chats.table.addChat(store.add(facts), facts.evidence);
      o.onChatFacts?.(facts);
    },
  });
  const g = emptyGraph();
  // Node index by object: the traversal hands out one NodeRef object per node.
  const index = new WeakMap<NodeRef, number>();
  // Edge keys: a number for plain edges, text for receipt edges (their address).
  const edgeKeys = new Set<number | string>();
  let records = 0;
  for (const r of run) {
    if (o.onProgress && ++records % PROGRESS_EVERY === 0) o.onProgress(records, store.count);
    let i = index.get(r.node);
    if (i === undefined) {
      i = g.refs.length;
      index.set(r.node, i);
      const n = r.node;
      // a job's .info is read once, into its summary (the walk lets it go: releaseInfo)
      g.refs.push(n);
      g.jobs.push(n.kind === "job" ? jobSummary(n.path, n.info, o.jobStatus) : null);
      g.firstFrom.push(-1);
    }
    if (r.parent === null || r.relation === null) {
      g.roots.push(i); // the roots, first in the queue, once each (given twice: one root)
      continue;
    }
    const p = index.get(r.parent)!;
    addChild(g.children, p, i);
    if (g.firstFrom[i] === -1) g.firstFrom[i] = p;
    if (r.relation === "result") g.resultTargets.add(i);
    const key = r.detail === null && i < NODE_LIMIT
      ? (p * NODE_LIMIT + i) * 8 + RELATION_CODE[r.relation]
      : `${r.relation} ${p} ${i} ${JSON.stringify(r.detail?.evidenceAddress ?? null)}`;
    if (edgeKeys.has(key)) continue;
    edgeKeys.add(key);
    if (r.relation === "log") (g.logsOf.get(p) ?? g.logsOf.set(p, []).get(p)!).push(i);
    addEdge(g.edges, p, i, r.relation, r.firstVisit, edgeDetail(r.detail));
  }
  o.onProgress?.(records, store.count);
  return { g, chats };
}
