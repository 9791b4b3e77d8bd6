/**
 * Token accounting over a provenance graph (`provenance.md` §9): one
 * traversal, each chat file analysed once, evidence grouped into events by
 * identity, totals by coverage scope.
 *
 * @module
 */
import { ScoutError } from "../errors.ts";
import type { TokenTotals } from "../chat/trace.ts";
import type { ReceiptProblem } from "../chat/receipts.ts";
import type { JobRef, OnError, ProvenanceError, TraverseOptions } from "./types.ts";
import { walkProvenance } from "./traverse.ts";
import {
  type FileEvidence,
  type IdentityConflict,
  identityConflict,
  sumEvents,
  TOKEN_SCOPES,
  type TokenEvent,
  tokenEvents,
  type TokenScope,
} from "./evidence.ts";

/** A warning collected by {@link provenanceTokenEvents}. */
export type TokenWarning = ReceiptProblem | IdentityConflict;

/** Options of {@link provenanceTokenEvents}. */
export interface TokenEventOptions extends TraverseOptions {
  /**
   * Collects receipt problems and identity conflicts. Without it the
   * traversal is strict (or uses `onError`) and conflicts are only flagged.
   */
  warnings?: TokenWarning[];
  /** Throw `identity_conflict` on the first conflicting event. */
  strict?: boolean;
}

/**
 * A receipt problem's deduplication key: reason, output address, entry index.
 *
 * @param p a problem
 * @returns the key
 */
export function problemKey(p: ReceiptProblem): string {
  return `${p.reason}\0${JSON.stringify(p.outputAddress)}\0${p.agentMetaIndex}`;
}

/**
 * The result of one evidence-collecting traversal: files analysed in
 * first-visit order and the events over them.
 */
export interface EvidenceRun {
  /** Each chat file's evidence, in first-visit order (unreadable ones absent). */
  files: FileEvidence[];
  /** The events. */
  events: TokenEvent[];
}

/**
 * Runs one traversal collecting token evidence, routing problems as
 * `provenance.md` §9 step 7 says.
 *
 * @param root the root
 * @param o options
 * @returns files and events
 */
export function collectEvidence(root: string | JobRef, o: TokenEventOptions = {}): EvidenceRun {
  const files: FileEvidence[] = [];
  const reported = new Set<string>();
  const warnings = o.warnings;
  let onError: OnError | undefined = o.onError;
  if (warnings !== undefined) {
    onError = (error, kind, node, relation, reference) => {
      const problem = (error as ProvenanceError & { problem?: ReceiptProblem }).problem;
      if (problem !== undefined) {
        const key = problemKey(problem);
        if (!reported.has(key)) {
          reported.add(key);
          warnings.push(problem);
        }
        o.onError?.(error, kind, node, relation, reference);
      } else if (o.onError !== undefined) {
        o.onError(error, kind, node, relation, reference);
      } else {
        throw error;
      }
    };
  }
  const run = walkProvenance(root, {
    ...o,
    onError,
    onFacts: (facts) => files.push(facts.evidence),
  });
  for (const _ of run) { /* records are not needed here */ }
  if (warnings !== undefined) {
    for (const f of files) {
      for (const p of f.receiptProblems) {
        const key = problemKey(p);
        if (reported.has(key)) continue;
        reported.add(key);
        warnings.push(p);
      }
    }
  }
  const events = tokenEvents(files);
  for (const e of events) {
    if (!e.conflict) continue;
    const c = identityConflict(e);
    if (o.strict) {
      throw new ScoutError("identity_conflict", c.message, {
        identity: c.identity,
        fields: c.fields,
        values: c.values,
      });
    }
    warnings?.push(c);
  }
  return { files, events };
}

/**
 * The token events of everything reachable from `root` (`provenance.md` §9):
 * direct chat metas and receipt entries grouped by identity, each counted
 * once from its canonical evidence.
 *
 * @param root chat path, job path (with `rootType: "job"`) or a JobRef
 * @param o traversal options plus `warnings` and `strict`
 * @returns events, ordered by first discovery
 * @throws ScoutError `identity_conflict` (strict), or a traversal problem without `onError`
 *
 * @example
 * ```ts ignore
 * import { provenanceTokenEvents } from "./tokens.ts";
 * const warnings = [];
 * const events = provenanceTokenEvents("session.chat", { warnings });
 * ```
 */
export function provenanceTokenEvents(
  root: string | JobRef,
  o: TokenEventOptions = {},
): TokenEvent[] {
  return collectEvidence(root, o).events;
}

/** Conflict counts reported by {@link provenanceTokenTotals}. */
export interface ConflictCounts {
  /** Events whose copies disagree. */
  events: number;
  /** Events with incomplete provider evidence. */
  incompleteEvidenceEvents: number;
  /** True when no event conflicts (totals are exact). */
  authoritative: boolean;
}

/** Options of {@link provenanceTokenTotals}. */
export interface TokenTotalsOptions extends TokenEventOptions {
  /** Which events to sum (default `deduplicated_total`). */
  scope?: TokenScope;
  /** Receives conflict counts. */
  conflicts?: Partial<ConflictCounts>;
}

/**
 * Token totals of everything reachable from `root`, for one coverage scope:
 * `deduplicated_total` (the cost), `chat_evidence`, `receipt_evidence`,
 * `receipt_only`. Scopes describe coverage and overlap: never add them.
 *
 * @param root chat path, job path (with `rootType: "job"`) or a JobRef
 * @param o scope, conflicts, and the options of {@link provenanceTokenEvents}
 * @returns all six token keys
 * @throws ScoutError `invalid_scope` for an unknown scope
 *
 * @example
 * ```ts ignore
 * import { provenanceTokenTotals } from "./tokens.ts";
 * provenanceTokenTotals("session.chat", { scope: "receipt_only", onError: () => {} }).tt;
 * ```
 */
export function provenanceTokenTotals(
  root: string | JobRef,
  o: TokenTotalsOptions = {},
): TokenTotals {
  const scope = o.scope ?? "deduplicated_total";
  if (!(TOKEN_SCOPES as readonly string[]).includes(scope)) {
    throw new ScoutError(
      "invalid_scope",
      `Unknown token scope "${scope}" (known: ${TOKEN_SCOPES.join(", ")})`,
      { scope },
    );
  }
  const events = provenanceTokenEvents(root, o);
  if (o.conflicts !== undefined) {
    const n = events.filter((e) => e.conflict).length;
    o.conflicts.events = n;
    o.conflicts.incompleteEvidenceEvents = events.filter((e) => e.incompleteEvidence).length;
    o.conflicts.authoritative = n === 0;
  }
  return sumEvents(events, scope);
}

/**
 * `tokens(root)`: the short name `provenance.md` §9 gives
 * {@link provenanceTokenTotals} (the same function: same options, scopes and
 * errors).
 *
 * @example
 * ```ts ignore
 * import { tokens } from "./tokens.ts";
 * tokens("session.chat").tt; // the run's deduplicated total
 * ```
 */
export const tokens: typeof provenanceTokenTotals = provenanceTokenTotals;
