/**
 * What the views of `llm prov` say when the walk is incomplete — when the
 * JSON would say `complete: false`: the totals then miss what could not be
 * followed or read, and the warnings on stderr (hidden by `--log 6`) are
 * easy to overlook. The text views (tree, `--flow`, `--by`) end with the
 * line; the graphs carry the text (R127-1: the DOT's graph label and
 * comment, Mermaid's title, the page's header).
 *
 * @module
 */
import type { ReportWarning } from "./report_types.ts";

/** What kind of problem each warning code is (a receipt problem otherwise). */
const KINDS: Record<string, string> = {
  unresolved_job_reference: "unresolved reference",
  missing_dependency: "unresolved reference",
  chat_unreadable: "unreadable file",
  job_info_unreadable: "unreadable file",
  log_dir_unreadable: "unreadable file",
  log_chat_skipped: "unreadable file",
};

/**
 * `incomplete: 2 unresolved references, 1 unreadable file — see the
 * warnings` for an incomplete walk, else null. Identity conflicts do not
 * make a walk incomplete (they make totals best-effort: the coverage lines
 * say so), nor do control lines whose jobs are not followed (R93-3).
 *
 * @param report whether the walk is complete, and its warnings
 * @returns the text, or null
 *
 * @example
 * ```ts
 * import { incompleteText } from "./incomplete.ts";
 * const w = { code: "missing_dependency", message: "", kind: null, node: null, relation: null, reference: null };
 * incompleteText({ complete: false, warnings: [w] }); // "incomplete: 1 unresolved reference — see the warnings"
 * ```
 */
export function incompleteText(
  report: { complete: boolean; warnings: readonly ReportWarning[] },
): string | null {
  if (report.complete) return null;
  const counts = new Map<string, number>();
  for (const w of report.warnings) {
    if (w.code === "identity_conflict" || w.code === "control_jobs_not_followed") continue;
    const kind = KINDS[w.code] ?? "malformed receipt";
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  const parts = [...counts].map(([kind, n]) => `${n} ${kind}${n === 1 ? "" : "s"}`);
  return parts.length === 0
    ? "incomplete — see the warnings"
    : `incomplete: ${parts.join(", ")} — see the warnings`;
}

/**
 * The line the text views end with: `(<incompleteText>)`, else null.
 *
 * @param report whether the walk is complete, and its warnings
 * @returns the line (without a newline), or null
 */
export function incompleteLine(
  report: { complete: boolean; warnings: readonly ReportWarning[] },
): string | null {
  const text = incompleteText(report);
  return text === null ? null : `(${text})`;
}
