/**
 * The report behind `scout-ai llm prov` (`provenance.md` §10.2): one
 * traversal collected into plain nodes and edges with direct and subtree
 * tokens, hidden nodes and their owners, display edges, events, totals and
 * warnings. Renderers (tree, flow, DOT, evidence, JSON) are pure functions of
 * this record.
 *
 * @module
 */
import { basename, dirname } from "node:path";
import { emptyTokens, type TokenTotals } from "../chat/trace.ts";
import type { ReceiptJobReference, ReceiptProblem } from "../chat/receipts.ts";
import type {
  JobInfo,
  JobRef,
  NodeKind,
  NodeRef,
  ProvenanceError,
  Relation,
  TraverseOptions,
} from "./types.ts";
import { walkProvenance } from "./traverse.ts";
import { nodeId } from "./paths.ts";
import {
  eventGrouping,
  type FileEvidence,
  fresh,
  identityConflict,
  localTokens,
  scopeTotals,
  type TokenEvent,
} from "./evidence.ts";
import { problemKey } from "./tokens.ts";
import { subtreeTotals } from "./subtree.ts";
import { followSet } from "./traverse.ts";

/** Why a node is not displayed. */
export type HiddenReason = "result_chat" | "top_level_agent_log";

/** Workflow facts of a job node (from its `.info`). */
export interface JobSummary {
  /** `info.workflow`. */
  workflow: string | null;
  /** `info.task_name`. */
  task: string | null;
  /** `info.type`. */
  type: string | null;
  /** `info.status`. */
  status: string | null;
  /** Basename without `Default_`, first 8 characters. */
  shortId: string;
}

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
  /** Workflow facts of a job, or null for chats. */
  job: JobSummary | null;
  /** Direct tokens (a chat's own metas; a job's logs) and subtree tokens (all it reaches). */
  tokens: { direct: TokenTotals; subtree: TokenTotals };
  /** Receipt evidence, or null when there is none. */
  receipts: ReceiptSummary | null;
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
  /** Root node id. */
  root: string;
  /** Relations followed. */
  follow: Relation[];
  /** False when some evidence could not be read. */
  complete: boolean;
  /** Nodes in first-visit order. */
  nodes: ReportNode[];
  /** Deduplicated discovery edges. */
  edges: ReportEdge[];
  /** Display edges (hidden nodes folded), in discovery order. */
  displayEdges: DisplayEdge[];
  /** The root's token events. */
  events: TokenEvent[];
  /** Totals by scope. */
  totals: ReportTotals;
  /** Problems and conflicts, in discovery order. */
  warnings: ReportWarning[];
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
}

/**
 * The short id of a job: its basename without a leading `Default_`, first 8 characters.
 *
 * @param path job path
 * @returns the short id
 */
export function jobShortId(path: string): string {
  return basename(path).replace(/^Default_/, "").slice(0, 8);
}

function str(v: unknown): string | null {
  return typeof v === "string" && v !== "" ? v : null;
}

function jobSummary(path: string, info: JobInfo | null): JobSummary {
  return {
    workflow: str(info?.workflow),
    task: str(info?.task_name),
    type: str(info?.type),
    status: str(info?.status),
    shortId: jobShortId(path),
  };
}

/**
 * The default label of a job: `<workflow>/<task> <shortId>` when its info
 * names both, else the short id.
 *
 * @param job workflow facts
 * @returns the label
 */
export function jobLabel(job: JobSummary): string {
  return job.workflow !== null && job.task !== null
    ? `${job.workflow}/${job.task} ${job.shortId}`
    : job.shortId;
}

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
  const files = new Map<string, FileEvidence>();
  const warnings: ReportWarning[] = [];
  const reported = new Set<string>();
  let complete = true;
  const onError = (error: ProvenanceError) => {
    complete = false;
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

  // Node index by object: the traversal hands out one NodeRef object per node.
  const index = new Map<NodeRef, number>();
  const refs: NodeRef[] = [];
  const ids: string[] = []; // node id per index (one string per node, shared by its edges)
  const children: number[][] = [];
  const firstIncoming: ({ from: number; relation: Relation } | null)[] = [];
  const resultTargets = new Set<number>();
  const logsOf = new Map<number, number[]>();
  const edges: ReportEdge[] = [];
  const edgeEnds: number[] = []; // node indices of each edge: from, to
  const edgeKeys = new Set<string>();
  let records = 0;
  // Per-file work is done as each chat's facts arrive: when chats are read
  // on a helper thread, this thread would otherwise wait for them.
  const grouping = eventGrouping();
  const directOfChat = new Map<string, TokenTotals>();
  const run = walkProvenance(root, {
    ...o,
    onError,
    onFacts: (facts) => {
      files.set(facts.path, facts.evidence);
      grouping.addChatMetas(facts.evidence);
      directOfChat.set(facts.path, localTokens([facts.evidence]));
    },
  });
  for (const r of run) {
    if (o.onProgress && ++records % PROGRESS_EVERY === 0) o.onProgress(records, files.size);
    let i = index.get(r.node);
    if (i === undefined) {
      i = refs.length;
      index.set(r.node, i);
      refs.push(r.node);
      ids.push(nodeId(r.node.kind, r.node.path));
      children.push([]);
      firstIncoming.push(null);
    }
    if (r.parent === null || r.relation === null) continue;
    const p = index.get(r.parent)!;
    children[p]!.push(i);
    firstIncoming[i] ??= { from: p, relation: r.relation };
    if (r.relation === "result") resultTargets.add(i);
    const key = `${r.relation} ${p} ${i}${
      r.detail === null ? "" : " " + JSON.stringify(r.detail.evidenceAddress)
    }`;
    if (edgeKeys.has(key)) continue;
    edgeKeys.add(key);
    if (r.relation === "log") (logsOf.get(p) ?? logsOf.set(p, []).get(p)!).push(i);
    edgeEnds.push(p, i);
    edges.push({
      from: ids[p]!,
      to: ids[i]!,
      relation: r.relation,
      firstVisit: r.firstVisit,
      detail: edgeDetail(r.detail),
    });
  }
  o.onProgress?.(records, files.size);

  // Receipt problems the traversal did not report (agent_job not followed).
  for (const f of files.values()) {
    for (const p of f.receiptProblems) {
      if (reported.has(problemKey(p))) continue;
      reported.add(problemKey(p));
      complete = false;
      warnings.push({
        code: "receipt_problem",
        message: `${p.message}: ${p.detail}`,
        kind: "chat",
        node: nodeId("chat", f.path),
        relation: "agent_job",
        reference: p,
        reason: p.reason,
      });
    }
  }

  const chatFiles = refs.flatMap((n) =>
    n.kind === "chat" && files.has(n.path) ? [files.get(n.path)!] : []
  );
  const events = grouping.finish(chatFiles);
  for (const e of events) {
    if (!e.conflict) continue;
    const c = identityConflict(e);
    const src = e.evidence[0]!.source;
    warnings.push({
      code: "identity_conflict",
      message: c.message,
      kind: "chat",
      node: nodeId("chat", src),
      relation: null,
      reference: c,
    });
  }

  const fileNode = new Map<string, number>();
  refs.forEach((n, i) => n.kind === "chat" && fileNode.set(n.path, i));
  const subtree = subtreeTotals({ children, fileNode }, events);
  const receiptsBySource = receiptSummaries(events);

  const ownerOf: (number | null)[] = [];
  const nodes: ReportNode[] = refs.map((n, i) => {
    const id = ids[i]!;
    const incoming = firstIncoming[i] ?? null;
    const ownerIdx = incoming !== null && refs[incoming.from]!.kind === "job"
      ? incoming.from
      : null;
    const hidden: HiddenReason | null = i === 0 || n.kind !== "chat"
      ? null
      : resultTargets.has(i)
      ? "result_chat"
      : basename(n.path) === "agent.chat" && basename(dirname(n.path)) === "log"
      ? "top_level_agent_log"
      : null;
    const job = n.kind === "job" ? jobSummary(n.path, n.info) : null;
    let label: string | null = null;
    if (hidden === null) {
      if (job !== null) label = jobLabel(job);
      else if (i === 0) label = basename(n.path);
      else label = logLabel(n.path, ownerIdx === null ? null : refs[ownerIdx]!.path);
    }
    ownerOf.push(hidden !== null ? ownerIdx : null);
    const direct = n.kind === "chat"
      ? directOfChat.get(n.path) ?? emptyTokens()
      : localTokens((logsOf.get(i) ?? []).map((c) => files.get(refs[c]!.path)));
    return {
      id,
      kind: n.kind,
      path: n.path,
      label,
      hidden,
      owner: hidden !== null && ownerIdx !== null ? ids[ownerIdx]! : null,
      job,
      tokens: { direct, subtree: subtree[i]! },
      receipts: n.kind === "chat" ? summarize(receiptsBySource.get(n.path)) : null,
    };
  });
  // A job shows the receipts of its hidden chats (its top-level agent.chat, its result).
  const hiddenOf = new Map<string, Set<TokenEvent>>();
  const toolsOf = new Map<string, Set<string>>();
  for (const n of nodes) {
    if (n.hidden === null || n.owner === null) continue;
    const r = receiptsBySource.get(n.path);
    if (r === undefined) continue;
    const evs = hiddenOf.get(n.owner) ?? new Set<TokenEvent>();
    const tools = toolsOf.get(n.owner) ?? new Set<string>();
    for (const e of r.events) evs.add(e);
    for (const t of r.tools) tools.add(t);
    hiddenOf.set(n.owner, evs);
    toolsOf.set(n.owner, tools);
  }
  for (const n of nodes) {
    const evs = hiddenOf.get(n.id);
    if (n.kind === "job" && evs !== undefined) {
      n.receipts = summarize({ events: evs, tools: toolsOf.get(n.id)! });
    }
  }

  const conflictEvents = events.filter((e) => e.conflict).length;
  return {
    root: nodes[0]!.id,
    follow: [...followSet(o.follow)],
    complete,
    nodes,
    edges,
    displayEdges: displayEdges(edges, edgeEnds, nodes, ownerOf),
    events,
    totals: {
      ...scopeTotals(events),
      authoritative: conflictEvents === 0,
      conflictEvents,
      incompleteEvidenceEvents: events.filter((e) => e.incompleteEvidence).length,
    },
    warnings,
  };
}

/** The innermost `society/<Agent>/<conversation>.chat` of a log path (nested societies too). */
const SOCIETY_LOG = /(?:^|\/)society\/([^/]+)\/[^/]+\.chat$/;

/**
 * A log's label: its path below the owning job's `log/` directory, prefixed by the
 * agent it belongs to when it is a society log (`Critic (society/Critic/default.chat)`).
 */
export function logLabel(path: string, ownerPath: string | null): string {
  const prefix = ownerPath === null ? null : ownerPath + ".files/log/";
  const rel = prefix !== null && path.startsWith(prefix) ? path.slice(prefix.length) : path;
  const agent = SOCIETY_LOG.exec(rel)?.[1];
  return agent === undefined ? rel : `${agent} (${rel})`;
}

function receiptSummaries(
  events: readonly TokenEvent[],
): Map<string, { events: Set<TokenEvent>; tools: Set<string> }> {
  const out = new Map<string, { events: Set<TokenEvent>; tools: Set<string> }>();
  for (const e of events) {
    for (const x of e.evidence) {
      if (x.origin !== "agent_meta") continue;
      let s = out.get(x.source);
      if (s === undefined) out.set(x.source, s = { events: new Set(), tools: new Set() });
      s.events.add(e);
      if (x.toolName !== null) s.tools.add(x.toolName);
    }
  }
  return out;
}

function summarize(
  s: { events: Set<TokenEvent>; tools: Set<string> } | undefined,
): ReceiptSummary | null {
  if (s === undefined || s.events.size === 0) return null;
  let tt = 0;
  for (const e of s.events) tt += e.tokens.tt;
  return { events: s.events.size, tt, tools: [...s.tools].sort() };
}

const RANK: Record<Relation, number> = {
  dependency: 0,
  log: 1,
  job: 2,
  agent_job: 3,
  result: 4,
};

/**
 * Sort rank of a relation among a node's displayed children: dependency,
 * log, job, agent_job, result.
 *
 * @param r a relation
 * @returns 0–4
 */
export function relationRank(r: Relation): number {
  return RANK[r];
}

/**
 * Display edges: edges into hidden nodes dropped, edges out of a hidden node
 * re-parented to its owner, self-loops dropped, `(from, to, relation)`
 * deduplicated, discovery order kept. Works on node indices (no lookups or
 * keys by id strings).
 *
 * @param edges discovery edges
 * @param ends node indices of each edge (`from`, `to` pairs)
 * @param nodes report nodes, by index
 * @param ownerOf index of each hidden node's owner, else null
 * @returns display edges
 */
function displayEdges(
  edges: readonly ReportEdge[],
  ends: readonly number[],
  nodes: readonly ReportNode[],
  ownerOf: readonly (number | null)[],
): DisplayEdge[] {
  const out: DisplayEdge[] = [];
  const seen = new Set<number>();
  const n = nodes.length;
  for (let k = 0; k < edges.length; k++) {
    const e = edges[k]!;
    const to = ends[2 * k + 1]!;
    if (nodes[to]!.hidden !== null) continue;
    const from = ownerOf[ends[2 * k]!] ?? ends[2 * k]!;
    if (from === to) continue;
    const key = (from * n + to) * 5 + RANK[e.relation]; // (from, to, relation), as one number
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ from: nodes[from]!.id, to: e.to, relation: e.relation });
  }
  return out;
}
