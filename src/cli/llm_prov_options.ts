/**
 * The options of `scout-ai llm prov` and the checks made on them before the
 * walk: a plot file's format, and options that cannot go together — two
 * views that both print on stdout, or a modifier no requested output uses —
 * are usage errors (exit 2) naming both options, never silently dropped nor
 * mixed on stdout after a long walk.
 *
 * @module
 */
import { extname } from "node:path";
import { usageError } from "../errors.ts";

/** Options of `llm prov`. */
export interface LlmProvOptions {
  /** Chat file or job path (relative to the working directory). */
  root?: string;
  /** Several ROOTs, explained together (R134-1); replaces `root` when given. */
  roots?: string[];
  /** Per-node direct tokens instead of subtree totals; adds coverage lines. */
  component?: boolean;
  /** The compact flow instead of the tree. */
  flow?: boolean;
  /** Label every node with its canonical path. */
  long?: boolean;
  /** Append the evidence report. */
  evidence?: boolean;
  /** Write DOT to this file (`-` = stdout). */
  dot?: string;
  /** Render with Graphviz `dot` into this file (`.svg` default, `.png`, `.pdf`). */
  plot?: string;
  /** Print the JSON document instead of text. */
  json?: boolean;
  /** Extra job roots, searched before the default ones. */
  jobsDirs?: string[];
  /** Print warnings (false with `--log 6` and above). */
  warnings?: boolean;
  /** Roll-up dimensions (`agent,model`…): a table instead of the tree. */
  by?: string;
  /** Print a Mermaid flowchart instead of the tree. */
  mermaid?: boolean;
  /** Write the self-contained HTML page to this file. */
  html?: string;
  /** The tool-call report instead (`llm_prov_tools.ts`). */
  tools?: boolean;
}

const PLOT_FORMATS = new Set(["svg", "png", "pdf"]);

/**
 * The Graphviz output format of a plot file: its extension (`svg` when it
 * has none).
 *
 * @param file the plot file name
 * @returns `svg`, `png` or `pdf`
 * @throws ScoutError `usage` for another extension
 */
export function plotFormat(file: string): string {
  const ext = extname(file).slice(1).toLowerCase();
  if (ext === "") return "svg";
  if (!PLOT_FORMATS.has(ext)) {
    throw usageError(`Cannot plot to "${file}": use a .svg, .png or .pdf file name`);
  }
  return ext;
}

/** The views that print on stdout, by the option that asks for each, in help order. */
function stdoutViews(o: LlmProvOptions): string[] {
  return [
    o.flow ? "--flow" : null,
    o.dot === "-" ? "--dot -" : null,
    o.plot === "-" ? "--plot -" : null,
    o.json ? "--json" : null,
    o.tools ? "--tools" : null,
    o.by !== undefined ? "--by" : null,
    o.mermaid ? "--mermaid" : null,
  ].filter((v) => v !== null);
}

/**
 * Pairs of stdout views that go together: `--json` holds the `--by` roll-up
 * (its `rollups` field) and the `--tools` document, and replaces the flow,
 * as it replaces the tree (`provenance.md` §10.1).
 */
const TOGETHER = new Set(["--json --by", "--json --tools", "--flow --json"]);

/** The first pair of stdout views that cannot go together, if any. */
function clashingViews(o: LlmProvOptions): [string, string] | null {
  const views = stdoutViews(o);
  for (let i = 0; i < views.length; i++) {
    for (let j = i + 1; j < views.length; j++) {
      if (!TOGETHER.has(`${views[i]} ${views[j]}`)) return [views[i]!, views[j]!];
    }
  }
  return null;
}

/** A modifier given with a view that does not use it: the two options and why. */
type Unused = [option: string, view: string, why: string];

/**
 * The first modifier that no requested output uses: `-e` follows only the
 * tree or the flow (or stands alone when only files are written); `-c` and
 * `-l` shape the tree, flow, DOT, plot, page and Mermaid, not the `--by`
 * table; `--tools` takes nothing but `--json`. The JSON holds all three
 * (`provenance.md` §10.1: it prints instead of them).
 */
function unusedModifier(o: LlmProvOptions): Unused | null {
  if (o.tools) {
    const other = (
      [
        [o.component, "--component"],
        [o.long, "--long"],
        [o.evidence, "--evidence"],
        [o.dot !== undefined, "--dot"],
        [o.plot !== undefined, "--plot"],
        [o.html !== undefined, "--html"],
      ] as const
    ).find(([on]) => on);
    return other === undefined
      ? null
      : [other[1], "--tools", "--tools prints the tool-call report alone (--json: as JSON)"];
  }
  if (o.json) return null;
  const table = o.by !== undefined ? "--by" : null;
  const diagram = o.mermaid ? "--mermaid" : o.dot === "-" ? "--dot -" : null;
  const view = table ?? diagram;
  if (o.evidence && view !== null) {
    return ["--evidence", view, "the evidence report follows the tree or --flow only"];
  }
  const drawn = o.dot !== undefined || o.plot !== undefined || o.html !== undefined;
  if (table !== null && !drawn) {
    if (o.component) return ["--component", table, "the --by table has no per-node tokens"];
    if (o.long) return ["--long", table, "the --by table has no node labels"];
  }
  return null;
}

/**
 * Checks `llm prov`'s options before anything is read: ROOT's absence is
 * checked by the caller; here, the plot format, `--html -` (the page needs a
 * file), and options that cannot go together.
 *
 * @param o the options
 * @returns the plot format (`svg`, `png`, `pdf`), or null without `--plot`
 * @throws ScoutError `usage` naming the option (or both options) at fault
 *
 * @example
 * ```ts
 * import { checkProvOptions } from "./llm_prov_options.ts";
 * checkProvOptions({ root: "s.chat", flow: true, evidence: true }); // null
 * ```
 */
export function checkProvOptions(o: LlmProvOptions): string | null {
  const format = o.plot === undefined ? null : plotFormat(o.plot);
  if (o.html === "-") {
    throw usageError("--html needs a file name: the page is not written to stdout");
  }
  const views = clashingViews(o);
  if (views !== null) {
    throw usageError(`Cannot combine ${views[0]} with ${views[1]}: both print on stdout`);
  }
  const unused = unusedModifier(o);
  if (unused !== null) {
    throw usageError(`Cannot combine ${unused[0]} with ${unused[1]}: ${unused[2]}`);
  }
  return format;
}
