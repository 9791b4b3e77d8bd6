/**
 * The report behind `scout-ai llm prov` (`provenance.md` §10.2): one
 * traversal collected into plain nodes and edges with direct and subtree
 * tokens, hidden nodes and their owners, display edges, events, totals and
 * warnings. Renderers (tree, flow, DOT, evidence, JSON) are pure functions of
 * this record. The record's types are in `report_types.ts`, labels in
 * `labels.ts`, display edges in `display.ts`, receipt summaries in
 * `report_receipts.ts`; this file walks and assembles.
 *
 * @module
 */
import { basename, dirname } from "node:path";
import type { TokenTotals } from "../chat/trace.ts";
import type { ReceiptJobReference, ReceiptProblem } from "../chat/receipts.ts";
import type { JobRef, NodeRef, ProvenanceError, Relation } from "./types.ts";
import { followSet, walkProvenance } from "./traverse.ts";
import { nodeId } from "./paths.ts";
import { fresh, identityConflict } from "./evidence.ts";
import { problemKey } from "./tokens.ts";
import { subtreeTotals } from "./subtree.ts";
import { type ChatStore, chatStore } from "./chat_store.ts";
import { type EventTable, eventTable } from "./event_table.ts";
import { jobLabel, jobSummary, logLabel } from "./labels.ts";
import { displayEdges } from "./display.ts";
import { societyCallers } from "./society.ts";
import { collectIfGrown } from "../util/gc.ts";
import {
  addJobReceipts,
  type ReceiptsOfChat,
  receiptSummaries,
  summarize,
} from "./report_receipts.ts";
import type {
  EdgeDetail,
  HiddenReason,
  JobSummary,
  ProvenanceReport,
  ReportEdge,
  ReportNode,
  ReportOptions,
  ReportWarning,
} from "./report_types.ts";

export type {
  DisplayEdge,
  EdgeDetail,
  HiddenReason,
  JobSummary,
  ProvenanceReport,
  ReceiptSummary,
  ReportEdge,
  ReportNode,
  ReportOptions,
  ReportTotals,
  ReportWarning,
} from "./report_types.ts";
export { jobLabel, jobShortId, logLabel } from "./labels.ts";
export { relationRank } from "./display.ts";

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
interface WalkedGraph {
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
interface ChatEvidence {
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
function walkGraph(
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

/** Warnings for the receipt problems the traversal did not report (agent_job not followed). */
function unreportedProblems(store: ChatStore, reported: Set<string>): ReportWarning[] {
  const out: ReportWarning[] = [];
  for (let seq = 0; seq < store.count; seq++) {
    for (const p of store.problems(seq)) {
      if (reported.has(problemKey(p))) continue;
      reported.add(problemKey(p));
      out.push({
        code: "receipt_problem",
        message: `${p.message}: ${p.detail}`,
        kind: "chat",
        node: nodeId("chat", store.path(seq)),
        relation: "agent_job",
        reference: p,
        reason: p.reason,
      });
    }
  }
  return out;
}

function conflictWarnings(table: EventTable): ReportWarning[] {
  const out: ReportWarning[] = [];
  for (let i = 0; i < table.count(); i++) {
    if (!table.conflict(i)) continue;
    const e = table.event(i);
    const c = identityConflict(e);
    out.push({
      code: "identity_conflict",
      message: c.message,
      kind: "chat",
      node: nodeId("chat", e.evidence[0]!.source),
      relation: null,
      reference: c,
    });
  }
  return out;
}

function hiddenReason(g: WalkedGraph, i: number): HiddenReason | null {
  const n = g.refs[i]!;
  if (i === 0 || n.kind !== "chat") return null;
  if (g.resultTargets.has(i)) return "result_chat";
  return basename(n.path) === "agent.chat" && basename(dirname(n.path)) === "log"
    ? "top_level_agent_log"
    : null;
}

/** A chat's own tokens, or a job's: its log chats', each inference once (`localTokens`). */
function directTokens(g: WalkedGraph, chats: ChatEvidence, i: number): TokenTotals {
  const { store, table } = chats;
  const n = g.refs[i]!;
  const seqs: number[] = [];
  for (const c of n.kind === "chat" ? [i] : g.logsOf.get(i) ?? []) {
    const seq = store.seqOf(g.refs[c]!.path);
    if (seq !== undefined) seqs.push(seq);
  }
  return table.localTotals(seqs);
}

/** The report nodes, and the owner index of each hidden node (else null). */
function reportNodes(
  g: WalkedGraph,
  chats: ChatEvidence,
  receiptsBySource: ReadonlyMap<string, ReceiptsOfChat>,
  subtree: readonly TokenTotals[],
  callers: ReadonlyMap<number, number>,
): { nodes: ReportNode[]; ownerOf: (number | null)[] } {
  const { table } = chats;
  const tt = (e: number) => table.tokensOf(e).tt;
  const ownerOf: (number | null)[] = [];
  const nodes: ReportNode[] = g.refs.map((n, i) => {
    const from = g.firstFrom[i]!;
    const ownerIdx = from !== -1 && g.refs[from]!.kind === "job" ? from : null;
    const hidden = hiddenReason(g, i);
    const job = g.jobs[i]!;
    let label: string | null = null;
    if (hidden === null) {
      if (job !== null) label = jobLabel(job);
      else if (i === 0) label = basename(n.path);
      else {
        const owner = ownerIdx === null ? null : g.refs[ownerIdx]!.path;
        label = logLabel(n.path, owner, dirname(g.refs[0]!.path));
      }
    }
    ownerOf.push(hidden !== null ? ownerIdx : null);
    const direct = directTokens(g, chats, i);
    return {
      id: g.ids[i]!,
      kind: n.kind,
      path: n.path,
      label,
      hidden,
      owner: hidden !== null && ownerIdx !== null ? g.ids[ownerIdx]! : null,
      caller: callers.has(i) ? g.ids[callers.get(i)!]! : null,
      job,
      tokens: { direct, subtree: subtree[i]! },
      receipts: n.kind === "chat" ? summarize(receiptsBySource.get(n.path), tt) : null,
    };
  });
  addJobReceipts(nodes, receiptsBySource, tt);
  return { nodes, ownerOf };
}

/**
 * Walks provenance from `root` once and builds the report: nodes with labels
 * and direct/subtree tokens, edges, display edges, events, totals and
 * warnings. Problems never abort: they become warnings (and `complete:
 * false`). Nothing is executed.
 *
 * @param root chat path, job path (with `rootType: "job"`) or a JobRef
 * @param o traversal options (`onError` is replaced: problems are collected)
 * @returns the report
 * @throws ScoutError `root_not_found`, `invalid_follow`
 */
export function provenanceReport(root: string | JobRef, o: ReportOptions = {}): ProvenanceReport {
  const warnings: ReportWarning[] = [];
  const reported = new Set<string>();
  const onError = (error: ProvenanceError) => {
    const problem = (error as ProvenanceError & { problem?: ReceiptProblem }).problem;
    if (problem !== undefined) reported.add(problemKey(problem));
    warnings.push({
      code: error.code,
      message: error.message,
      kind: error.kind,
      node: nodeId(error.kind, error.nodePath),
      relation: error.relation,
      reference: error.reference,
      ...(error.reason === undefined ? {} : { reason: error.reason }),
    });
  };
  const { g, chats } = walkGraph(root, o, onError);
  o.onPhase?.("walk");
  const { store, table } = chats;
  warnings.push(...unreportedProblems(store, reported));
  const complete = warnings.length === 0;

  o.onPhase?.("problems");
  collectIfGrown();
  const receiptsBySource = receiptSummaries((visit) =>
    table.finish((e, seq, tool) => visit(e, store.path(seq), tool))
  );
  warnings.push(...conflictWarnings(table));

  o.onPhase?.("receipts");
  // A nested society's log counts (and shows) under its caller's log too.
  const callers = societyCallers(g.refs, g.logsOf);
  const children = g.children.map((c) => c.slice());
  for (const [nested, caller] of callers) children[caller]!.push(nested);
  const fileNode = new Map<string, number>();
  const seqNode = new Int32Array(store.count).fill(-1);
  g.refs.forEach((n, i) => {
    if (n.kind !== "chat") return;
    fileNode.set(n.path, i);
    const seq = store.seqOf(n.path);
    if (seq !== undefined) seqNode[seq] = i;
  });
  o.onPhase?.("callers");
  collectIfGrown();
  const subtree = subtreeTotals({ children, fileNode }, {
    count: table.count,
    addTokensTo: table.addTokensTo,
    uniform: table.uniform,
    event: table.event,
    nodes: (e, out) => {
      table.files(e, out);
      for (let k = 0; k < out.length; k++) out[k] = seqNode[out[k]!]!;
      return out;
    },
  });
  o.onPhase?.("subtree");
  collectIfGrown();
  const { nodes, ownerOf } = reportNodes(g, chats, receiptsBySource, subtree, callers);

  o.onPhase?.("nodes");
  collectIfGrown();
  const counts = table.counts();
  return {
    root: nodes[0]!.id,
    follow: [...followSet(o.follow)],
    complete,
    nodes,
    edges: g.edges,
    displayEdges: displayEdges(g.edges, g.edgeEnds, nodes, ownerOf, callers),
    events: table.view(),
    totals: {
      ...table.scopes(),
      authoritative: counts.conflictEvents === 0,
      ...counts,
    },
    warnings,
  };
}
