/**
 * `chat_report`: a Markdown report composed from the results of
 * `chat_overview`, `chat_tokens`, `chat_tool_calls` and `chat_agents` (its
 * workflow dependencies). Pure functions; they read no file and walk
 * nothing. In two steps: {@link reportFacts} takes from the four results
 * what the report shows (a few kilobytes of plain JSON), and
 * {@link renderReport} writes the Markdown from those facts alone — so the
 * facts can be computed once, where the results are made, and saved beside
 * them.
 *
 * @module
 */
import { dirname } from "node:path";
import { escapeLine } from "../provenance/render_tool_calls.ts";

type Json = Record<string, unknown>;
type Tokens = Record<string, number>;

const KEYS = ["pt", "ct", "cct", "cwt", "rt", "tt"];

/** How many rows the long tables show (the rest is counted). */
export const REPORT_ROWS = 15;

/**
 * Version of {@link ReportFacts}: a saved copy of another version is not
 * used. 2: the tool facts count each call once and say in how many chats
 * its copies were (R111-4).
 */
export const REPORT_FACTS_VERSION = 2;

/** What the report shows, taken from the four results (plain JSON; table rows not yet escaped). */
export interface ReportFacts {
  /** {@link REPORT_FACTS_VERSION}. */
  version: number;
  /** The analysed file, root id, completeness and graph size (from `chat_overview`). */
  head: { file: unknown; root: unknown; complete: boolean; summary: Json };
  /** Warning count and the first {@link REPORT_ROWS} `[code, message]`. */
  warnings: { count: number; first: [unknown, unknown][] };
  /** Inference count, whether totals conflict, the scope rows and the largest direct spenders. */
  tokens: { inferences: number; conflicts: boolean; scopes: unknown[][]; spenders: unknown[][] };
  /**
   * Call summary, calls by tool, failed calls (first rows) and their count —
   * each call once, however many chats hold a copy —, and how many chats
   * hold calls.
   */
  tools: {
    summary: Json;
    byTool: unknown[][];
    failed: unknown[][];
    failedCount: number;
    chats: number;
  };
  /** Delegation count (each call once), counts by association, and the first rows. */
  agents: { count: number; associations: Record<string, number>; rows: unknown[][] };
}

/** The four dependency results, by task name. */
export interface ReportInputs {
  /** `chat_overview`'s result. */
  chat_overview: Json;
  /** `chat_tokens`'s result. */
  chat_tokens: Json;
  /** `chat_tool_calls`'s result. */
  chat_tool_calls: Json;
  /** `chat_agents`'s result. */
  chat_agents: Json;
}

/**
 * What the report shows of the four results.
 *
 * @param r the four dependency results by task name
 * @returns the facts ({@link renderReport} turns them into the report)
 */
export function reportFacts(r: ReportInputs): ReportFacts {
  const ov = r.chat_overview;
  const warnings = (ov.warnings ?? []) as { code: unknown; message: unknown }[];
  return {
    version: REPORT_FACTS_VERSION,
    head: {
      file: ov.file,
      root: ov.root,
      complete: Boolean(ov.complete),
      summary: ov.summary as Json,
    },
    warnings: {
      count: warnings.length,
      first: warnings.slice(0, REPORT_ROWS).map((w) => [w.code, w.message]),
    },
    tokens: tokenFacts(r.chat_tokens, ov),
    tools: toolFacts(r.chat_tool_calls),
    agents: agentFacts(r.chat_agents),
  };
}

/** Markdown-safe table cell: one line, pipes and backticks escaped. */
function cell(v: unknown): string {
  const s = v === null || v === undefined ? "-" : typeof v === "string" ? v : JSON.stringify(v);
  return escapeLine(s).replace(/[|`<>]/g, (c) => `\\${c}`);
}

function table(head: string[], rows: unknown[][]): string[] {
  return [
    `| ${head.join(" | ")} |`,
    `|${head.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`),
  ];
}

/**
 * The report from its facts.
 *
 * @param f what {@link reportFacts} took from the four results
 * @returns Markdown text
 */
export function renderReport(f: ReportFacts): string {
  const { head, warnings } = f;
  const summary = head.summary as { chats: number; jobs: number; edges: number };
  const out = [
    `# Provenance report: ${cell(head.file)}`,
    "",
    `- root: ${cell(head.root)}`,
    `- ${summary.chats} chats, ${summary.jobs} jobs, ${summary.edges} structural edges`,
    `- complete: ${head.complete ? "yes" : `no (${warnings.count} warnings)`}`,
    "",
  ];
  out.push(...tokensSection(f.tokens), "", ...toolsSection(f.tools), "");
  out.push(...agentsSection(f.agents), "", "## Warnings", "");
  if (warnings.count === 0) out.push("None.");
  for (const [code, message] of warnings.first) out.push(`- \`${code}\`: ${cell(message)}`);
  if (warnings.count > REPORT_ROWS) out.push(`- … and ${warnings.count - REPORT_ROWS} more`);
  return out.join("\n") + "\n";
}

function tokenRow(name: string, t: Tokens | undefined): unknown[] {
  return [name, ...KEYS.map((k) => t?.[k] ?? 0)];
}

function tokenFacts(t: Json, ov: Json): ReportFacts["tokens"] {
  const totals = (t.totals ?? {}) as Record<string, Tokens> & { authoritative?: boolean };
  const labels = new Map(
    ((ov.nodes ?? []) as { id: string; label: string | null }[]).map((n) => [n.id, n.label]),
  );
  const nodes = ((t.nodes ?? []) as { id: string; hidden: boolean; direct: Tokens }[])
    .filter((n) => !n.hidden && (n.direct.tt ?? 0) > 0) // hidden chats count in their job
    .sort((a, b) => (b.direct.tt ?? 0) - (a.direct.tt ?? 0) || (a.id < b.id ? -1 : 1));
  return {
    inferences: ((t.events ?? []) as unknown[]).length,
    conflicts: totals.authoritative === false,
    scopes: [
      tokenRow("deduplicated_total", totals.deduplicated_total),
      tokenRow("chat_evidence", totals.chat_evidence),
      tokenRow("receipt_evidence", totals.receipt_evidence),
      tokenRow("receipt_only", totals.receipt_only),
    ],
    spenders: nodes.slice(0, REPORT_ROWS).map((n) => [labels.get(n.id) ?? n.id, n.direct.tt]),
  };
}

function tokensSection(t: ReportFacts["tokens"]): string[] {
  const out = [
    "## Tokens",
    "",
    `${t.inferences} inferences, each counted once` +
    (t.conflicts ? " (some evidence conflicts: best effort)" : "") + ".",
    "",
    ...table(["scope", ...KEYS], t.scopes),
  ];
  if (t.spenders.length > 0) {
    out.push("", "Largest direct spenders (a node's own metas; a job: its logs):", "");
    out.push(...table(["node", "direct tt"], t.spenders));
  }
  return out;
}

/**
 * Whether a call or delegation row is the copy its call is counted as
 * (`copyOf` null; a row without one, of a v1 result, counts as it did).
 */
function counted(row: { copyOf?: unknown }): boolean {
  return row.copyOf === null || row.copyOf === undefined;
}

function toolFacts(t: Json): ReportFacts["tools"] {
  const groups = (t.chats ?? []) as {
    agent: string | null;
    calls: { tool: string | null; status: string; exception: string | null; copyOf?: unknown }[];
  }[];
  const byTool = new Map<string, number[]>();
  const failed: unknown[][] = [];
  let failedCount = 0;
  for (const g of groups) {
    for (const c of g.calls) {
      if (!counted(c)) continue; // a copy: its call is counted where `copyOf` points
      const k = c.tool ?? "?";
      const row = byTool.get(k) ?? byTool.set(k, [0, 0, 0, 0]).get(k)!;
      row[0]!++;
      row[c.status === "ok" ? 1 : c.status === "error" ? 2 : 3]!++;
      if (c.status === "ok") continue;
      if (failedCount++ < REPORT_ROWS) failed.push([c.tool, g.agent, c.status, c.exception]);
    }
  }
  const rows = [...byTool].sort((a, b) => b[1][0]! - a[1][0]! || (a[0] < b[0] ? -1 : 1));
  return {
    summary: t.summary as Json,
    byTool: rows.map(([k, v]) => [k, ...v]),
    failed,
    failedCount,
    chats: groups.length,
  };
}

function toolsSection(t: ReportFacts["tools"]): string[] {
  const s = t.summary as {
    calls: number;
    ok: number;
    error: number;
    missing_output: number;
    copies: number;
  };
  const copies = s.copies > s.calls
    ? ` (${s.copies} copies in ${t.chats} chats, each call counted once)`
    : "";
  const out = [
    "## Tool calls",
    "",
    `${s.calls} calls: ${s.ok} ok, ${s.error} error, ${s.missing_output} missing output${copies}.`,
  ];
  if (t.byTool.length > 0) {
    out.push("", ...table(["tool", "calls", "ok", "error", "missing output"], t.byTool));
  }
  if (t.failedCount > 0) {
    out.push("", "Failed or unanswered calls:", "");
    out.push(...table(["tool", "agent", "status", "exception"], t.failed));
    if (t.failedCount > REPORT_ROWS) out.push("", `… and ${t.failedCount - REPORT_ROWS} more.`);
  }
  return out;
}

/** A path below `base` (the analysed file's directory) without that prefix. */
function relative(path: string | null, base: string): string | null {
  return path !== null && path.startsWith(base + "/") ? path.slice(base.length + 1) : path;
}

function agentFacts(a: Json): ReportFacts["agents"] {
  const base = dirname(String(a.file));
  const ds = ((a.delegations ?? []) as {
    caller: { agent: string | null };
    target: string | null;
    conversation: string;
    association: string;
    job: string | null;
    log: string | null;
    status: string;
    copyOf?: unknown;
  }[]).filter(counted);
  const count = (k: string) => ds.filter((d) => d.association === k).length;
  return {
    count: ds.length,
    associations: {
      structural: count("structural"),
      inferred: count("inferred"),
      none: count("none"),
    },
    rows: ds.slice(0, REPORT_ROWS).map((d) => [
      d.caller.agent,
      d.target,
      d.conversation,
      d.status,
      d.association,
      relative(d.log ?? d.job, base),
    ]),
  };
}

function agentsSection(a: ReportFacts["agents"]): string[] {
  const out = ["## Delegations", ""];
  if (a.count === 0) return [...out, "None."];
  const n = a.associations;
  out.push(
    `${a.count} delegation${
      a.count === 1 ? "" : "s"
    }: ${n.structural} with a receipt (structural), ` +
      `${n.inferred} matched to a log by name only (inferred), ${n.none} unknown.`,
    "",
    ...table(
      ["caller", "target", "conversation", "status", "association", "specialist log"],
      a.rows,
    ),
  );
  if (a.count > REPORT_ROWS) out.push("", `… and ${a.count - REPORT_ROWS} more.`);
  return out;
}
