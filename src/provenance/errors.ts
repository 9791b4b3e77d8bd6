/**
 * Building {@link ProvenanceError}s (`provenance.md` §2.8): ScoutErrors whose
 * message names the code (or receipt reason), the node path and the reference.
 *
 * @module
 */
import { ScoutError, type ScoutErrorCode } from "../errors.ts";
import type { ReceiptProblem } from "../chat/receipts.ts";
import type { NodeKind, ProvenanceError, Relation } from "./types.ts";

/** What a problem is about. */
export interface ProblemContext {
  /** Kind of the node being expanded. */
  kind: NodeKind;
  /** Its canonical path. */
  nodePath: string;
  /** The relation being followed (null for the root's own read). */
  relation: Relation | null;
  /** The raw reference, path or receipt problem. */
  reference: unknown;
  /** Underlying error. */
  cause?: unknown;
}

/**
 * A traversal problem as a ScoutError with `kind`, `nodePath`, `relation`
 * and `reference` fields.
 *
 * @param code stable code
 * @param message one line naming the code, node and reference
 * @param ctx the node and reference
 * @returns the error
 */
export function provenanceError(
  code: ScoutErrorCode,
  message: string,
  ctx: ProblemContext,
): ProvenanceError {
  const { cause, ...fields } = ctx;
  return new ScoutError(code, message, {
    ...fields,
    file: ctx.nodePath,
    ...(cause === undefined ? {} : { cause }),
  }) as ProvenanceError;
}

/**
 * The error of a receipt problem: code `unresolved_job_reference` for an
 * unresolved receipt job, `receipt_problem` for malformed entries; `reason`
 * and `problem` fields; the message is the problem's.
 *
 * @param problem the receipt problem
 * @param nodePath canonical path of the chat
 * @returns the error
 */
export function receiptError(problem: ReceiptProblem, nodePath: string): ProvenanceError {
  const code = problem.reason === "unresolved_job_reference"
    ? "unresolved_job_reference"
    : "receipt_problem";
  // The detail first, so the message ends with the reference (Ruby's message
  // ends with `reference <ref|raw entry>`).
  const e = provenanceError(code, `${problem.detail}: ${problem.message}`, {
    kind: "chat",
    nodePath,
    relation: "agent_job",
    reference: problem,
  });
  e.reason = problem.reason;
  e.problem = problem;
  return e;
}

/**
 * Why a file operation failed, in a few words (the errno code and message).
 *
 * @param e a thrown value
 * @returns e.g. `EACCES: permission denied`
 */
export function failure(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  const msg = String(err?.message ?? e);
  return err?.code && !msg.startsWith(err.code) ? `${err.code}: ${msg}` : msg;
}
