/**
 * The default `prov` view (`provenance.md` §10.3): a depth-first spanning
 * tree over display edges. A node reached again prints a one-line seen
 * reference instead of its subtree; delegated receipts are annotated under
 * the chat (or job) that holds them; `--component` adds coverage lines.
 *
 * @module
 */
import type { TokenTotals } from "../chat/trace.ts";
import type { Relation } from "./types.ts";
import { human, tokenText } from "./format.ts";
import { type ProvenanceReport, relationRank, type ReportNode } from "./report.ts";
import type { NodeCost } from "./report_types.ts";
import { middleShorten } from "./labels.ts";

/** Options of the text renderers. */
export interface RenderOptions {
  /** Show each node's direct tokens instead of its subtree's (`-c`). */
  component?: boolean;
  /** Label every node with its canonical path (`-l`). */
  long?: boolean;
}

/**
 * The tokens a node shows in the selected mode.
 *
 * @param n a node
 * @param o render options
 * @returns direct tokens with `component`, else subtree tokens
 */
export function shownTokens(n: ReportNode, o: RenderOptions): TokenTotals {
  return o.component ? n.tokens.direct : n.tokens.subtree;
}

/**
 * The label a node shows: its canonical path with `long`, else its label.
 *
 * @param n a node
 * @param o render options
 * @returns the label
 */
export function shownLabel(n: ReportNode, o: RenderOptions): string {
  return o.long ? n.path : middleShorten(n.label ?? n.path);
}

/**
 * Display children per node id, stably sorted by relation rank.
 *
 * @param report the report
 * @returns node id → `[childId, relation]` list
 */
export function displayChildren(
  report: ProvenanceReport,
): Map<string, { to: string; relation: Relation }[]> {
  const out = new Map<string, { to: string; relation: Relation }[]>();
  for (const e of report.displayEdges) {
    let list = out.get(e.from);
    if (list === undefined) out.set(e.from, list = []);
    list.push({ to: e.to, relation: e.relation });
  }
  for (const list of out.values()) {
    list.sort((a, b) => relationRank(a.relation) - relationRank(b.relation));
  }
  return out;
}

/**
 * A cost as the tree and the page show it: `$0.1234`, `$0.1234+?` when some
 * inferences have no price, `?` when none has.
 *
 * @param c dollars and unpriced inferences
 * @returns the text
 */
export function costText(c: NodeCost): string {
  if (c.unpriced > 0 && c.dollars === 0) return "?";
  return `$${c.dollars.toFixed(4)}${c.unpriced > 0 ? "+?" : ""}`;
}

function annotation(n: ReportNode): string | null {
  const r = n.receipts;
  if (r === null || r.events === 0) return null;
  const tools = r.tools.length > 0 ? `, ${r.tools.join(",")}` : "";
  return `delegated receipt: ${r.events} events, total=${human(r.tt)}${tools}`;
}

/**
 * Renders the tree (`<indent><kind>[ tokens][ prefix+label][ (seen)]` per
 * line), followed by the coverage lines with `component` when the root has
 * receipt evidence.
 *
 * @param report the report
 * @param o component / long
 * @returns the text, one line per `\n`
 *
 * @example
 * ```ts ignore
 * import { provenanceReport } from "./report.ts";
 * import { renderTree } from "./render_tree.ts";
 * console.log(renderTree(provenanceReport("session.chat")));
 * ```
 */
export function renderTree(report: ProvenanceReport, o: RenderOptions = {}): string {
  return [...treeLines(report, o)].join("\n") + "\n";
}

/**
 * The lines of {@link renderTree}, one at a time (without newlines): a big
 * store's tree is written as it is made, never held whole (issue 16).
 *
 * @param report the report
 * @param o component / long
 * @returns the lines, in order
 */
export function* treeLines(report: ProvenanceReport, o: RenderOptions = {}): Generator<string> {
  const byId = new Map(report.nodes.map((n) => [n.id, n]));
  const kids = displayChildren(report);
  const printed = new Set<string>();
  const stack: { id: string; depth: number; relation: Relation | null }[] = [
    { id: report.root, depth: 0, relation: null },
  ];
  while (stack.length > 0) {
    const { id, depth, relation } = stack.pop()!;
    const n = byId.get(id)!;
    const indent = "  ".repeat(depth);
    const prefix = relation === "agent_job" ? "delegated-job " : "";
    const label = ` ${prefix}${shownLabel(n, o)}`;
    if (printed.has(id)) {
      yield `${indent}${n.kind}${label} (seen)`;
      continue;
    }
    printed.add(id);
    const tokens = tokenText(shownTokens(n, o));
    const cost = n.cost === undefined
      ? ""
      : ` cost=${costText(o.component ? n.cost.direct : n.cost.subtree)}`;
    yield `${indent}${n.kind}${tokens === "" ? "" : " " + tokens}${cost}${label}`;
    const note = annotation(n);
    if (note !== null) yield `${indent}  ${note}`;
    const list = kids.get(id) ?? [];
    for (let i = list.length - 1; i >= 0; i--) {
      stack.push({ id: list[i]!.to, depth: depth + 1, relation: list[i]!.relation });
    }
  }
  if (o.component) yield* coverageLines(report);
}

/**
 * The coverage lines (`evidence <scope>: …`) and the conflict line; empty
 * unless some root event has receipt evidence.
 *
 * @param report the report
 * @returns lines (no newlines)
 */
export function coverageLines(report: ProvenanceReport): string[] {
  if (!report.events.hasReceiptEvidence) return [];
  const t = report.totals;
  const show = (x: TokenTotals) => tokenText(x) || "total=0";
  const lines = [
    `evidence deduplicated_total: ${show(t.deduplicated_total)} (total)`,
    `evidence chat_evidence: ${show(t.chat_evidence)} (events with saved chat/log evidence)`,
    `evidence receipt_evidence: ${
      show(t.receipt_evidence)
    } (events inside agent_meta receipts (overlaps chat_evidence))`,
    `evidence receipt_only: ${show(t.receipt_only)} (receipt evidence with no saved chat/log)`,
  ];
  if (t.conflictEvents > 0) {
    lines.push(
      `unresolved identity conflicts: ${t.conflictEvents} conflicting event(s); totals above are best-effort (canonical evidence only), not exact`,
    );
  }
  return lines;
}
