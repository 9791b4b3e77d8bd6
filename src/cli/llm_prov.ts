/**
 * `scout-ai llm prov ROOT…` (`provenance.md` §10): explain how a chat file or
 * a job was produced — the chats, jobs, delegated agents and tokens behind
 * it — as a tree, a compact flow, Graphviz DOT/plots, an evidence report or
 * JSON (`scout-ai/provenance` v1, `docs/provenance-json.md`). Several ROOTs
 * are explained together, in one walk: what they share is counted once
 * (R134-1). Reads files only; never runs a job, a tool or a model.
 *
 * @module
 */
import { resolve } from "node:path";
import { writeInPlace } from "../util/in_place.ts";
import type { Io } from "./io.ts";
import { warn } from "./io.ts";
import { canRedrawStderr, statusLine } from "./status_line.ts";
import { warnConflictedFile } from "./chat_conflict.ts";
import { incompleteLine } from "../provenance/incomplete.ts";
import { checkProvOptions, type LlmProvOptions } from "./llm_prov_options.ts";
import { plot } from "./llm_prov_plot.ts";
import { scoutHome } from "../config/home.ts";
import { loadPrices, type PriceTable } from "../provenance/prices.ts";
import type { RollupDimension } from "../provenance/rollup.ts";
import type { ProvenanceReport } from "../provenance/report.ts";
import { collectIfGrown } from "../util/gc.ts";
import { jobStatusOf } from "../workflow/state.ts";
import type { JobInfo } from "../workflow/info.ts";

import {
  checkRootRead,
  checkRoots,
  givenRoots,
  MISSING_ROOT_TEXT,
  type ProvRoot,
  walkRoots,
} from "./llm_prov_roots.ts";
import { jsonText } from "../util/json_text.ts";

export { MISSING_ROOT_TEXT };
export type { LlmProvOptions };

/** The walk's progress on the status line (a terminal that can redraw it only). */
function progress(
  io: Io,
): { onProgress: (records: number, chats: number) => void; done: () => void } | undefined {
  if (!canRedrawStderr(io)) return undefined;
  const line = statusLine(io);
  let last = 0;
  return {
    onProgress: (records, chats) => {
      const now = Date.now();
      if (now - last < 100) return;
      last = now;
      line.show(walkCount(records, chats, io.stderrColumns?.() ?? 0));
    },
    done: () => line.clear({ always: true }),
  };
}

/**
 * The walk's count as the progress line says it, as long as a terminal
 * `columns` wide shows it whole (one column kept for the cursor): the
 * `scout-ai: prov:` prefix goes first, then the words, so that the counts
 * show on a narrow terminal, not the prefix alone (R141-7). The shortest is
 * still cut by the line when it does not fit.
 *
 * @param records records read so far
 * @param chats chats read so far
 * @param columns the terminal's width, 0 when unknown (the whole text)
 * @returns the text to show
 */
export function walkCount(records: number, chats: number, columns: number): string {
  const texts = [
    `scout-ai: prov: ${records} records, ${chats} chats read…`,
    `${records} records, ${chats} chats read…`,
    `${records} records, ${chats} chats`,
    `${records} rec, ${chats} chats`,
  ];
  return columns <= 0 ? texts[0]! : texts.find((t) => t.length < columns) ?? texts.at(-1)!;
}

/**
 * Runs `llm prov`.
 *
 * @param opts command options
 * @param io injected I/O
 * @returns exit code (0 also when there are warnings)
 */
export async function runLlmProv(opts: LlmProvOptions, io: Io): Promise<number> {
  const given = givenRoots(opts.roots ?? (opts.root === undefined ? [] : [opts.root]));
  const format = checkProvOptions(opts);
  // an unknown --by dimension is a usage error before anything is read
  const by = opts.by === undefined
    ? null
    : (await import("../provenance/rollup.ts")).parseRollupDimensions(opts.by);
  const p = await import("../provenance/mod.ts");
  const where = checkRoots(given, opts, io, p);
  if (opts.tools) {
    return (await import("./llm_prov_tools.ts")).runProvTools({
      root: walkRoots(where),
      rootType: where.rootType,
      jobRoots: where.jobRoots,
      json: opts.json === true,
      warnings: opts.warnings !== false,
    }, io);
  }
  // read once, for every view that shows costs (Mermaid alone shows none)
  const prices = opts.json || opts.html !== undefined || by !== null || !opts.mermaid
    ? await loadPrices(scoutHome(io.env))
    : null;
  const report = walk(opts, io, p, where, prices);
  for (const r of where.all) {
    if (r.rootType !== "chat") continue;
    const id = where.all.length === 1 ? report.root : `chat:${p.canonicalPath(r.root, io.cwd)}`;
    checkRootRead(report, id, r.given);
    if (opts.warnings !== false) warnConflictedFile(io, r.root, r.given); // R86-3
  }
  if (writesFiles(opts)) io.finishWithoutStdout?.(); // `| head -1` must not stop the files
  const said = await writeViews(report, opts, io, p, {
    format,
    by,
    prices,
    jobRoots: where.jobRoots,
  });
  if (opts.warnings !== false) {
    for (const line of p.warningLines(report)) warn(io, line);
  }
  if (!said && drawsGraph(opts)) writeIncompleteNote(report, io);
  return 0;
}

/** Whether a graph is drawn: `--dot`, `--plot`, `--html` or `--mermaid`. */
function drawsGraph(opts: LlmProvOptions): boolean {
  return opts.dot !== undefined || opts.plot !== undefined || opts.html !== undefined ||
    opts.mermaid === true;
}

/**
 * R127-1: after a graph (a file, or DOT or Mermaid on stdout) with no text
 * view to end with the `(incomplete: …)` line, the line on stderr, last. Not
 * a warning, so not hidden by `--log 6` (which hides the warnings it sums
 * up): what the tree's, flow's and table's line is on stdout, at every level.
 */
function writeIncompleteNote(report: ProvenanceReport, io: Io): void {
  const line = incompleteLine(report);
  if (line !== null) io.stderr.write(`scout-ai: ${line}\n`);
}

type Provenance = typeof import("../provenance/mod.ts");

/** Whether the views include files (`--dot FILE`, `--plot`, `--html`). */
function writesFiles(opts: LlmProvOptions): boolean {
  return (opts.dot !== undefined && opts.dot !== "-") ||
    (opts.plot !== undefined && opts.plot !== "-") || opts.html !== undefined;
}

/** The walk, its progress on a terminal, with prices where a view shows node costs. */
function walk(
  opts: LlmProvOptions,
  io: Io,
  p: Provenance,
  where: ProvRoot,
  table: PriceTable | null,
): ProvenanceReport {
  const shown = progress(io);
  // with prices, the tree, the page and the JSON show what each node cost
  const costs = opts.json || opts.html !== undefined || (opts.by === undefined && !opts.mermaid);
  const prices = costs ? table : null;
  const several = where.all.length > 1;
  // one root: its kind given apart; several: each a chat's path or a job's reference
  const report = p.provenanceReport(walkRoots(where), {
    ...(several ? {} : { rootType: where.rootType }),
    cwd: io.cwd,
    jobRoots: where.jobRoots,
    env: io.env,
    // the status `workflow info` shows: `stale` when the recorded process is gone (R106-3b)
    jobStatus: (path, info) => info === null ? null : jobStatusOf(path, info as JobInfo),
    ...(shown === undefined ? {} : { onProgress: shown.onProgress }),
    ...(prices === null ? {} : { prices }),
  });
  shown?.done();
  return report;
}

/**
 * Every view asked for: one on stdout (JSON, the `--by` table, Mermaid, flow
 * or tree), and the files. Whether a text view ended with the
 * `(incomplete: …)` line.
 */
async function writeViews(
  report: ProvenanceReport,
  opts: LlmProvOptions,
  io: Io,
  p: Provenance,
  o: {
    format: ReturnType<typeof checkProvOptions>;
    by: RollupDimension[] | null;
    prices: PriceTable | null;
    jobRoots: readonly string[];
  },
): Promise<boolean> {
  const { by, prices } = o;
  let said = false;
  const view = { component: opts.component === true, long: opts.long === true };
  const views = opts.by !== undefined || opts.mermaid || opts.html !== undefined
    ? await import("./llm_prov_views.ts")
    : null;
  const byRollup = by !== null ? views!.rollupOf(report, by, prices) : null;
  if (opts.json) {
    writeJson(report, p, byRollup === null ? null : views!.rollupJson(byRollup), io);
    if (prices !== null) {
      (views ?? await import("./llm_prov_views.ts")).warnUnpriced(report, prices, io);
    }
  } else if (byRollup !== null) {
    views!.writeRollup(byRollup, prices, io);
    said = writeIncomplete(report, io);
  } else if (opts.mermaid) {
    views!.writeMermaid(report, view, io);
  } else {
    said = await writeText(report, opts, view, io, { p, prices });
  }
  if (opts.dot !== undefined || opts.plot !== undefined) {
    const dot = p.renderDot(report, view);
    if (opts.dot === "-") io.stdout.write(dot);
    else if (opts.dot !== undefined) await writeInPlace(resolve(io.cwd, opts.dot), dot, opts.dot);
    if (opts.plot !== undefined) plot(dot, opts.plot, o.format!, io);
  }
  if (opts.html !== undefined) {
    await views!.writeHtml(report, opts.html, view, {
      by,
      prices,
      jobRoots: o.jobRoots,
    }, io);
  }
  return said;
}

/** `--json`: the document, chunk by chunk (with `--by`, its `rollups` field). */
function writeJson(report: ProvenanceReport, p: Provenance, rollup: unknown, io: Io): void {
  let written = 0;
  for (let chunk of p.provenanceJsonChunks(report)) {
    // --by adds the optional "rollups" field (additive: still version 1)
    if (rollup !== null && chunk.endsWith("]}\n")) {
      chunk = chunk.slice(0, -2) + `,\n"rollups":[${jsonText(rollup)}]}\n`;
    }
    io.stdout.write(chunk);
    // every ~4 MB, collect the text already written once the process has grown
    // (JSC would keep it: the 2 GB store's document is ~0.9 GB; 1.1 GB peak without)
    if (++written % 64 === 0) collectIfGrown();
  }
}

/**
 * The text views: the flow (`--flow`) or the tree (unless only files are
 * written), then `-e`. Whether one ended with the `(incomplete: …)` line.
 */
async function writeText(
  report: ProvenanceReport,
  opts: LlmProvOptions,
  view: { component: boolean; long: boolean },
  io: Io,
  { p, prices }: { p: Provenance; prices: PriceTable | null },
): Promise<boolean> {
  let said = false;
  const tree = opts.dot === undefined && opts.plot === undefined && opts.html === undefined;
  if (opts.flow) {
    io.stdout.write(p.renderFlow(report, view));
    const lines = view.component ? p.coverageLines(report) : [];
    if (lines.length > 0) io.stdout.write(lines.join("\n") + "\n");
    said = writeIncomplete(report, io);
  } else if (tree) {
    writeLines(p.treeLines(report, view), io);
    // with prices, the tree ends with what the whole run cost
    if (prices !== null) (await import("./llm_prov_views.ts")).writeTreeCost(report, prices, io);
    said = writeIncomplete(report, io);
  }
  if (opts.evidence) {
    // its empty first line sets it apart from a view; alone, stdout starts with the report
    const evidence = p.renderEvidence(report);
    io.stdout.write(opts.flow || tree ? evidence : evidence.replace(/^\n/, ""));
  }
  return said;
}

/**
 * After a text view's totals: that they miss what the walk could not follow
 * (`complete: false`). Whether it did.
 */
function writeIncomplete(report: ProvenanceReport, io: Io): boolean {
  const line = incompleteLine(report);
  if (line !== null) io.stdout.write(line + "\n");
  return line !== null;
}

/**
 * Writes lines as they are made, ~1 MB at a time (a big store's tree is tens
 * of MB of text: never held whole), collecting what was written now and then.
 */
function writeLines(lines: Iterable<string>, io: Io): void {
  let chunk: string[] = [];
  let chars = 0;
  let written = 0;
  const flush = () => {
    io.stdout.write(chunk.join("\n") + "\n");
    chunk = [];
    chars = 0;
    if (++written % 4 === 0) collectIfGrown();
  };
  for (const line of lines) {
    chunk.push(line);
    chars += line.length + 1;
    if (chars >= 1 << 20) flush();
  }
  if (chunk.length > 0) flush();
}
