/**
 * The `prov --json` document (`provenance.md` §10.7; schema
 * `scout-ai/provenance`, version 1, documented in `docs/provenance-json.md`).
 * Written one record per line, so big stores stream out without building
 * one huge string and `git diff` of two documents stays readable.
 *
 * @module
 */
import type { ProvenanceReport, ReportNode } from "./report.ts";
import type { NodeCost } from "./report_types.ts";
import type { TokenEvent } from "./evidence.ts";
import { jsonDollars } from "./prices.ts";

/** The schema name of the document. */
export const PROVENANCE_SCHEMA = "scout-ai/provenance";
/** The schema version: adding fields keeps it, renaming or removing fields bumps it. */
export const PROVENANCE_SCHEMA_VERSION = 1;

/**
 * The JSON document of a report as a plain object.
 *
 * @param report the report
 * @returns `{schema, version, root, follow, complete, nodes, edges, events, totals, warnings}`
 *   (and `roots` after `root` with several roots, R134-1)
 *
 * @example
 * ```ts ignore
 * import { provenanceReport } from "./report.ts";
 * import { provenanceJson } from "./json.ts";
 * provenanceJson(provenanceReport("session.chat")).totals.deduplicated_total.tt;
 * ```
 */
export function provenanceJson(report: ProvenanceReport): {
  schema: string;
  version: number;
  root: string;
  roots?: string[];
  follow: string[];
  complete: boolean;
  nodes: unknown[];
  edges: unknown[];
  events: unknown[];
  totals: unknown;
  warnings: unknown[];
} {
  const cost = eventCost(report);
  return {
    ...header(report),
    nodes: Array.from(report.nodes, (n) => nodeJson(n)),
    edges: report.edges.map(edgeJson),
    events: Array.from(report.events, (e, i) => cost(eventJson(e), i)),
    totals: totalsJson(report),
    warnings: report.warnings.map(warningJson),
  };
}

/**
 * A cost as the JSON has it: the priced inferences' dollars (to 12
 * significant digits, {@link jsonDollars}), and how many inferences have no
 * price and how many have one — the shape of a `--by` group's `priced`.
 *
 * @param c the cost
 * @returns `{dollars, unpriced, priced}`
 */
export function costJson(c: NodeCost): NodeCost {
  return { dollars: jsonDollars(c.dollars), unpriced: c.unpriced, priced: c.priced };
}

/**
 * The header fields: `roots` only with several roots (R134-1: one root's
 * document is as it was).
 */
function header(report: ProvenanceReport) {
  const roots = report.roots !== undefined && report.roots.length > 1 ? report.roots : null;
  return {
    schema: PROVENANCE_SCHEMA,
    version: PROVENANCE_SCHEMA_VERSION,
    root: report.root,
    ...(roots === null ? {} : { roots }),
    follow: report.follow,
    complete: report.complete,
  };
}

/**
 * The totals, with the run's cost when prices were given: the root's
 * subtree's; with several roots, every event once (`report.costs.all`).
 */
function totalsJson(report: ProvenanceReport): unknown {
  const several = report.roots !== undefined && report.roots.length > 1;
  const cost = several ? report.costs?.all : report.nodes.at(0)?.cost?.subtree;
  return cost === undefined ? report.totals : { ...report.totals, cost: costJson(cost) };
}

/**
 * With prices, a function adding event `i`'s `cost` to its record (its
 * dollars, null when its model has no price); else one leaving it as it is.
 */
function eventCost(report: ProvenanceReport): <T>(record: T, i: number) => T {
  const costs = report.costs?.events;
  if (costs === undefined) return (record) => record;
  return (record, i) => ({ ...record, cost: dollarsOrNull(costs[i]) });
}

function dollarsOrNull(c: number | undefined): number | null {
  return c === undefined || Number.isNaN(c) ? null : jsonDollars(c);
}

function nodeJson(n: ReportNode): unknown {
  return {
    id: n.id,
    kind: n.kind,
    path: n.path,
    label: n.label,
    hidden: n.hidden,
    owner: n.owner,
    caller: n.caller,
    job: n.job,
    tokens: n.tokens,
    receipts: n.receipts,
    // a failed conversation only (R127-2; an added field: still version 1)
    ...(n.failure === undefined ? {} : { failure: n.failure }),
    // with prices only (an added field: still version 1)
    ...(n.cost === undefined
      ? {}
      : { cost: { direct: costJson(n.cost.direct), subtree: costJson(n.cost.subtree) } }),
  };
}

function edgeJson(e: ProvenanceReport["edges"][number]): unknown {
  return {
    from: e.from,
    to: e.to,
    relation: e.relation,
    firstVisit: e.firstVisit,
    detail: e.detail,
  };
}

function eventJson(e: TokenEvent): unknown {
  return {
    inferenceId: e.inferenceId,
    identity: e.identity,
    deduplication: e.deduplication,
    status: e.status,
    meta: e.meta,
    tokens: e.tokens,
    evidence: e.evidence,
    conflict: e.conflict,
    conflictFields: e.conflictFields,
    incompleteEvidence: e.incompleteEvidence,
  };
}

function warningJson(w: ProvenanceReport["warnings"][number]): unknown {
  return {
    code: w.code,
    message: w.message,
    kind: w.kind,
    node: w.node,
    relation: w.relation,
    reference: w.reference ?? null,
    ...(w.reason === undefined ? {} : { reason: w.reason }),
  };
}

/**
 * The document as JSON text, in pieces of about 64 KB: the header fields on
 * the first line, then each node, edge, event and warning on its own line.
 * Joined, the pieces parse to exactly {@link provenanceJson}'s object, but
 * each record is made only when its line is written: a generator, so a
 * writer can pace big documents, and no document is built in memory (the
 * events are rebuilt from the report's store one at a time).
 *
 * @param report the report
 * @returns the pieces, in order
 */
export function* provenanceJsonChunks(report: ProvenanceReport): Generator<string> {
  const head = JSON.stringify(header(report));
  let chunk = head.slice(0, -1) + ",\n";
  function* list<T>(name: string, items: Iterable<T>, text: (x: T) => string) {
    chunk += `"${name}":[`;
    let first = true;
    for (const item of items) {
      chunk += (first ? "\n" : ",\n") + text(item);
      first = false;
      if (chunk.length > 1 << 16) {
        yield chunk;
        chunk = "";
      }
    }
    chunk += (first ? "" : "\n") + "],\n";
  }
  yield* list("nodes", report.nodes, (n) => JSON.stringify(nodeJson(n)));
  yield* list("edges", report.edges, (e) => JSON.stringify(edgeJson(e)));
  // (a report read back from JSON has its events as a plain array)
  const events = report.events.jsonLines?.(eventJson) ??
    Array.from(report.events, (e) => JSON.stringify(eventJson(e)));
  // with prices, each event's `cost` last (the lines are written whole: appended to the text)
  const costs = report.costs?.events;
  let e = 0;
  yield* list(
    "events",
    events,
    (line) =>
      costs === undefined
        ? line
        : `${line.slice(0, -1)},"cost":${JSON.stringify(dollarsOrNull(costs[e++]))}}`,
  );
  chunk += `"totals":${JSON.stringify(totalsJson(report))},\n"warnings":[`;
  report.warnings.forEach((w, i) =>
    chunk += (i === 0 ? "\n" : ",\n") + JSON.stringify(warningJson(w))
  );
  yield chunk + (report.warnings.length > 0 ? "\n" : "") + "]}\n";
}

/**
 * Writes the document as JSON text (see {@link provenanceJsonChunks}).
 *
 * @param report the report
 * @param write receives the text in pieces
 */
export function writeProvenanceJson(report: ProvenanceReport, write: (text: string) => void): void {
  for (const chunk of provenanceJsonChunks(report)) write(chunk);
}
