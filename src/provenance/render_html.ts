/**
 * The provenance page (`llm prov ROOT --html report.html`): one
 * self-contained HTML file — no network, no CDN — with the Graphviz graph as
 * inline SVG (clickable nodes), a filterable node list, each node's messages
 * (tool calls and long outputs folded), its direct and subtree tokens and
 * cost, the roll-up tables and the warnings. Pure: the caller reads the
 * messages and runs Graphviz.
 *
 * @module
 */
import type { TokenTotals } from "../chat/trace.ts";
import type { ProvenanceReport } from "./report.ts";
import { flowModel } from "./render_flow.ts";
import { PAGE_CSS, PAGE_JS } from "./render_html_assets.ts";
import { costText, nodeStatus, type RenderOptions } from "./render_tree.ts";
import { incompleteText } from "./incomplete.ts";
import { escapeLine } from "./one_line.ts";

/** A message as the page shows it. */
export interface PageMessage {
  /** Role. */
  role: string;
  /** Text (possibly shortened by the caller). */
  text: string;
  /** Folded behind a summary (tool calls and their outputs). */
  fold?: boolean;
}

/** What the page shows of one node beyond the report. */
export interface PageNodeDetail {
  /** Messages, or null when not read. */
  messages: PageMessage[] | null;
  /** The file lies outside the tree it was reached from: not embedded (R99-1). */
  outside?: boolean;
  /** Messages left out (over the caller's cap). */
  omitted?: number;
  /** Where the messages come from when not the node's own file (a job's `log/agent.chat`). */
  source?: string;
  /** Cost of the node's direct and subtree tokens, when priced. */
  cost?: { direct: string; subtree: string };
  /**
   * A job not done: the first line of its `.info` error message, one line
   * (R87-4); a failed conversation: its record's error (R127-2).
   */
  error?: string;
}

/** A roll-up table for the page. */
export interface PageRollup {
  /** Grouping dimensions. */
  by: string[];
  /** Whether a cost column is shown. */
  cost: boolean;
  /** Rows. */
  groups: {
    key: Record<string, string>;
    inferences: number;
    tokens: TokenTotals;
    cost?: string | null;
  }[];
}

/** Inputs of {@link renderHtml}. */
export interface HtmlPageInput {
  /** The report. */
  report: ProvenanceReport;
  /** Graphviz SVG of `renderDot(report)`, or null (the page then has the list only). */
  svg: string | null;
  /** Why there is no SVG, as the page says it (R127-6); default "the graph is not drawn". */
  noGraph?: string;
  /** Details per node id (`chat:<path>` / `job:<path>`). */
  details: ReadonlyMap<string, PageNodeDetail>;
  /** Roll-up tables. */
  rollups?: PageRollup[];
  /** Warning lines. */
  warnings?: string[];
  /** Page title. */
  title?: string;
  /** Render options (the same as the DOT's, so SVG node `n<i>` is node i). */
  render?: RenderOptions;
}

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON safe inside a `<script>` element (no `</script>`, no `<!--`, no line separators). */
export function scriptJson(v: unknown): string {
  // one pass: the page's data is megabytes, and each replace would copy it
  return JSON.stringify(v).replace(/[<\u2028\u2029]/g, (c) => SCRIPT_ESCAPES[c]!);
}

const SCRIPT_ESCAPES: Record<string, string> = {
  "<": "\\u003c",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

/** The `<svg>` element of Graphviz output (its XML prolog and doctype dropped). */
export function svgElement(svg: string): string {
  const i = svg.indexOf("<svg");
  return i < 0 ? "" : svg.slice(i);
}

/** The graph's zoom controls (the script binds them). */
const GRAPH_TOOLS = `<div id="gtools" role="toolbar" aria-label="zoom">` +
  `<button id="zout" title="zoom out (ctrl+wheel)">−</button>` +
  `<button id="zin" title="zoom in (ctrl+wheel)">+</button>` +
  `<button id="zfit" title="fit the whole graph">fit</button>` +
  `<button id="z1" title="actual size">1:1</button><span id="zoom" class="zoom"></span>` +
  `<span class="hint">drag to pan</span></div>`;

/**
 * Renders the page.
 *
 * @param input report, SVG, node details, roll-ups and warnings
 * @returns the HTML document
 */
export function renderHtml(input: HtmlPageInput): string {
  const m = flowModel(input.report, input.render ?? {});
  const nodes = m.nodes.map((x) => {
    const d = input.details.get(x.node.id);
    return {
      id: x.node.id,
      kind: x.node.kind,
      label: x.label,
      path: x.node.path,
      tokens: x.node.tokens,
      messages: d?.messages ?? null,
      ...(d?.outside ? { outside: true } : {}),
      ...(d?.omitted ? { omitted: d.omitted } : {}),
      ...(d?.source ? { source: d.source } : {}),
      // a job's status, or a failed conversation's (R127-2)
      ...(nodeStatus(x.node) ? { status: nodeStatus(x.node) } : {}),
      ...(d?.error ? { error: d.error } : {}),
      ...(x.node.cost
        ? { cost: { direct: costText(x.node.cost.direct), subtree: costText(x.node.cost.subtree) } }
        : {}),
    };
  });
  const data = {
    version: 1,
    root: input.report.root,
    complete: input.report.complete,
    nodes,
    arrows: m.arrows,
    rollups: input.rollups ?? [],
    warnings: input.warnings ?? [],
  };
  const total = input.report.totals.deduplicated_total;
  // escaped as the graph's and the list's labels are (R162-4): a U+202E in a chat's name
  // reversed the rest of the header and the browser tab's title
  const title = escapeLine(input.title ?? pageTitle(input.report.roots ?? [input.report.root]));
  // R127-1: an incomplete walk's header says so (the totals miss what it could not follow)
  const incomplete = incompleteText(input.report);
  const flag = incomplete === null
    ? ""
    : ` <span class="status bad incomplete">${escapeHtml(incomplete)}</span>`;
  const graph = input.svg === null
    ? `<p>${escapeHtml(input.noGraph ?? "The graph is not drawn")}; use the list.</p>`
    : GRAPH_TOOLS + `<div id="gbox">${svgElement(input.svg)}</div>`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)}</title><style>${PAGE_CSS}</style></head><body>
<header><h1>${escapeHtml(title)}</h1><span class="totals">${
    escapeHtml(`deduplicated: ${total.tt} tokens (pt ${total.pt}, ct ${total.ct})`)
  } · ${nodes.length} node${nodes.length === 1 ? "" : "s"}</span>${flag}</header>
<nav id="side"><input id="filter" placeholder="filter nodes…" aria-label="filter nodes"><div id="list"></div></nav>
<main id="graph">${graph}<section id="tables"></section></main>
<aside id="detail"></aside>
<script type="application/json" id="prov-data">${scriptJson(data)}</script>
<script>${PAGE_JS}</script>
</body></html>
`;
}

/** The page's title: `Provenance of <root>`; of several roots (R134-1), how many and the first. */
function pageTitle(roots: readonly string[]): string {
  const first = roots[0]!.replace(/^(chat|job):/, "");
  return roots.length === 1
    ? `Provenance of ${first}`
    : `Provenance of ${roots.length} roots: ${first} and ${roots.length - 1} more`;
}
