/**
 * `total_usage` of `llm ask`/`agent ask --json`: the tokens of the run's own
 * inferences and of every agent it delegated to, each inference once (by
 * `inference_id`, as `llm prov` counts). Receipts' token records count; a
 * receipt naming a job (a specialist that ran through its workflow's `ask`
 * task) counts that job's own inferences (its log's records) and the receipts
 * of what it produced (its result), followed the same way. A job's log also
 * holds the conversation it was given — earlier runs' receipts among it — so
 * receipts are read from results, never from logs.
 *
 * @module
 */
import { join, relative, resolve } from "node:path";
import { loadRaw } from "../chat/load.ts";
import { agentMetaEvidence, type ReceiptProblem, receiptProblem } from "../chat/receipts.ts";
import type { ReceiptEvidence } from "../chat/receipts_types.ts";
import {
  addTokens,
  directEntries,
  emptyTokens,
  isDirectMeta,
  nonEmpty,
  type TokenTotals,
} from "../chat/trace.ts";
import type { Message } from "../chat/types.ts";
import { isScoutError, plainMessage } from "../errors.ts";
import { escapeLine } from "../provenance/one_line.ts";
import { jobRoots } from "../workflow/store.ts";
import { isFile } from "../util/fs.ts";

/**
 * Something `total_usage` could not count (`usage_warnings` in `--json`,
 * with the codes `llm prov` gives the same problems).
 */
export interface UsageWarning {
  /**
   * `chat_unreadable` (a job's log or result exists but cannot be read),
   * `unresolved_job_reference` (a receipt's job is no job file in a jobs
   * root), `receipt_problem` (a malformed receipt entry).
   */
  code: "chat_unreadable" | "unresolved_job_reference" | "receipt_problem";
  /** The unreadable file, or the job result holding the receipt; null for the run's own messages. */
  file: string | null;
  /** One line naming the file or the receipt and what was wrong. */
  message: string;
}

/** What a run used: the totals, and what they leave out. */
export interface RunUsage {
  /** All six keys. */
  totals: TokenTotals;
  /** Evidence that could not be counted, in the order met (empty: nothing left out). */
  warnings: UsageWarning[];
}

/** A chat file's messages; none when it is missing, a warning when it cannot be read. */
async function chatOf(path: string, warnings: UsageWarning[]): Promise<Message[]> {
  if (!isFile(path)) return [];
  try {
    return await loadRaw(path); // a UTF-16 log is unreadable (R133-1)
  } catch (e) {
    if (isScoutError(e, "not_found")) return []; // gone since: nothing to count
    // `Permission denied: "<path>"`…: the message names the file
    warnings.push({ code: "chat_unreadable", file: path, message: plainMessage(e) });
    return [];
  }
}

/** A receipt problem as a warning: the detail first, as `llm prov` says it; on one line. */
function receiptWarning(p: ReceiptProblem): UsageWarning {
  return {
    code: p.reason === "unresolved_job_reference" ? "unresolved_job_reference" : "receipt_problem",
    file: p.source,
    // a raw receipt entry may hold line breaks and terminal controls
    message: escapeLine(`${p.detail}: ${p.message}`),
  };
}

/** The problem of a receipt whose job is no job file in a jobs root. */
function unresolved(r: ReceiptEvidence, ref: string, outside: boolean): ReceiptProblem {
  return receiptProblem({
    reason: "unresolved_job_reference",
    source: r.source,
    outputAddress: r.outputAddress,
    evidenceAddress: r.evidenceAddress,
    callId: r.callId,
    toolName: r.toolName,
    agentMetaIndex: r.agentMetaIndex,
    rawEntry: r.rawMessage,
    reference: ref,
    detail: outside
      ? `job "${ref}" resolves outside every jobs root`
      : `job "${ref}" is no job file in any jobs root`,
  });
}

/**
 * Totals of a run, and the evidence they could not count (unreadable job
 * files, receipts naming no job, malformed receipts).
 *
 * @param own the run's own inference records (its chat's `meta` messages, or its job log's)
 * @param produced what the run produced (its receipts are read)
 * @param where env and cwd, to find the jobs receipts name
 * @returns the totals (all six keys) and the warnings
 */
export async function runTotalUsage(
  own: readonly Message[],
  produced: readonly Message[],
  where: { env: Record<string, string | undefined>; cwd: string },
): Promise<RunUsage> {
  const totals = emptyTokens();
  const warnings: UsageWarning[] = [];
  const seen = new Set<string>();
  const visited = new Set<string>();
  const roots = jobRoots(where);
  const count = (meta: Record<string, unknown>) => {
    if (nonEmpty(meta.inference_id)) {
      const id = String(meta.inference_id);
      if (seen.has(id)) return;
      seen.add(id);
    }
    addTokens(totals, meta);
  };
  const receipts = async (messages: readonly Message[], source: string | null): Promise<void> => {
    const problems: ReceiptProblem[] = [];
    const evidence = agentMetaEvidence(messages, { source, warnings: problems });
    warnings.push(...problems.map(receiptWarning));
    for (const r of evidence) {
      if (isDirectMeta(r.meta)) count(r.meta);
      else if (nonEmpty(r.meta.job)) await job(r, String(r.meta.job));
    }
  };
  const job = async (r: ReceiptEvidence, ref: string): Promise<void> => {
    // a job file in a jobs root (never a path that leaves it); anything else is a warning,
    // as `llm prov` gives
    const inside = roots.map((root) => resolve(root, ref)).filter((p, i) =>
      !relative(roots[i]!, p).startsWith("..")
    );
    const path = inside.find(isFile);
    if (path === undefined) {
      warnings.push(receiptWarning(unresolved(r, ref, inside.length === 0)));
      return;
    }
    if (visited.has(path)) return;
    visited.add(path);
    const logged = await chatOf(join(`${path}.files`, "log", "agent.chat"), warnings);
    const result = await chatOf(path, warnings);
    for (const e of directEntries([logged])) count(e.meta);
    await receipts(result, path);
  };
  for (const e of directEntries([own])) count(e.meta);
  await receipts(produced, null);
  return { totals, warnings };
}
