/**
 * Receipt problems (`provenance.md` §8.3): their messages, and the check of
 * one `agent_meta` entry. Re-exported by `receipts.ts`.
 *
 * @module
 */
import { type MetaRecord, parseMeta } from "./meta.ts";
import type { ReceiptProblem, ReceiptReason } from "./receipts_types.ts";
import { typeName } from "./type_name.ts";
import { wellFormed } from "../util/code_points.ts";

function isEmptyRecord(r: Record<string, unknown>): boolean {
  for (const _ in r) return false;
  return true;
}

/**
 * The reference a receipt problem names, as the text its messages end with
 * (` reference <ref>`): the job reference when there is one, else the raw
 * entry (for `not_an_array` the whole `agent_meta` value), as Ruby's
 * `reference || raw_entry`. Strings are printed as they are, other scalars as
 * text, objects and arrays as JSON (Ruby prints `inspect`); `null`, `false`
 * and an absent entry add nothing.
 *
 * @param p the problem
 * @returns ` reference <ref>` or the empty string
 *
 * @example
 * ```ts
 * import { receiptReferenceSuffix } from "./receipts_problem.ts";
 * receiptReferenceSuffix({ reference: null, rawEntry: "oops" }); // " reference oops"
 * ```
 */
export function receiptReferenceSuffix(
  p: Pick<ReceiptProblem, "reference" | "rawEntry">,
): string {
  const ref: unknown = p.reference ?? p.rawEntry;
  if (ref === null || ref === undefined || ref === false) return "";
  const text = typeof ref === "string"
    ? ref
    : typeof ref === "object"
    ? JSON.stringify(ref)
    : String(ref);
  return ` reference ${text}`;
}

/**
 * The one-line message of a receipt problem:
 * `agent_meta receipt <reason> in chat <path> at output <address> (call <id>, tool <name>)[ reference <ref>]`,
 * where `<ref>` is the job reference or else the raw entry ({@link receiptReferenceSuffix}).
 *
 * @param p the problem (message fields ignored)
 * @returns the message
 */
export function receiptProblemMessage(
  p: Omit<ReceiptProblem, "message" | "detail">,
): string {
  return `agent_meta receipt ${p.reason} in chat ${p.source ?? "(unsaved)"} at output ${
    JSON.stringify(p.outputAddress)
  } (call ${p.callId ?? "?"}, tool ${p.toolName ?? "?"})${receiptReferenceSuffix(p)}`;
}

/**
 * Builds a {@link ReceiptProblem} with its message.
 *
 * @param fields everything but `message`
 * @returns the problem
 */
export function receiptProblem(fields: Omit<ReceiptProblem, "message">): ReceiptProblem {
  return { ...fields, message: receiptProblemMessage(fields) };
}

/** The outcome of {@link checkReceiptEntry}: a parsed meta entry, or why it was rejected. */
export type ReceiptEntryCheck =
  | { ok: true; meta: MetaRecord; content: string }
  | { ok: false; reason: ReceiptReason; detail: string };

/**
 * Checks entry `i` of an `agent_meta` array (`provenance.md` §8.2): an object
 * with role `meta` and string content holding at least one `key=value` pair.
 *
 * @param entry the raw entry
 * @param i its index in the array
 * @returns the parsed meta and content, or the problem's reason and detail
 */
export function checkReceiptEntry(entry: unknown, i: number): ReceiptEntryCheck {
  if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
    return {
      ok: false,
      reason: "not_a_hash",
      detail: `entry ${i} is ${typeName(entry)}, not an object`,
    };
  }
  const e = entry as Record<string, unknown>;
  if (String(e.role) !== "meta") {
    return {
      ok: false,
      reason: "invalid_role",
      detail: `entry ${i} has role ${JSON.stringify(String(e.role))}, not "meta"`,
    };
  }
  if (typeof e.content !== "string") {
    return {
      ok: false,
      reason: "invalid_content",
      detail: `entry ${i} has ${typeName(e.content)} content, not a string`,
    };
  }
  const content = wellFormed(e.content); // (R99-2: a lone "\ud800" in the output's JSON)
  const meta = parseMeta(content);
  if (isEmptyRecord(meta)) {
    return {
      ok: false,
      reason: "unparseable_meta",
      detail: `entry ${i} has no key=value pairs: ${JSON.stringify(content)}`,
    };
  }
  return { ok: true, meta, content };
}
