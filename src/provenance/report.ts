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
import { dirname } from "node:path";
import type { ReceiptProblem } from "../chat/receipts.ts";
import type { ProvenanceError, ProvenanceRoots } from "./types.ts";
import { followSet } from "./traverse.ts";
import { nodeId } from "./paths.ts";
import { identityConflict } from "./evidence.ts";
import { problemKey } from "./tokens.ts";
import type { ChatStore } from "./chat_store.ts";
import type { EventTable } from "./event_table.ts";
import { isTopLevelAgentLog, rerunMarks } from "./labels.ts";
import { hiddenCode, hiddenOwner, nodeTable } from "./node_table.ts";
import type { TokenColumn } from "./typed.ts";
import { displayEdges } from "./display.ts";
import { keepDisplayEnds } from "./display_index.ts";
import { societyCallers } from "./society.ts";
import {
  type ChatEvidence,
  edgeRecords,
  nodeIds,
  type WalkedGraph,
  walkGraph,
} from "./report_walk.ts";
import { canonicalEvents, eventSummaries } from "./event_reads.ts";
import { collectBeforeBurst } from "../util/gc.ts";
import { wellFormed, wellFormedDeep } from "../util/code_points.ts";
import { directColumn, nodeSums, type WalkCosts } from "./report_sums.ts";
import { nodeReceipts, type ReceiptsOfChat, receiptSummaries } from "./report_receipts.ts";
import { nodeFailures } from "./chat_failure.ts";
import type {
  HiddenReason,
  ProvenanceReport,
  ReportNode,
  ReportNodes,
  ReportOptions,
  ReportWarning,
} from "./report_types.ts";

export type {
  DisplayEdge,
  EdgeDetail,
  HiddenReason,
  JobSummary,
  NodeCost,
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

/**
 * One warning per chat whose control lines ran or reused jobs (`task:`,
 * `job:`, `inline_job:`…, R93-3, [TS-FIX]): the walk reads them as text
 * (`provenance.md` §1.3) and does not follow those jobs, so their tokens are
 * not in the totals. Information: `complete` stays as the walk found it.
 */
function controlJobWarnings(store: ChatStore): ReportWarning[] {
  const out: ReportWarning[] = [];
  for (const [seq, c] of store.controlJobs()) {
    const path = store.path(seq);
    const roles = [...new Set(c.roles)].map((r) => `${r}:`).join(", ");
    out.push({
      code: "control_jobs_not_followed",
      message: `${path}:${c.lines.join(",")}: the jobs its ${roles} lines ran or reused ` +
        "are not followed (control lines are read as text): their tokens are not in these " +
        "totals; see each with llm prov <job> (e.g. llm prov Workflow/task/name --jobs-dir DIR)",
      kind: "chat",
      node: nodeId("chat", path),
      relation: null,
      reference: { lines: c.lines, roles: c.roles },
    });
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

/** Why node `i` is hidden, or null: a root never is. */
function hiddenReason(g: WalkedGraph, roots: ReadonlySet<number>, i: number): HiddenReason | null {
  const n = g.refs[i]!;
  if (roots.has(i) || n.kind !== "chat") return null;
  if (g.resultTargets.has(i)) return "result_chat";
  return isTopLevelAgentLog(n.path) ? "top_level_agent_log" : null;
}

/** The report's nodes as columns, and the owner of each hidden node (else -1). */
function reportNodes(
  g: WalkedGraph,
  chats: ChatEvidence,
  receiptsBySource: ReadonlyMap<string, ReceiptsOfChat>,
  sums: { subtree: TokenColumn; costs: WalkCosts | null },
  callers: ReadonlyMap<number, number>,
): {
  nodes: ReportNodes & { toJSON(): ReportNode[] };
  ownerOf: (node: number) => number;
  ids: readonly string[];
  hidden: Uint8Array;
} {
  const { table, store } = chats;
  const n = g.refs.length;
  const hidden = new Uint8Array(n);
  const firstJob = new Int32Array(n).fill(-1);
  const caller = new Int32Array(n).fill(-1);
  const roots = new Set(g.roots);
  for (let i = 0; i < n; i++) {
    const from = g.firstFrom[i]!;
    if (from !== -1 && g.refs[from]!.kind === "job") firstJob[i] = from;
    hidden[i] = hiddenCode(hiddenReason(g, roots, i));
    caller[i] = callers.get(i) ?? -1;
  }
  const ownerOf = (i: number) => hiddenOwner({ hidden, firstJob }, i);
  const kinds = g.refs.map((r) => r.kind);
  const paths = g.refs.map((r) => r.path);
  const receipts = nodeReceipts(
    { kinds, paths, hiddenOwner: ownerOf },
    receiptsBySource,
    table.ttOf,
  );
  const ids = nodeIds(g);
  const nodes = nodeTable({
    ids,
    kinds,
    paths,
    hidden,
    firstJob,
    caller,
    jobs: g.jobs,
    reruns: rerunMarks(g.jobs, paths),
    direct: directColumn(g, chats),
    subtree: sums.subtree,
    receipts,
    failures: nodeFailures(kinds, paths, store.failures()),
    costs: sums.costs?.nodes ?? null,
    rootDir: dirname(paths[0]!),
    ...(g.roots.length > 1 ? { otherRoots: roots } : {}),
  });
  return { nodes, ownerOf, ids, hidden };
}

/**
 * The walk's problems as report warnings, in the order they come, and the
 * keys of the receipt problems among them (reported once).
 */
function warningCollector() {
  const warnings: ReportWarning[] = [];
  const reported = new Set<string>();
  const onError = (error: ProvenanceError) => {
    const problem = (error as ProvenanceError & { problem?: ReceiptProblem }).problem;
    if (problem !== undefined) reported.add(problemKey(problem));
    warnings.push({
      code: error.code,
      message: wellFormed(error.message),
      kind: error.kind,
      node: nodeId(error.kind, error.nodePath),
      relation: error.relation,
      // from a `.info` or a receipt: a lone surrogate would spoil the JSON for jq (R99-2)
      reference: wellFormedDeep(error.reference),
      ...(error.reason === undefined ? {} : { reason: error.reason }),
    });
  };
  return { warnings, reported, onError };
}

/**
 * Walks provenance from `root` once and builds the report: nodes with labels
 * and direct/subtree tokens, edges, display edges, events, totals and
 * warnings. Problems never abort: they become warnings (and `complete:
 * false`). Nothing is executed.
 *
 * Several roots are walked together, as one traversal: each inference, job
 * and chat they share is counted once in the events and totals, while each
 * root's `tokens.subtree` is its own (R134-1).
 *
 * @param root chat path, job path (with `rootType: "job"`) or a JobRef; or several
 * @param o traversal options (`onError` is replaced: problems are collected)
 * @returns the report
 * @throws ScoutError `root_not_found`, `invalid_follow`
 */
export function provenanceReport(root: ProvenanceRoots, o: ReportOptions = {}): ProvenanceReport {
  const { warnings, reported, onError } = warningCollector();
  const { g, chats } = walkGraph(root, o, onError);
  o.onPhase?.("walk");
  const { store, table } = chats;
  warnings.push(...unreportedProblems(store, reported));
  const complete = warnings.length === 0;
  warnings.push(...controlJobWarnings(store));

  o.onPhase?.("problems");
  // before each burst of new data (receipts, node records, edge records), a
  // collection on a big store: the burst then lands on live data only
  collectBeforeBurst();
  const receiptsBySource = receiptSummaries((visit) =>
    table.finish((e, seq, tool) => visit(e, store.path(seq), tool))
  );
  warnings.push(...conflictWarnings(table));

  o.onPhase?.("receipts");
  const callers = societyCallers(g.refs, g.logsOf);
  const sums = nodeSums(g, chats, callers, o);
  o.onPhase?.("subtree");
  collectBeforeBurst();
  const { nodes, ownerOf, ids, hidden } = reportNodes(g, chats, receiptsBySource, sums, callers);

  o.onPhase?.("nodes");
  collectBeforeBurst();
  const counts = table.counts();
  const edges = edgeRecords(g.edges, ids);
  const display = displayEdges(edges, g.edges.ends, { ids, hidden }, ownerOf, callers);
  keepDisplayEnds(display.edges, display.ends);
  return {
    root: ids[0]!,
    roots: g.roots.map((i) => ids[i]!),
    follow: [...followSet(o.follow)],
    complete,
    nodes,
    edges,
    displayEdges: display.edges,
    events: table.view({
      canonical: () => canonicalEvents(table, store),
      summaries: () => eventSummaries(table, store),
    }),
    totals: {
      ...table.scopes(),
      authoritative: counts.conflictEvents === 0,
      ...counts,
    },
    warnings,
    ...(sums.costs === null ? {} : { costs: { events: sums.costs.events, all: sums.costs.all } }),
  };
}
