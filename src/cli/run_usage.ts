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
import { parse } from "../chat/parse.ts";
import { agentMetaEvidence } from "../chat/receipts.ts";
import {
  addTokens,
  directEntries,
  emptyTokens,
  isDirectMeta,
  nonEmpty,
  type TokenTotals,
} from "../chat/trace.ts";
import type { Message } from "../chat/types.ts";
import { jobRoots } from "../workflow/store.ts";
import { isFile, readText } from "../util/fs.ts";

/** A chat file's messages; none when it is missing or unreadable. */
async function chatOf(path: string): Promise<Message[]> {
  return isFile(path) ? parse(await readText(path).catch(() => "")) : [];
}

/**
 * Totals of a run.
 *
 * @param own the run's own inference records (its chat's `meta` messages, or its job log's)
 * @param produced what the run produced (its receipts are read)
 * @param where env and cwd, to find the jobs receipts name
 * @returns all six keys
 */
export async function runTotalUsage(
  own: readonly Message[],
  produced: readonly Message[],
  where: { env: Record<string, string | undefined>; cwd: string },
): Promise<TokenTotals> {
  const totals = emptyTokens();
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
  const receipts = async (messages: readonly Message[]): Promise<void> => {
    for (const r of agentMetaEvidence(messages)) {
      if (isDirectMeta(r.meta)) count(r.meta);
      else if (nonEmpty(r.meta.job)) await job(String(r.meta.job));
    }
  };
  const job = async (ref: string): Promise<void> => {
    // a job file in a jobs root (never a path that leaves it); anything else counts nothing,
    // as `llm prov` warns and goes on
    const path = roots.map((root) => resolve(root, ref)).find((p, i) =>
      !relative(roots[i]!, p).startsWith("..") && isFile(p)
    );
    if (path === undefined || visited.has(path)) return;
    visited.add(path);
    const [logged, result] = await Promise.all([
      chatOf(join(`${path}.files`, "log", "agent.chat")),
      chatOf(path),
    ]);
    for (const e of directEntries([logged])) count(e.meta);
    await receipts(result);
  };
  for (const e of directEntries([own])) count(e.meta);
  await receipts(produced);
  return totals;
}
