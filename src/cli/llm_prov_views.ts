/**
 * The people-facing views of `llm prov` (loaded only when asked for):
 * `--by agent|model|endpoint|job` roll-ups (with costs from
 * `$SCOUT_HOME/etc/prices.yaml`), `--mermaid` and `--html` (one
 * self-contained page). All built from the one report, never a second walk.
 *
 * @module
 */
import { resolve } from "node:path";
import { type DotRun, runDot } from "./graphviz_run.ts";
import { dollarAmount } from "../provenance/format.ts";
import { pageDetails } from "../provenance/page_details.ts";
import { costJson } from "../provenance/json.ts";
import { jsonDollars, prefixEntry, type PriceTable } from "../provenance/prices.ts";
import type { ProvenanceReport } from "../provenance/report.ts";
import { renderDot } from "../provenance/render_flow.ts";
import { renderHtml } from "../provenance/render_html.ts";
import { renderMermaid } from "../provenance/render_mermaid.ts";
import { warningLines } from "../provenance/render_evidence.ts";
import type { RenderOptions } from "../provenance/render_tree.ts";
import {
  groupCost,
  NONE,
  renderRollup,
  type Rollup,
  rollup,
  type RollupDimension,
} from "../provenance/rollup.ts";
import { writeInPlace } from "../util/in_place.ts";
import { collectIfGrown } from "../util/gc.ts";
import type { Io } from "./io.ts";
import { warn } from "./io.ts";

/** More nodes than this: the page has the list but no drawn graph. */
export const HTML_GRAPH_LIMIT = 400;

/**
 * The run's cost line: `cost: $X` when every inference has a price, `cost: ?`
 * when none has, else `cost: $X + ?`; with the unpriced count when not all are
 * priced. No line when there is no inference: nothing was priced, not $0
 * (R143-6, as a node of no inference shows no cost: R134-5).
 */
function costLine(dollars: number, known: number, n: number): string {
  if (n === 0) return "";
  if (known === n) return `cost: $${dollarAmount(dollars)}\n`;
  const unpriced = `(${n - known} of ${n} inferences unpriced)`;
  return known === 0
    ? `cost: ? ${unpriced}\n`
    : `cost: $${dollarAmount(dollars)} + ? ${unpriced}\n`;
}

/** The priced groups' dollars and inferences, and all inferences. */
function pricedSums(r: Rollup): { dollars: number; known: number; n: number } {
  // a mixed group counts its priced part (its dollars) and its unpriced inferences apart
  const n = r.groups.reduce((a, g) => a + g.inferences, 0);
  return {
    dollars: r.groups.reduce((a, g) => a + (g.priced?.dollars ?? 0), 0),
    known: n - r.groups.reduce((a, g) => a + (g.priced?.unpriced ?? g.inferences), 0),
    n,
  };
}

/**
 * Says what has no price: the models (each once), and apart from them how
 * many inferences name no model (R134-4: they were "no price for unknown",
 * as if a model `unknown` had none).
 */
function reportUnpriced(r: Rollup, prices: PriceTable, io: Io): void {
  const models = r.unpriced.filter((m) => m !== NONE);
  if (models.length) {
    warn(io, `no price for ${models.join(", ")} ($SCOUT_HOME/etc/prices.yaml): cost shown as ?`);
  }
  // an entry the name only begins with priced it before R134-2: say why a cost fell
  for (const m of models) {
    const k = prefixEntry(m, prices);
    if (k === null) continue;
    warn(
      io,
      `price entry "${k}" no longer prices ${m}: an entry prices its own name and its dated or ` +
        `versioned forms (${k}-2024-08-06), not every name it begins with; add an entry "${m}"`,
    );
  }
  const n = r.noModel ?? 0;
  if (n > 0) {
    const what = n === 1
      ? "1 inference names no model (its meta record has no model=)"
      : `${n} inferences name no model (their meta records have no model=)`;
    warn(io, `${what}: cost shown as ?`);
  }
}

/**
 * The `--by` roll-up, with costs when there are prices.
 *
 * @param report the report
 * @param by the `--by` dimensions
 * @param prices the price table (null without a price file)
 * @returns the roll-up
 */
export function rollupOf(
  report: ProvenanceReport,
  by: RollupDimension[],
  prices: PriceTable | null,
): Rollup {
  return rollup(report, by, prices ?? undefined);
}

/**
 * The text output of `--by`.
 *
 * @param r the roll-up
 * @param prices the loaded price table, or null when no price file was loaded
 * @param io injected I/O
 */
export function writeRollup(r: Rollup, prices: PriceTable | null, io: Io): void {
  io.stdout.write(renderRollup(r, prices !== null));
  if (prices !== null) {
    const s = pricedSums(r);
    io.stdout.write(costLine(s.dollars, s.known, s.n));
    reportUnpriced(r, prices, io);
  }
}

/**
 * What `--json` tells on stderr with a price file: the models it has no
 * price for, as the text views do (the document says them in `unpriced`;
 * a script reading `totals.cost` alone would not see a cost fall, R136-2).
 *
 * @param report the report
 * @param prices the price table
 * @param io injected I/O
 */
export function warnUnpriced(report: ProvenanceReport, prices: PriceTable, io: Io): void {
  reportUnpriced(rollup(report, ["model"], prices), prices, io);
}

/**
 * The tree's cost line: `cost: $X` for the deduplicated inferences, `?` when
 * some model has no price (those models named once on stderr).
 *
 * @param report the report
 * @param prices the price table
 * @param io injected I/O
 */
export function writeTreeCost(report: ProvenanceReport, prices: PriceTable, io: Io): void {
  const r = rollup(report, ["model"], prices);
  const s = pricedSums(r);
  io.stdout.write(costLine(s.dollars, s.known, report.events.length));
  reportUnpriced(r, prices, io);
}

/**
 * The roll-up as JSON (the `rollups` field of the provenance document).
 *
 * @param r the roll-up
 * @returns plain data
 */
export function rollupJson(r: Rollup): unknown {
  // dollars to 12 significant digits, as the nodes' and the run's cost
  const groups = r.groups.map((g) =>
    g.priced === undefined ? g : {
      ...g,
      cost: g.cost == null ? g.cost : jsonDollars(g.cost),
      priced: costJson(g.priced),
    }
  );
  return { by: r.by, groups, unpriced: r.unpriced };
}

/**
 * Writes the Mermaid flowchart.
 *
 * @param report the report
 * @param view render options
 * @param io injected I/O
 */
export function writeMermaid(report: ProvenanceReport, view: RenderOptions, io: Io): void {
  io.stdout.write(renderMermaid(report, view));
}

/**
 * The page's graph: Graphviz's SVG, or why there is none (R127-6: the page
 * says which), also warned on `io`'s stderr.
 *
 * @param dot the DOT text
 * @param io injected I/O (its env's PATH finds `dot`)
 */
export function pageSvg(dot: string, io: Io): { svg: string | null; noGraph?: string } {
  const r = runDot(dot, "svg", io.env);
  if (r.drawn === null) {
    const why = dotFailure(r);
    warn(io, `${why}: the page has no drawn graph`);
    return { svg: null, noGraph: `The graph is not drawn: ${why}` };
  }
  return { svg: new TextDecoder().decode(r.drawn) };
}

/** Why `dot` gave no SVG: not there, or what it said when it failed. */
function dotFailure(r: DotRun): string {
  if (r.error?.code === "ENOENT") return "Graphviz 'dot' is not available";
  if (r.error !== undefined) return `Graphviz 'dot' could not run: ${r.error.message}`;
  const said = r.stderr.trim().split("\n")[0] ?? "";
  const how = r.signal ? `killed by ${r.signal}` : `exit ${r.status}`;
  const what = r.status === 0 ? "drew nothing" : `failed (${how})`;
  return `Graphviz 'dot' ${what}${said ? `: ${said}` : ""}`;
}

/** The page's roll-up without `--by`. */
const PAGE_BY: RollupDimension[] = ["agent", "model"];

/**
 * Writes the HTML page.
 *
 * @param report the report
 * @param file output file
 * @param view render options
 * @param page the `--by` dimensions, if any (their table goes on the page;
 *   default {@link PAGE_BY}), the price table (null without a price file) and
 *   the job roots (what the page may embed, R99-1)
 * @param io injected I/O
 */
export async function writeHtml(
  report: ProvenanceReport,
  file: string,
  view: RenderOptions,
  page: {
    by: RollupDimension[] | null;
    prices: PriceTable | null;
    jobRoots?: readonly string[];
  },
  io: Io,
): Promise<void> {
  const { prices } = page;
  const r = rollup(report, page.by ?? PAGE_BY, prices ?? undefined);
  collectIfGrown(); // the events rebuilt for it
  if (prices) reportUnpriced(r, prices, io);
  let visible = 0;
  for (const n of report.nodes) if (n.hidden === null) visible++;
  const graph = visible > HTML_GRAPH_LIMIT
    ? {
      svg: null,
      noGraph:
        `The graph is not drawn: ${visible} nodes, over the page's limit of ${HTML_GRAPH_LIMIT}`,
    }
    : pageSvg(renderDot(report, view), io);
  const details = pageDetails(report, { scope: { jobRoots: page.jobRoots ?? [], cwd: io.cwd } });
  collectIfGrown(); // the parsed chats behind the shortened messages
  const html = renderHtml({
    report,
    ...graph,
    details,
    rollups: [{
      by: r.by,
      cost: prices !== null,
      groups: r.groups.map((g) => ({
        key: g.key,
        inferences: g.inferences,
        tokens: g.tokens,
        // the shown text (`$0.0105+?` for a mixed group), as the tree and table show it
        ...(prices ? { cost: groupCost(g) } : {}),
      })),
    }],
    warnings: warningLines(report),
    render: view,
  });
  await writeInPlace(resolve(io.cwd, file), html, file);
}
