/**
 * The compact flow (`--flow`, `provenance.md` §10.4) and Graphviz DOT
 * (`--dot`, §10.5). Both show visible nodes in data-flow direction: jobs
 * first (each after its dependencies), then chats, and arrows from producer
 * to consumer.
 *
 * @module
 */
import { LABEL_MAX, middleShorten, pathDigest } from "./labels.ts";
import { compareBytes } from "./paths.ts";
import { padLeft, padRight, shortTokens } from "./format.ts";
import { escapeLine } from "./one_line.ts";
import type { Relation } from "./types.ts";
import type { ProvenanceReport, ReportNode } from "./report.ts";
import {
  baseLabel,
  nodeFailed,
  type RenderOptions,
  shownTokens,
  statusMark,
} from "./render_tree.ts";
import { incompleteText } from "./incomplete.ts";

/** A flow arrow label. */
export type FlowLabel = "result" | "delegated_result" | "dependency" | "log" | "attempt";

/** The flow as data: numbered nodes and arrows between their indices. */
export interface FlowModel {
  /** Visible nodes in flow order. */
  nodes: { node: ReportNode; label: string; tokens: string; shortId: string }[];
  /** Arrows (0-based node positions), deduplicated, in discovery order. */
  arrows: { from: number; to: number; label: FlowLabel }[];
}

const ARROW: Record<Relation, { label: FlowLabel; reverse: boolean }> = {
  job: { label: "result", reverse: true },
  agent_job: { label: "delegated_result", reverse: true },
  dependency: { label: "dependency", reverse: true },
  log: { label: "log", reverse: false },
  result: { label: "result", reverse: false },
  // an earlier, failed run of the job, drawn before it (R109-3)
  attempt: { label: "attempt", reverse: true },
};

/**
 * The short id shown in the flow: a job's short id, or the first 8 hex
 * digits of the sha256 of a chat's canonical path.
 *
 * @param n a node
 * @returns 8 characters (fewer for short job names)
 */
export function flowShortId(n: ReportNode): string {
  return n.job !== null ? n.job.shortId : pathId(n);
}

/** The first 8 hex digits of the sha256 of a node's canonical path. */
function pathId(n: ReportNode): string {
  return pathDigest(n.path);
}

/**
 * Orders the visible nodes and maps display edges to data-flow arrows.
 *
 * @param report the report
 * @param o component / long
 * @returns the flow model
 */
export function flowModel(report: ProvenanceReport, o: RenderOptions = {}): FlowModel {
  const ordered = flowOrder(report);
  const position = new Map(ordered.map((n, i) => [n.id, i]));
  const arrows: FlowModel["arrows"] = [];
  const seen = new Set<string>();
  for (const e of report.displayEdges) {
    const a = position.get(e.from);
    const b = position.get(e.to);
    if (a === undefined || b === undefined) continue;
    const { label, reverse } = ARROW[e.relation];
    const [from, to] = reverse ? [b, a] : [a, b];
    const key = `${from} ${to} ${label}`;
    if (seen.has(key)) continue;
    seen.add(key);
    arrows.push({ from, to, label });
  }
  const labels = distinctLabels(ordered, o);
  return {
    nodes: ordered.map((node, i) => ({
      node,
      label: labels[i]!,
      tokens: shortTokens(shownTokens(node, o).tt),
      shortId: escapeLine(flowShortId(node)),
    })),
    arrows,
  };
}

/**
 * The visible nodes in flow order: jobs sorted by path, each after its
 * dependencies (sorted by path, depth first); then the chats, sorted by path.
 */
function flowOrder(report: ProvenanceReport): ReportNode[] {
  const visible = Array.from(report.nodes).filter((n) => n.hidden === null);
  const byPath = (a: ReportNode, b: ReportNode) => compareBytes(a.path, b.path);
  const byId = new Map(visible.map((n) => [n.id, n]));
  const deps = new Map<string, ReportNode[]>();
  for (const e of report.displayEdges) {
    if (e.relation !== "dependency") continue;
    const dep = byId.get(e.to);
    if (dep === undefined) continue;
    (deps.get(e.from) ?? deps.set(e.from, []).get(e.from)!).push(dep);
  }
  const ordered: ReportNode[] = [];
  const done = new Set<string>();
  const visit = (start: ReportNode) => {
    // iterative post-order: a job after its dependencies (sorted by path)
    const stack: { n: ReportNode; next: number; kids: ReportNode[] }[] = [];
    const open = (n: ReportNode) => {
      done.add(n.id);
      stack.push({ n, next: 0, kids: [...(deps.get(n.id) ?? [])].sort(byPath) });
    };
    if (done.has(start.id)) return;
    open(start);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (top.next < top.kids.length) {
        const k = top.kids[top.next++]!;
        if (!done.has(k.id)) open(k);
        continue;
      }
      stack.pop();
      ordered.push(top.n);
    }
  };
  for (const j of visible.filter((n) => n.kind === "job").sort(byPath)) visit(j);
  ordered.push(...visible.filter((n) => n.kind === "chat").sort(byPath));
  return ordered;
}

/**
 * The nodes' labels, with the ones that repeat qualified until they differ:
 * a flat view has no nesting to tell `Librarian · _oneshot-1` of one
 * caller from another's. First the calling conversation of a nested
 * society log (`← Researcher · facts`), then the job whose log it is
 * (`in Planner/ask/Default_cefe35d2`), then the first 8 hex digits of the
 * sha256 of its path (a chat's short id; a job's label already ends with its
 * short id, which two stores can share). A qualifier that is the same for
 * every label of a group tells none apart and is skipped (R87-3: `in <job>`
 * of logs all in one job). Then labels over 60 characters are shortened in
 * the middle ({@link shortenDistinct}).
 *
 * @param nodes the nodes in flow order
 * @param o render options (`long` shows paths, which never repeat, whole)
 * @returns one label per node
 */
export function distinctLabels(nodes: readonly ReportNode[], o: RenderOptions = {}): string[] {
  // qualified and shortened before the status mark, so that the mark stays whole (R127-2)
  let labels = nodes.map((n) => baseLabel(n, o));
  const marks = nodes.map(statusMark);
  const steps: ((n: ReportNode) => string | null)[] = [callerOf, jobOf, pathId];
  for (const step of steps) {
    const groups = new Map<string, number[]>();
    labels.forEach((l, i) => {
      const key = l + marks[i];
      (groups.get(key) ?? groups.set(key, []).get(key)!).push(i);
    });
    const repeats = [...groups.values()].filter((g) => g.length > 1);
    if (repeats.length === 0) break;
    const next = labels.slice();
    for (const group of repeats) {
      const extras = group.map((i) => step(nodes[i]!));
      if (extras.every((e) => e === extras[0])) continue; // separates none of them
      group.forEach((i, k) => {
        const extra = extras[k]!;
        if (extra !== null) next[i] = `${labels[i]} ${escapeLine(extra)}`; // path parts come from the store
      });
    }
    labels = next;
  }
  const shown = o.long ? labels : shortenDistinct(labels, nodes, marks);
  return shown.map((l, i) => l + marks[i]);
}

/**
 * Shortens the (distinct) labels to {@link LABEL_MAX} characters in the
 * middle, the end kept; two that would then read alike (marks included)
 * end with the first 8 hex digits of the sha256 of their paths instead
 * (qualifiers are added at the end, so the kept tail mostly holds what
 * tells them apart).
 */
function shortenDistinct(
  labels: string[],
  nodes: readonly ReportNode[],
  marks: readonly string[],
): string[] {
  const short = labels.map((l, i) => middleShorten(l) + marks[i]);
  const count = new Map<string, number>();
  for (const l of short) count.set(l, (count.get(l) ?? 0) + 1);
  return short.map((l, i) =>
    count.get(l) === 1 || l === labels[i]! + marks[i]!
      ? l.slice(0, l.length - marks[i]!.length)
      : `${middleShorten(labels[i]!, LABEL_MAX - 9)} ${pathId(nodes[i]!)}`
  );
}

/** `← <Agent> · <conversation>` of the society a nested society log sits in. */
function callerOf(n: ReportNode): string | null {
  const m = /\/society\/([^/]+)\/([^/]+)\/society\/[^/]+\/[^/]+\.chat$/.exec(n.path);
  return m === null ? null : `← ${m[1]} · ${m[2]}`;
}

/**
 * `in <Workflow>/<task>/<name>` of the job whose `.files/log/` holds the
 * chat; `in attempt <n>` for a log of a job's earlier attempt (R109-3).
 */
function jobOf(n: ReportNode): string | null {
  const attempt = /\.files\/\.attempts\/(\d+)\.files\/log\//.exec(n.path);
  if (attempt !== null) return `in attempt ${attempt[1]}`;
  const m = /([^/]+\/[^/]+\/[^/]+?)(?:\.chat)?\.files\/log\//.exec(n.path);
  return m === null ? null : `in ${m[1]}`;
}

/**
 * Renders the compact flow: `Flow`, `====`, one line per node
 * (`[%2d] %-5s %-52s %8s %s`), an empty line, one line per arrow
 * (`[%2d] --%-10s--> [%2d]`).
 *
 * @param report the report
 * @param o component / long
 * @returns the text
 */
export function renderFlow(report: ProvenanceReport, o: RenderOptions = {}): string {
  const m = flowModel(report, o);
  const lines = ["Flow", "===="];
  m.nodes.forEach((x, i) => {
    lines.push(
      `[${padLeft(String(i + 1), 2)}] ${padRight(x.node.kind === "job" ? "Job" : "Chat", 5)} ${
        padRight(x.label, 52)
      } ${padLeft(x.tokens, 8)} ${x.shortId}`,
    );
  });
  lines.push("");
  for (const a of m.arrows) {
    lines.push(
      `[${padLeft(String(a.from + 1), 2)}] --${padRight(a.label, 10)}--> [${
        padLeft(String(a.to + 1), 2)
      }]`,
    );
  }
  return lines.join("\n") + "\n";
}

const DOT_STYLE: Record<FlowLabel, string> = {
  result: 'color="#39804a", penwidth=1.5, label="result"',
  delegated_result: 'color="#8a6d3b", penwidth=1.2, label="delegated_result"',
  dependency: 'color="#333333", label="dependency"',
  log: 'color="#2864a5", style="dashed", label="log"',
  attempt: 'color="#c62828", style="dotted", label="earlier attempt"',
};

/**
 * A quoted DOT string of one-line texts joined by `\n` (the labels have no
 * control characters left: {@link shownLabel}). A JSON string is a valid DOT
 * string (`\n` a line break, `\\` a backslash, `\"` a quote), but Graphviz
 * also reads entities in plain labels: `&` is written `&amp;`, so
 * `R&amp;D.chat` is drawn as it is named.
 *
 * @param text the label
 * @returns the quoted string
 */
export function dotString(text: string): string {
  return JSON.stringify(text).replaceAll("&", "&amp;");
}

/**
 * Renders Graphviz DOT: one node per visible node (`box` jobs, `note` chats;
 * a failed node with a red border) in flow order, one edge per flow arrow.
 * Labels are {@link dotString}s. An incomplete walk says so in a comment and
 * a graph label.
 *
 * @param report the report
 * @param o component / long
 * @returns DOT text
 */
export function renderDot(report: ProvenanceReport, o: RenderOptions = {}): string {
  const m = flowModel(report, o);
  const lines = [
    "digraph scout_ai_provenance {",
    '  graph [rankdir=LR, bgcolor="white", pad=0.2, nodesep=0.35, ranksep=0.6];',
    '  node [fontname="Helvetica", fontsize=10];',
    '  edge [fontname="Helvetica", fontsize=8, arrowsize=0.7];',
  ];
  // TS-FIX (R127-1, a port addition to §10.5, whose header stays as it is):
  // an incomplete walk's graph says so, drawn above it in the failed nodes' red
  const incomplete = incompleteText(report);
  if (incomplete !== null) {
    lines.push(
      `  // ${incomplete}`,
      `  graph [label=${dotString(incomplete)}, labelloc="t", labeljust="l", ` +
        'fontname="Helvetica", fontsize=10, fontcolor="#c62828"];',
    );
  }
  m.nodes.forEach((x, i) => {
    const job = x.node.kind === "job";
    const label = dotString(`${job ? "Job" : "Chat"}\n${x.label}\n${x.tokens} tokens`);
    // a failed job (R87-4), a stale one (R127-5), a failed conversation (R127-2): a red border
    const failed = nodeFailed(x.node) ? ', color="#c62828", penwidth=2' : "";
    lines.push(
      `  n${i} [shape=${
        job ? "box" : "note"
      }, style="rounded,filled", fillcolor="#f7f7f7"${failed}, label=${label}];`,
    );
  });
  for (const a of m.arrows) lines.push(`  n${a.from} -> n${a.to} [${DOT_STYLE[a.label]}];`);
  lines.push("}");
  return lines.join("\n") + "\n";
}
