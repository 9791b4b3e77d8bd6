/**
 * The evidence report (`--evidence`, `provenance.md` §10.6) and the warning
 * lines `prov` prints on stderr.
 *
 * @module
 */
import { basename } from "node:path";
import { type ReceiptProblem, receiptReferenceSuffix } from "../chat/receipts.ts";
import type { EvidenceItem, TokenEvent } from "./evidence.ts";
import { identityText } from "./evidence.ts";
import { padRight } from "./format.ts";
import { escapeLine } from "./one_line.ts";
import type { ProvenanceReport, ReportWarning } from "./report.ts";

function loc(address: unknown): string {
  if (!Array.isArray(address)) return String(address);
  const [source, index, , i] = address as [string, number, string?, number?];
  const at = `${basename(String(source))}:${index}`;
  return address.length === 4 ? `${at}[agent_meta,${i}]` : at;
}

function itemLoc(x: EvidenceItem): string {
  return x.origin === "chat_meta" ? loc(x.metaAddress) : loc(x.evidenceAddress);
}

function rowId(e: TokenEvent): string {
  if (e.identity[0] === "inference_id") return String(e.identity[1]);
  if (e.identity[0] === "receipt") return `receipt=${loc(e.identity[1])}`;
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

function row(a: string, b: string, c: string, d: string): string {
  return `${padRight(a, 26)} ${padRight(b, 36)} ${padRight(c, 56)} ${d}`;
}

function distinct(values: unknown[]): string {
  return [...new Set(values.map((v) => (v === null || v === undefined ? "" : String(v))))].join(
    "|",
  );
}

/**
 * Renders the evidence report: one row per root event (identity, tokens,
 * evidence locations, status), then sections for receipt-only, legacy
 * unresolved, conflicting and incomplete events and for `agent_job` edges.
 * What comes from the store (ids, paths, call ids) is escaped to one line.
 *
 * @param report the report
 * @returns the text, starting with an empty line
 */
export function renderEvidence(report: ProvenanceReport): string {
  const lines = ["", "Direct inference events", "=".repeat(23)];
  // One pass over the events (each is rebuilt from the store as it comes).
  const receiptOnly: string[] = [];
  const legacy: string[] = [];
  const conflicts: string[] = [];
  const incomplete: string[] = [];
  if (report.events.length === 0) lines.push("(none)");
  else lines.push(row("Inference ID", "Tokens", "Evidence", "Status"));
  for (const e of report.events) {
    const evidence = e.evidence.map((x) =>
      `${x.origin} ${itemLoc(x)}${
        x.origin === "agent_meta" && x.callId !== null ? ` call=${x.callId}` : ""
      }`
    ).join("; ");
    lines.push(row(rowId(e), rowTokens(e), evidence, STATUS_TEXT[e.status]));
    if (e.status === "receipt_only") receiptOnly.push(rowId(e));
    if (e.status === "legacy_unresolved") {
      legacy.push(`  ${rowId(e)} at ${itemLoc(e.evidence[0]!)}`);
    }
    if (e.conflict) {
      conflicts.push(
        `  ${identityText(e.identity)}: disputed ${e.conflictFields.join(",")} (${
          e.conflictFields.map((f) => `${f}=${distinct(e.evidence.map((x) => x.meta[f]))}`).join(
            " ",
          )
        })`,
      );
    }
    if (e.incompleteEvidence) incomplete.push(`  ${rowId(e)}`);
  }
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
      `  job=${e.to.slice("job:".length)} at ${loc(e.detail!.evidenceAddress)} call=${
        e.detail!.callId ?? "?"
      } tool=${e.detail!.toolName ?? "?"} (delegated_result edge)`
    ),
  );
  return lines.map(escapeLine).join("\n") + "\n";
}

/**
 * The stderr line of a warning: receipt problems and identity conflicts get
 * their own forms, everything else is `Incomplete provenance at <kind>
 * <path> (<relation|root>): <message>`; control characters escaped.
 *
 * @param w a report warning
 * @returns one line (no newline)
 */
export function warningLine(w: ReportWarning): string {
  return escapeLine(rawWarningLine(w));
}

function rawWarningLine(w: ReportWarning): string {
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
