/**
 * Who spent what (`llm prov --by agent|model|endpoint|job`): the report's
 * deduplicated token events grouped by the agent, model, endpoint or job they
 * belong to, with inference counts and (given prices) cost. One pass over
 * `report.events`; no second walk.
 *
 * Where an event belongs comes from where its canonical evidence lives:
 * - agent: the innermost `society/<Agent>/…` of a society log; else the
 *   specialist named by a `hand_off_to_<Agent>` receipt; else the job a
 *   receipt's call delegated to, or whose own log holds the evidence — an
 *   agent's `ask` job counts for that agent (its workflow), other jobs as
 *   `Workflow/task`; else, for a receipt, the agent its call named (an
 *   `ask`'s `agent` argument, R101-3), `unknown` when it names none the tool
 *   would run; else `(root)` for the root chat (each root chat, with
 *   several roots) and the chat's file name for other chats;
 * - job: the job the evidence lives in (or the receipt delegated to); else
 *   `(none)`;
 * - model / endpoint: the meta record's `model=` / `endpoint=` keys (written
 *   since scout-ai 0.x); older records go in the explicit group `(none)`, a
 *   name no model or endpoint has (R134-4: it was `unknown`, which merged
 *   them with a model of that name).
 *
 * @module
 */
import { basename } from "node:path";
import { addTokens, emptyTokens, type TokenTotals } from "../chat/trace.ts";
import { usageError } from "../errors.ts";
import type { CanonicalEvent } from "./event_table.ts";
import { costOf, type PriceTable } from "./prices.ts";
import { middleShorten, pathDigest, societyLog } from "./labels.ts";
import { escapeLine } from "./one_line.ts";
import { costText } from "./render_tree.ts";
import type { NodeCost } from "./report_types.ts";
import { jobLabel, type ProvenanceReport, type ReportNode } from "./report.ts";
import { compareNames } from "../util/name_order.ts";
import { columnWidth, padToWidth } from "../util/display_width.ts";

/** Grouping dimensions. */
export const ROLLUP_DIMENSIONS = ["agent", "model", "endpoint", "job"] as const;
/** A grouping dimension. */
export type RollupDimension = typeof ROLLUP_DIMENSIONS[number];

/** The group of what names no model, endpoint or job: `(none)`, no name a model can have. */
export const NONE = "(none)";

/** One group of a roll-up. */
export interface RollupGroup {
  /** Dimension → value. */
  key: Record<string, string>;
  /** Deduplicated inferences in the group. */
  inferences: number;
  /** Their tokens. */
  tokens: TokenTotals;
  /** Their cost in dollars; null when some model of the group has no price; absent without prices. */
  cost?: number | null;
  /** With prices: the priced inferences' dollars, and how many have no price and how many have one. */
  priced?: NodeCost;
}

/** A roll-up: groups sorted by total tokens (largest first), then key. */
export interface Rollup {
  /** Dimensions. */
  by: RollupDimension[];
  /** Groups. */
  groups: RollupGroup[];
  /** Models without a price (each once; {@link NONE} for records naming none), when prices were given. */
  unpriced: string[];
  /** With prices: how many inferences name no model (their records have no `model=`). */
  noModel?: number;
}

function str(v: unknown): string | null {
  return typeof v === "string" && v !== "" ? v : null;
}

/** Where an event's evidence places it. */
interface Placement {
  source: string;
  jobNode: ReportNode | null;
}

/** Lookups over the report's nodes and `agent_job` edges. */
interface Index {
  jobs: Map<string, ReportNode>;
  byId: Map<string, ReportNode>;
  /** `<chat id> <call id>` → the job a receipt's call delegated to. */
  delegated: Map<string, string>;
}

function index(report: ProvenanceReport): Index {
  const nodes = Array.from(report.nodes);
  const delegated = new Map<string, string>();
  for (const e of report.edges) {
    if (e.relation === "agent_job" && e.detail?.callId) {
      delegated.set(`${e.from} ${e.detail.callId}`, e.to);
    }
  }
  return {
    jobs: new Map(nodes.filter((n) => n.kind === "job").map((n) => [n.path, n])),
    byId: new Map(nodes.map((n) => [n.id, n])),
    delegated,
  };
}

function placement(e: CanonicalEvent, ix: Index): Placement {
  const first = e.evidence[0];
  const source = first?.source ?? "";
  if (first?.origin === "agent_meta" && first.callId !== null) {
    const to = ix.delegated.get(`chat:${source} ${first.callId}`);
    const node = to === undefined ? undefined : ix.byId.get(to);
    if (node?.kind === "job") return { source, jobNode: node };
  }
  const at = source.indexOf(".files/");
  return { source, jobNode: ix.jobs.get(at >= 0 ? source.slice(0, at) : source) ?? null };
}

/** The agent of a job: the workflow of an agent's `ask` job, else `Workflow/task`. */
function jobAgent(n: ReportNode): string {
  const j = n.job!;
  if (j.workflow === null || j.task === null) return j.shortId;
  return j.task === "ask" ? j.workflow : `${j.workflow}/${j.task}`;
}

/**
 * The society log an event's spend belongs to. The rule (R93-4): a copy
 * whose path is a society log wins over one that is not — the canonical copy
 * when it is one (of either origin, as before), else the first other copy
 * that is a society log's own meta record. The canonical copy is
 * the first in path order, so a renamed copy of a specialist's log elsewhere
 * in the job's `log/` (`log/old/facts-renamed.chat`) can be it; without this
 * rule it moved the specialist's spend to the job's agent.
 */
function societyOf(e: CanonicalEvent): { agent: string } | null {
  for (let k = 0; k < e.evidence.length; k++) {
    const c = e.evidence[k]!;
    if (k > 0 && c.origin !== "chat_meta") continue;
    const society = societyLog(c.source);
    if (society) return society;
  }
  return null;
}

function agentOf(e: CanonicalEvent, p: Placement, roots: ReadonlySet<string>): string {
  const society = societyOf(e);
  if (society) return society.agent;
  const first = e.evidence[0];
  const tool = first?.origin === "agent_meta" ? first.toolName : null;
  if (tool?.startsWith("hand_off_to_")) return tool.slice("hand_off_to_".length);
  if (p.jobNode?.job) return jobAgent(p.jobNode);
  // an `ask`'s receipt with no job and no log: the agent its call named (R101-3)
  if (first?.origin === "agent_meta") return first.agent ?? "unknown";
  if (roots.has(`chat:${p.source}`)) return "(root)";
  return p.source === "" ? "unknown" : basename(p.source);
}

function valueOf(
  d: RollupDimension,
  e: CanonicalEvent,
  p: Placement,
  roots: ReadonlySet<string>,
): string {
  switch (d) {
    case "model":
      return str(e.meta.model) ?? NONE;
    case "endpoint":
      return str(e.meta.endpoint) ?? NONE;
    case "job":
      return p.jobNode?.job ? jobLabel(p.jobNode.job) : NONE;
    case "agent":
      return agentOf(e, p, roots);
  }
}

/**
 * Tells apart the groups of jobs that share a label (one `Workflow/task
 * name` in two job stores): each gets the first 8 hex digits of the sha256
 * of its job's path after the label, as the flow does.
 *
 * @param jobPaths group → the path of its job
 */
function qualifyJobLabels(jobPaths: ReadonlyMap<RollupGroup, string>): void {
  const paths = new Map<string, Set<string>>();
  for (const [g, path] of jobPaths) {
    const label = g.key.job!;
    (paths.get(label) ?? paths.set(label, new Set()).get(label)!).add(path);
  }
  for (const [g, path] of jobPaths) {
    if (paths.get(g.key.job!)!.size > 1) g.key.job += ` ${pathDigest(path)}`;
  }
}

/**
 * Groups the report's events.
 *
 * @param report the report
 * @param by dimensions (at least one)
 * @param prices price table, if any (adds cost)
 * @returns the roll-up
 */
export function rollup(
  report: ProvenanceReport,
  by: readonly RollupDimension[],
  prices?: PriceTable,
): Rollup {
  const ix = index(report);
  const groups = new Map<string, RollupGroup>();
  const jobPaths = new Map<RollupGroup, string>();
  const unpriced = new Set<string>();
  let noModel = 0;
  // several roots (R134-1): each root chat's own inferences are `(root)`'s
  const roots = new Set(report.roots ?? [report.root]);
  // (each event's canonical copy is all a roll-up reads: not every copy is rebuilt)
  for (const e of report.events.canonical?.() ?? report.events) {
    const p = placement(e, ix);
    const key: Record<string, string> = {};
    for (const d of by) key[d] = valueOf(d, e, p, roots);
    // a job is grouped by its node, not by its label (which two jobs can share)
    const job = p.jobNode?.job ? p.jobNode : null;
    const k = JSON.stringify(by.map((d) => d === "job" && job !== null ? job.id : key[d]));
    let g = groups.get(k);
    if (!g) {
      g = {
        key,
        inferences: 0,
        tokens: emptyTokens(),
        // cost first (the JSON's order); set from priced once all are counted
        ...(prices ? { cost: 0, priced: { dollars: 0, unpriced: 0, priced: 0 } } : {}),
      };
      groups.set(k, g);
      if (by.includes("job") && job !== null) jobPaths.set(g, job.path);
    }
    g.inferences++;
    addTokens(g.tokens, e.tokens as unknown as Record<string, unknown>);
    if (prices) {
      const c = costOf(e.tokens, e.meta, prices);
      if (c === null) {
        const model = str(e.meta.model);
        if (model === null) noModel++;
        unpriced.add(model ?? NONE);
        g.priced!.unpriced++;
      } else {
        g.priced!.dollars += c;
        g.priced!.priced++;
      }
    }
  }
  qualifyJobLabels(jobPaths);
  // a group's cost: its dollars, or null when some of its inferences have no price
  for (const g of groups.values()) {
    if (g.priced) {
      g.cost = g.priced.unpriced ? null : g.priced.dollars;
    }
  }
  const sorted = [...groups.values()].sort((a, b) =>
    b.tokens.tt - a.tokens.tt ||
    compareNames(JSON.stringify(Object.values(a.key)), JSON.stringify(Object.values(b.key)))
  );
  const out: Rollup = { by: [...by], groups: sorted, unpriced: [...unpriced].sort() };
  if (prices) out.noModel = noModel;
  return out;
}

/**
 * Parses `--by agent,model`.
 *
 * @param spec comma-separated dimensions
 * @returns the dimensions
 * @throws ScoutError `usage` (exit 2) naming an unknown dimension
 */
export function parseRollupDimensions(spec: string): RollupDimension[] {
  const out: RollupDimension[] = [];
  for (const raw of spec.split(",")) {
    const d = raw.trim();
    if (!(ROLLUP_DIMENSIONS as readonly string[]).includes(d)) {
      throw usageError(`Unknown --by dimension "${d}" (${ROLLUP_DIMENSIONS.join(", ")})`);
    }
    if (!out.includes(d as RollupDimension)) out.push(d as RollupDimension);
  }
  return out;
}

/**
 * Renders a roll-up as a text table: the dimensions (control characters
 * escaped, shortened in the middle as the tree's labels), `n` (inferences),
 * the six token keys and, with prices, `cost` (`?` when unpriced).
 *
 * @param r the roll-up
 * @param priced whether to show the cost column
 * @returns the table
 */
export function renderRollup(r: Rollup, priced: boolean): string {
  const head = [...r.by, "n", "pt", "ct", "tt", "cct", "cwt", "rt", ...(priced ? ["cost"] : [])];
  const rows = r.groups.map((g) => [
    ...r.by.map((d) => middleShorten(escapeLine(g.key[d]!))),
    String(g.inferences),
    ...(["pt", "ct", "tt", "cct", "cwt", "rt"] as const).map((k) => String(g.tokens[k])),
    ...(priced ? [groupCost(g)] : []),
  ]);
  if (priced) alignDecimals(rows, head.length - 1);
  const widths = head.map((h, i) => columnWidth([h, ...rows.map((row) => row[i]!)]));
  const line = (cells: string[]) =>
    cells.map((c, i) => i < r.by.length ? padToWidth(c, widths[i]!) : c.padStart(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(head), ...rows.map(line)].join("\n") + "\n";
}

/**
 * A group's cost as the table and the page show it: `$X`, `$X+?` when some of
 * its inferences have no price (a free model's `$0.0000+?` too), `?` when none
 * has.
 *
 * @param g the group
 * @returns the text
 */
export function groupCost(g: RollupGroup): string {
  return g.priced ? costText(g.priced) : "?";
}

/**
 * Pads column `col` so its decimal points line up (`$0.0105` over
 * `$0.0000025`); a cell without one (`?`) goes to the right edge.
 */
function alignDecimals(rows: string[][], col: number): void {
  const parts = rows.map((row) => {
    const c = row[col]!;
    const dot = c.indexOf(".");
    return dot < 0 ? null : [c.slice(0, dot), c.slice(dot)] as const;
  });
  const int = Math.max(0, ...parts.map((p) => p?.[0].length ?? 0));
  const frac = Math.max(0, ...parts.map((p) => p?.[1].length ?? 0));
  rows.forEach((row, k) => {
    const p = parts[k];
    row[col] = p ? p[0].padStart(int) + p[1].padEnd(frac) : row[col]!.padStart(int + frac);
  });
}
