/**
 * The evidence report (`--evidence`, `provenance.md` §10.6) and the warning
 * lines `prov` prints on stderr.
 *
 * @module
 */
import { basename, dirname, relative } from "node:path";
import { type ReceiptProblem, receiptReferenceSuffix } from "../chat/receipts.ts";
import type { EvidenceItem, TokenEvent } from "./evidence.ts";
import { identityText } from "./evidence.ts";
import { padRight } from "./format.ts";
import { escapeLine } from "./one_line.ts";
import type { ProvenanceReport, ReportWarning } from "./report.ts";

/** What the report calls a chat: its file name, or a longer name when two chats share it. */
type ChatNames = ReadonlyMap<string, string>;

const LOG_DIR = ".files/log/";

/**
 * The chats whose file name another chat of the report shares (the
 * Planner's and the Critic's `log/agent.chat`), each with a name of its own:
 * a job's log by its path from the job store (`Planner/ask/<name>.files/
 * log/agent.chat`, as `meta: job=` names jobs), another chat by its path
 * relative to the root's directory (absolute when outside it).
 *
 * @param report the report
 * @returns path → name, for the chats whose file name is not enough
 */
export function chatNames(report: ProvenanceReport): Map<string, string> {
  const byName = new Map<string, string[]>();
  for (const n of report.nodes) {
    if (n.kind !== "chat") continue;
    const b = basename(n.path);
    const paths = byName.get(b);
    if (paths === undefined) byName.set(b, [n.path]);
    else if (!paths.includes(n.path)) paths.push(n.path);
  }
  const rootDir = dirname(report.root.slice(report.root.indexOf(":") + 1));
  const names = new Map<string, string>();
  for (const paths of byName.values()) {
    if (paths.length < 2) continue;
    for (const path of paths) names.set(path, longName(path, rootDir));
  }
  return names;
}

function longName(path: string, rootDir: string): string {
  const at = path.lastIndexOf(LOG_DIR);
  if (at >= 0) return path.slice(0, at).split("/").slice(-3).join("/") + path.slice(at);
  const rel = relative(rootDir, path);
  return rel.startsWith("..") ? path : rel;
}

function loc(address: unknown, names: ChatNames): string {
  if (!Array.isArray(address)) return String(address);
  const [source, index, , i] = address as [string, number, string?, number?];
  const at = `${names.get(String(source)) ?? basename(String(source))}:${index}`;
  return address.length === 4 ? `${at}[agent_meta,${i}]` : at;
}

function itemLoc(x: EvidenceItem, names: ChatNames): string {
  return x.origin === "chat_meta" ? loc(x.metaAddress, names) : loc(x.evidenceAddress, names);
}

function rowId(e: TokenEvent, names: ChatNames): string {
  if (e.identity[0] === "inference_id") return String(e.identity[1]);
  if (e.identity[0] === "receipt") return `receipt=${loc(e.identity[1], names)}`;
  return identityText(e.identity);
}

function rowTokens(e: TokenEvent): string {
  const t = e.tokens;
  const parts = [`total=${t.tt}`];
  if (t.pt > 0) parts.push(`prompt=${t.pt}`);
  if (t.ct > 0) parts.push(`cont=${t.ct}`);
  if (t.cct > 0) parts.push(`cache=${t.cct}`);
  if (t.rt > 0) parts.push(`reason=${t.rt}`);
  return parts.join(" ");
}

const STATUS_TEXT: Record<TokenEvent["status"], string> = {
  conflict: "conflict (counted once, not authoritative)",
  incomplete_evidence: "incomplete evidence",
  legacy_unresolved: "legacy unresolved",
  receipt_only: "receipt-only",
  counted_once: "counted once",
};

/** The columns' least widths (`%-26s %-36s %-56s %s`); the id and tokens columns grow to fit. */
const WIDTHS = [26, 36, 56] as const;

function chars(s: string): number {
  return [...s].length;
}

/** The table: a header and one row per event, columns padded to fit (or `(none)`). */
function table(rows: string[][]): string[] {
  if (rows.length === 0) return ["(none)"];
  const head = ["Inference ID", "Tokens", "Evidence", "Status"];
  // a loop, not Math.max(...rows): a store's hundreds of thousands of events overflow the stack
  const w: number[] = [WIDTHS[0], WIDTHS[1], WIDTHS[2]];
  for (const r of rows) {
    w[0] = Math.max(w[0]!, chars(r[0]!));
    w[1] = Math.max(w[1]!, chars(r[1]!));
  } // (an event's evidence can be long: it pushes its status along, its column stays)
  return [head, ...rows].map((r) =>
    `${padRight(r[0]!, w[0]!)} ${padRight(r[1]!, w[1]!)} ${padRight(r[2]!, w[2]!)} ${r[3]}`
  );
}

function distinct(values: unknown[]): string {
  return [...new Set(values.map((v) => (v === null || v === undefined ? "" : String(v))))].join(
    "|",
  );
}

function evidenceText(e: TokenEvent, names: ChatNames): string {
  return e.evidence.map((x) =>
    `${x.origin} ${itemLoc(x, names)}${
      x.origin === "agent_meta" && x.callId !== null ? ` call=${x.callId}` : ""
    }`
  ).join("; ");
}

function conflictLine(e: TokenEvent): string {
  const values = e.conflictFields.map((f) => `${f}=${distinct(e.evidence.map((x) => x.meta[f]))}`);
  return `  ${identityText(e.identity)}: disputed ${e.conflictFields.join(",")} (${
    values.join(" ")
  })`;
}

/**
 * Renders the evidence report: one row per root event (identity, tokens,
 * evidence locations, status), then sections for receipt-only, legacy
 * unresolved, conflicting and incomplete events and for `agent_job` edges.
 * A location names its chat by file name, or by a longer name where two
 * chats share one ({@link chatNames}). What comes from the store (ids,
 * paths, call ids) is escaped to one line.
 *
 * @param report the report
 * @returns the text, starting with an empty line
 */
export function renderEvidence(report: ProvenanceReport): string {
  const names = chatNames(report);
  // One pass over the events (each is rebuilt from the store as it comes).
  const rows: string[][] = [];
  const receiptOnly: string[] = [];
  const legacy: string[] = [];
  const conflicts: string[] = [];
  const incomplete: string[] = [];
  for (const e of report.events) {
    const id = rowId(e, names);
    rows.push([id, rowTokens(e), evidenceText(e, names), STATUS_TEXT[e.status]].map(escapeLine));
    if (e.status === "receipt_only") receiptOnly.push(id);
    if (e.status === "legacy_unresolved") {
      legacy.push(`  ${id} at ${itemLoc(e.evidence[0]!, names)}`);
    }
    if (e.conflict) conflicts.push(conflictLine(e));
    if (e.incompleteEvidence) incomplete.push(`  ${id}`);
  }
  const lines = ["", "Direct inference events", "=".repeat(23), ...table(rows)];
  const section = (title: string, body: string[]) => {
    if (body.length > 0) lines.push("", title, ...body);
  };
  if (receiptOnly.length > 0) {
    lines.push("", `Receipt-only events (no saved child log): ${receiptOnly.join(", ")}`);
  }
  section("Legacy unresolved events (no inference_id; one per receipt, may overcount):", legacy);
  section(
    "Identity conflicts (counted once from canonical evidence; totals containing these are NOT authoritative):",
    conflicts,
  );
  section("Incomplete evidence (one copy lacks provider_response_id; no conflict):", incomplete);
  section(
    "Job projection references (no direct tokens):",
    report.edges.filter((e) => e.relation === "agent_job" && e.detail !== null).map((e) =>
      `  job=${e.to.slice("job:".length)} at ${loc(e.detail!.evidenceAddress, names)} call=${
        e.detail!.callId ?? "?"
      } tool=${e.detail!.toolName ?? "?"} (delegated_result edge)`
    ),
  );
  return lines.map(escapeLine).join("\n") + "\n";
}

/**
 * The stderr line of a warning: receipt problems and identity conflicts get
 * their own forms, control lines not followed their message, everything else is `Incomplete provenance at <kind>
 * <path> (<relation|root>): <message>`; control characters escaped.
 *
 * @param w a report warning
 * @returns one line (no newline)
 */
export function warningLine(w: ReportWarning): string {
  return escapeLine(rawWarningLine(w));
}

function rawWarningLine(w: ReportWarning): string {
  // names its file and lines itself; the walk is not incomplete
  if (w.code === "control_jobs_not_followed") return w.message;
  if (w.code === "identity_conflict") {
    const c = w.reference as { identity: TokenEvent["identity"]; fields: string[] };
    return `identity conflict: ${identityText(c.identity)} disagrees on ${c.fields.join(",")}`;
  }
  if (w.reason !== undefined) {
    const p = w.reference as ReceiptProblem;
    return `agent_meta receipt: ${p.reason} in ${p.source} at ${
      JSON.stringify(p.evidenceAddress ?? p.outputAddress)
    } call=${p.callId ?? "?"} - ${p.detail}${receiptReferenceSuffix(p)}`;
  }
  const path = w.node === null ? "?" : w.node.slice(w.node.indexOf(":") + 1);
  return `Incomplete provenance at ${w.kind} ${path} (${w.relation ?? "root"}): ${w.message}`;
}

/**
 * The distinct warning lines of a report, in order.
 *
 * @param report the report
 * @returns lines (no newlines)
 */
export function warningLines(report: ProvenanceReport): string[] {
  return [...new Set(report.warnings.map(warningLine))];
}
