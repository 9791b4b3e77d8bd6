/**
 * The default `prov` view (`provenance.md` §10.3): a depth-first spanning
 * tree over display edges. A node reached again prints a one-line seen
 * reference instead of its subtree; delegated receipts are annotated under
 * the chat (or job) that holds them; `--component` adds coverage lines.
 *
 * @module
 */
import type { TokenTotals } from "../chat/trace.ts";
import { dollarAmount, human, tokenText } from "./format.ts";
import type { ProvenanceReport, ReportNode } from "./report.ts";
import { displayChildren, rootIndices } from "./display_index.ts";
import type { NodeCost } from "./report_types.ts";
import { middleShorten } from "./labels.ts";
import { escapeLine } from "./one_line.ts";

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
 * The label a node shows: its canonical path with `long`, else its label
 * (shortened in the middle) and, for a rerun that shares it with another
 * job, ` rerun <n>` (R111-3: the path says it with `long`); then its
 * {@link statusMark}; control characters escaped ({@link escapeLine}).
 *
 * @param n a node
 * @param o render options
 * @returns the label, one line
 */
export function shownLabel(n: ReportNode, o: RenderOptions): string {
  return baseLabel(n, o) + statusMark(n);
}

/**
 * {@link shownLabel} without the status mark (the flat views qualify a
 * repeated label before the mark, so that shortening keeps the mark).
 *
 * @param n a node
 * @param o render options
 * @returns the label, one line
 */
export function baseLabel(n: ReportNode, o: RenderOptions): string {
  if (o.long) return escapeLine(n.path);
  const rerun = n.rerun === undefined ? "" : ` rerun ${n.rerun}`;
  return middleShorten(escapeLine(n.label ?? n.path)) + rerun;
}

/**
 * A node's status: a job's (its `.info` status as `workflow info` shows
 * it), a chat's whose last inference failed (`error`/`aborted`, R127-2,
 * [TS-FIX]); else null.
 *
 * @param n a node
 * @returns the status, or null
 */
export function nodeStatus(n: ReportNode): string | null {
  return n.job?.status ?? n.failure?.status ?? null;
}

/**
 * What a node's label shows of its {@link nodeStatus} (R87-4, R127-2; not
 * in the JSON label): ` [<status>]` unless it is `done` or unknown, so a
 * failed job, delegation or conversation (` [error]`) does not read as a
 * done one. Plain text, never a colour (the views are written to files and
 * pipes as they are). None for an earlier attempt of a job, whose label
 * says its status.
 *
 * @param n a node
 * @returns the mark, or the empty string
 */
export function statusMark(n: ReportNode): string {
  const status = nodeStatus(n);
  if (status === null || status === "done" || n.job?.attempt !== undefined) return "";
  return ` [${middleShorten(escapeLine(status), 20)}]`;
}

/**
 * The statuses the graphs draw as failed: those `workflow info` shows in red
 * (`statusStyle`): `error`, `aborted`, `stale` (status in progress, its
 * process gone: it never finishes, R127-5) and `unsync` (done without its
 * result).
 */
const FAILED: ReadonlySet<string> = new Set(["error", "aborted", "stale", "unsync"]);

/**
 * Whether a node failed: a job whose status is `error`, `aborted`, `stale`
 * or `unsync`, a chat whose last inference failed (R127-2) — the DOT draws
 * it with a red border, Mermaid with the `failed` class.
 *
 * @param n a node
 * @returns true for a failed node
 */
export function nodeFailed(n: ReportNode): boolean {
  const status = nodeStatus(n);
  return status !== null && FAILED.has(status);
}

/**
 * A cost as the tree and the page show it: `$0.1234` (`$0.0000025` below a
 * cent: {@link dollarAmount}), `$0.1234+?` when some
 * inferences have no price (`$0.0000+?` when the priced ones are free), `?`
 * when none has.
 *
 * @param c dollars and unpriced inferences
 * @returns the text
 */
export function costText(c: NodeCost): string {
  if (c.unpriced > 0 && c.priced === 0) return "?";
  return `$${dollarAmount(c.dollars)}${c.unpriced > 0 ? "+?" : ""}`;
}

/**
 * A tree line's ` cost=…`, left out where no inference is counted (R134-5:
 * `cost=$0.0000` on a node without one, whose zero tokens are left out); a
 * node whose inferences are free still shows `cost=$0.0000`.
 */
function costPart(c: NodeCost): string {
  return c.priced + c.unpriced === 0 ? "" : ` cost=${costText(c)}`;
}

function annotation(n: ReportNode): string | null {
  const r = n.receipts;
  if (r === null || r.events === 0) return null;
  const tools = r.tools.length > 0 ? `, ${escapeLine(r.tools.join(","))}` : "";
  return `delegated receipt: ${r.events} events, total=${human(r.tt)}${tools}`;
}

/**
 * The depth past which the tree's indentation stops growing. [TS-FIX]
 * (R147-5) The spec indents two spaces a level, so a chain's tree grew with
 * the square of its depth (a 5,000-deep delegation chain printed 25 MB, a
 * 30,000-deep dependency chain 900 MB) where every other view is linear.
 */
export const TREE_INDENT_DEPTH = 32;

/**
 * A tree line's indent at `depth`: two spaces a level up to
 * {@link TREE_INDENT_DEPTH}; deeper, the indent there and the depth
 * (`[depth 40] `), so a deep chain's lines stay short and say how deep they
 * are.
 *
 * @param depth the node's depth (the root's is 0)
 * @returns the indent
 */
export function treeIndent(depth: number): string {
  if (depth <= TREE_INDENT_DEPTH) return "  ".repeat(depth);
  return `${"  ".repeat(TREE_INDENT_DEPTH)}[depth ${depth}] `;
}

/**
 * Renders the tree (`<indent><kind>[ tokens][ prefix+label][ (seen)]` per
 * line; the indent {@link treeIndent}), followed by the coverage lines with
 * `component` when the root has receipt evidence.
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
 * Several roots (R134-1): each root's tree in turn — a node printed in an
 * earlier one is a seen reference in a later one — then the
 * {@link togetherLine}.
 *
 * @param report the report
 * @param o component / long
 * @returns the lines, in order
 */
export function* treeLines(report: ProvenanceReport, o: RenderOptions = {}): Generator<string> {
  // by node index: no map keyed by id strings (a big store's ids are tens of MB once read)
  const children = displayChildren(report);
  const printed = new Uint8Array(report.nodes.length);
  const roots = rootIndices(report);
  for (const root of roots) yield* subtreeLines(report, root, { children, printed }, o);
  if (roots.length > 1) yield togetherLine(report, roots.length);
  if (o.component) yield* coverageLines(report);
}

/** The lines of one root's tree; `printed` marks the nodes printed so far. */
function* subtreeLines(
  report: ProvenanceReport,
  root: number,
  { children: { ends, lists }, printed }: {
    children: ReturnType<typeof displayChildren>;
    printed: Uint8Array;
  },
  o: RenderOptions,
): Generator<string> {
  // triples: node index, depth, the display edge it was reached by (-1 for the root)
  const stack = [root, 0, -1];
  while (stack.length > 0) {
    const edge = stack.pop()!;
    const depth = stack.pop()!;
    const i = stack.pop()!;
    const n = report.nodes.at(i)!;
    const indent = treeIndent(depth);
    const prefix = edge !== -1 && report.displayEdges[edge]!.relation === "agent_job"
      ? "delegated-job "
      : "";
    const label = ` ${prefix}${shownLabel(n, o)}`;
    const tokens = tokenText(shownTokens(n, o));
    const cost = n.cost === undefined ? "" : costPart(o.component ? n.cost.direct : n.cost.subtree);
    const figures = `${tokens === "" ? "" : " " + tokens}${cost}`;
    if (printed[i] === 1) {
      // a root printed in an earlier root's tree keeps its own total (R138-3)
      yield `${indent}${n.kind}${edge === -1 ? figures : ""}${label} (seen)`;
      continue;
    }
    printed[i] = 1;
    yield `${indent}${n.kind}${figures}${label}`;
    const note = annotation(n);
    if (note !== null) yield `${indent}  ${note}`;
    for (let p = lists.start[i + 1]! - 1; p >= lists.start[i]!; p--) {
      const k = lists.list[p]!;
      stack.push(ends[2 * k + 1]!, depth + 1, k);
    }
  }
}

/**
 * After the trees of several roots: their tokens together, each inference
 * once (`totals.deduplicated_total`: an inference two roots share — a cache
 * replay keeps its record — is in each root's total, and once here). With
 * prices the CLI's `cost:` line follows, over the same inferences.
 *
 * @param report the report
 * @param roots how many roots
 * @returns the line
 */
export function togetherLine(report: ProvenanceReport, roots: number): string {
  const tokens = tokenText(report.totals.deduplicated_total) || "total=0";
  return `together ${tokens} (${roots} roots, each inference once)`;
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
