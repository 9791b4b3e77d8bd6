/**
 * The walk behind the `prov` report (issue 16): one traversal indexed into
 * a graph of node numbers (children, first parents, logs, deduplicated
 * edges as columns) while each chat's facts go to the store and the event
 * table as they arrive. Ids and edge records are made once the walk ends.
 *
 * @module
 */
import type { ReceiptJobReference } from "../chat/receipts.ts";
import type { JobRef, NodeRef, ProvenanceError, Relation } from "./types.ts";
import { walkProvenance } from "./traverse.ts";
import { nodeId } from "./paths.ts";
import { fresh } from "./evidence.ts";
import { jobSummary } from "./labels.ts";
import { type ChatStore, chatStore } from "./chat_store.ts";
import { type EventTable, eventTable } from "./event_table.ts";
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
const RELATION_CODE: Record<Relation, number> = {
  job: 0,
  dependency: 1,
  log: 2,
  result: 3,
  agent_job: 4,
};

/** The graph one walk saw, by node index (the root is 0). */
export interface WalkedGraph {
  /** One NodeRef per node (jobs without their `.info`: see `jobs`). */
  refs: NodeRef[];
  /** The summary of each job node's `.info` (null for chats). */
  jobs: (JobSummary | null)[];
  /** Node id per index (one string per node, shared by its edges). */
  ids: string[];
  /** Children per node, one per record (repeats allowed), in expansion order. */
  children: number[][];
  /** The parent of each node's first edge, -1 for the root. */
  firstFrom: number[];
  /** Nodes reached by a `result` edge. */
  resultTargets: Set<number>;
  /** The log chats of each job. */
  logsOf: Map<number, number[]>;
  /** Deduplicated discovery edges (made from the columns below once the walk ends). */
  edges: ReportEdge[];
  /** Node indices of each edge: from, to. */
  edgeEnds: number[];
  /** Relation of each edge. */
  edgeRelations: Relation[];
  /** Whether each edge was its target's first record. */
  edgeFirstVisits: boolean[];
  /** The receipt entry of each `agent_job` edge, by edge number. */
  edgeDetails: Map<number, EdgeDetail>;
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
    refs: [],
    jobs: [],
    ids: [],
    children: [],
    firstFrom: [],
    resultTargets: new Set(),
    logsOf: new Map(),
    edges: [],
    edgeEnds: [],
    edgeRelations: [],
    edgeFirstVisits: [],
    edgeDetails: new Map(),
  };
}

/** Walks once, indexing nodes and deduplicating edges, and reads each chat's evidence. */
export function walkGraph(
  root: string | JobRef,
  o: ReportOptions,
  onError: (error: ProvenanceError) => void,
): { g: WalkedGraph; chats: ChatEvidence } {
  // Per-file work is done as each chat's facts arrive: when chats are read
  // on a helper thread, this thread would otherwise wait for them.
  const store = chatStore({ spillAt: o.spillAt });
  const chats: ChatEvidence = { store, table: eventTable(store) };
  const run = walkProvenance(root, {
    ...o,
    onError,
    onFacts: (facts) => {
      chats.table.addChat(store.add(facts), facts.evidence);
      o.onChatFacts?.(facts);
    },
  });
  const g = emptyGraph();
  // Node index by object: the traversal hands out one NodeRef object per node
  // (weakly: once the walk ends, its job nodes and their .info go).
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
      // a job's .info is read once, into its summary
      g.refs.push(n.kind === "job" ? { kind: "job", path: n.path, info: null } : n);
      g.jobs.push(n.kind === "job" ? jobSummary(n.path, n.info) : null);
      g.children.push([]);
      g.firstFrom.push(-1);
    }
    if (r.parent === null || r.relation === null) continue;
    const p = index.get(r.parent)!;
    g.children[p]!.push(i);
    if (g.firstFrom[i] === -1) g.firstFrom[i] = p;
    if (r.relation === "result") g.resultTargets.add(i);
    const key = r.detail === null && i < NODE_LIMIT
      ? (p * NODE_LIMIT + i) * 8 + RELATION_CODE[r.relation]
      : `${r.relation} ${p} ${i} ${JSON.stringify(r.detail?.evidenceAddress ?? null)}`;
    if (edgeKeys.has(key)) continue;
    edgeKeys.add(key);
    if (r.relation === "log") (g.logsOf.get(p) ?? g.logsOf.set(p, []).get(p)!).push(i);
    if (r.detail !== null) g.edgeDetails.set(g.edgeRelations.length, edgeDetail(r.detail)!);
    g.edgeEnds.push(p, i);
    g.edgeRelations.push(r.relation);
    g.edgeFirstVisits.push(r.firstVisit);
  }
  o.onProgress?.(records, store.count);
  // Ids and edges are made now, once the walk's own structures are gone.
  g.ids = g.refs.map((n) => nodeId(n.kind, n.path));
  g.edges = g.edgeRelations.map((relation, k) => ({
    from: g.ids[g.edgeEnds[2 * k]!]!,
    to: g.ids[g.edgeEnds[2 * k + 1]!]!,
    relation,
    firstVisit: g.edgeFirstVisits[k]!,
    detail: g.edgeDetails.get(k) ?? null,
  }));
  return { g, chats };
}
