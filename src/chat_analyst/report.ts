/**
 * `chat_report`: a Markdown report composed from the results of
 * `chat_overview`, `chat_tokens`, `chat_tool_calls` and `chat_agents` (its
 * workflow dependencies). A pure function of those four results; it reads
 * no file and walks nothing.
 *
 * @module
 */
import { dirname } from "node:path";
import { escapeLine } from "../provenance/render_tool_calls.ts";

type Json = Record<string, unknown>;
type Tokens = Record<string, number>;

const KEYS = ["pt", "ct", "cct", "cwt", "rt", "tt"];

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

function tokenRow(name: string, t: Tokens | undefined): unknown[] {
  return [name, ...KEYS.map((k) => t?.[k] ?? 0)];
}

/** How many rows the long tables show (the rest is counted). */
export const REPORT_ROWS = 15;

/**
 * The report.
 *
 * @param r the four dependency results by task name
 * @returns Markdown text
 */
export function chatReport(r: {
  chat_overview: Json;
  chat_tokens: Json;
  chat_tool_calls: Json;
  chat_agents: Json;
}): string {
  const ov = r.chat_overview;
  const summary = ov.summary as { chats: number; jobs: number; edges: number };
  const warnings = (ov.warnings ?? []) as { code: string; message: string }[];
  const out = [
    `# Provenance report: ${cell(ov.file)}`,
    "",
    `- root: ${cell(ov.root)}`,
    `- ${summary.chats} chats, ${summary.jobs} jobs, ${summary.edges} structural edges`,
    `- complete: ${ov.complete ? "yes" : `no (${warnings.length} warnings)`}`,
    "",
  ];
  out.push(...tokensSection(r.chat_tokens, ov), "", ...toolsSection(r.chat_tool_calls), "");
  out.push(...agentsSection(r.chat_agents), "", "## Warnings", "");
  if (warnings.length === 0) out.push("None.");
  for (const w of warnings.slice(0, REPORT_ROWS)) out.push(`- \`${w.code}\`: ${cell(w.message)}`);
  if (warnings.length > REPORT_ROWS) out.push(`- … and ${warnings.length - REPORT_ROWS} more`);
  return out.join("\n") + "\n";
}

function tokensSection(t: Json, ov: Json): string[] {
  const totals = (t.totals ?? {}) as Record<string, Tokens> & { authoritative?: boolean };
  const events = (t.events ?? []) as unknown[];
  const labels = new Map(
    ((ov.nodes ?? []) as { id: string; label: string | null }[]).map((n) => [n.id, n.label]),
  );
  const nodes = ((t.nodes ?? []) as { id: string; hidden: boolean; direct: Tokens }[])
    .filter((n) => !n.hidden && (n.direct.tt ?? 0) > 0) // hidden chats count in their job
    .sort((a, b) => (b.direct.tt ?? 0) - (a.direct.tt ?? 0) || (a.id < b.id ? -1 : 1));
  const out = [
    "## Tokens",
    "",
    `${events.length} inferences, each counted once` +
    (totals.authoritative === false ? " (some evidence conflicts: best effort)" : "") + ".",
    "",
    ...table(["scope", ...KEYS], [
      tokenRow("deduplicated_total", totals.deduplicated_total),
      tokenRow("chat_evidence", totals.chat_evidence),
      tokenRow("receipt_evidence", totals.receipt_evidence),
      tokenRow("receipt_only", totals.receipt_only),
    ]),
  ];
  if (nodes.length > 0) {
    out.push("", "Largest direct spenders (a node's own metas; a job: its logs):", "");
    out.push(
      ...table(
        ["node", "direct tt"],
        nodes.slice(0, REPORT_ROWS).map((n) => [labels.get(n.id) ?? n.id, n.direct.tt]),
      ),
    );
  }
  return out;
}

function toolsSection(t: Json): string[] {
  const groups = (t.chats ?? []) as {
    agent: string | null;
    calls: { tool: string | null; status: string; exception: string | null }[];
  }[];
  const calls = groups.flatMap((g) => g.calls.map((c) => ({ ...c, agent: g.agent })));
  const s = t.summary as { calls: number; ok: number; error: number; missing_output: number };
  const byTool = new Map<string, number[]>();
  for (const c of calls) {
    const k = c.tool ?? "?";
    const row = byTool.get(k) ?? byTool.set(k, [0, 0, 0, 0]).get(k)!;
    row[0]!++;
    row[c.status === "ok" ? 1 : c.status === "error" ? 2 : 3]!++;
  }
  const out = [
    "## Tool calls",
    "",
    `${s.calls} calls: ${s.ok} ok, ${s.error} error, ${s.missing_output} missing output.`,
  ];
  if (byTool.size > 0) {
    const rows = [...byTool].sort((a, b) => b[1][0]! - a[1][0]! || (a[0] < b[0] ? -1 : 1));
    out.push(
      "",
      ...table(["tool", "calls", "ok", "error", "missing output"], rows.map(([k, v]) => [k, ...v])),
    );
  }
  const failed = calls.filter((c) => c.status !== "ok");
  if (failed.length > 0) {
    out.push("", "Failed or unanswered calls:", "");
    out.push(
      ...table(
        ["tool", "agent", "status", "exception"],
        failed.slice(0, REPORT_ROWS).map((c) => [c.tool, c.agent, c.status, c.exception]),
      ),
    );
    if (failed.length > REPORT_ROWS) out.push("", `… and ${failed.length - REPORT_ROWS} more.`);
  }
  return out;
}

/** A path below `base` (the analysed file's directory) without that prefix. */
function relative(path: string | null, base: string): string | null {
  return path !== null && path.startsWith(base + "/") ? path.slice(base.length + 1) : path;
}

function agentsSection(a: Json): string[] {
  const base = dirname(String(a.file));
  const ds = (a.delegations ?? []) as {
    caller: { agent: string | null };
    target: string | null;
    conversation: string;
    association: string;
    job: string | null;
    log: string | null;
    status: string;
  }[];
  const out = ["## Delegations", ""];
  if (ds.length === 0) return [...out, "None."];
  const count = (k: string) => ds.filter((d) => d.association === k).length;
  out.push(
    `${ds.length} delegation${ds.length === 1 ? "" : "s"}: ${
      count("structural")
    } with a receipt (structural), ` +
      `${count("inferred")} matched to a log by name only (inferred), ${count("none")} unknown.`,
    "",
    ...table(
      ["caller", "target", "conversation", "status", "association", "specialist log"],
      ds.slice(0, REPORT_ROWS).map((d) => [
        d.caller.agent,
        d.target,
        d.conversation,
        d.status,
        d.association,
        relative(d.log ?? d.job, base),
      ]),
    ),
  );
  if (ds.length > REPORT_ROWS) out.push("", `… and ${ds.length - REPORT_ROWS} more.`);
  return out;
}
