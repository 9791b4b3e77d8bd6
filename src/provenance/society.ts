/**
 * Nested societies in a job's logs (`agents.md` §4.4, §7.7): a specialist
 * that delegated in turn has its own society logged below its log,
 * `log/society/<A>/<conv>/society/<B>/<conv2>.chat` under the caller's
 * `log/society/<A>/<conv>.chat`; the society of an agent logged in a
 * sub-directory (`log/<subdir>/agent.chat`) is `log/<subdir>/society/…`.
 * The traversal reaches every log from the job (`provenance.md` §1.2); the
 * report shows and totals a nested log under its caller's log.
 *
 * @module
 */
import type { NodeRef } from "./types.ts";

/** A path below `log/` ending in `<X>/society/<Agent>/<conversation>.chat`: X is the caller's. */
const NESTED = /^(.+)\/society\/[^/]+\/[^/]+\.chat$/;
/** X itself names a specialist's log (`…society/<A>/<conv>`), so its log is `X.chat`. */
const SPECIALIST = /(?:^|\/)society\/[^/]+\/[^/]+$/;

/**
 * The log a nested society log belongs to: `X.chat` for a specialist's
 * society (`X` = `…/society/<A>/<conv>`), else `X/agent.chat`.
 *
 * @param rel a log's path below its job's `log/` directory
 * @returns the caller's log path below `log/`, or null for a top-level log
 *
 * @example
 * ```ts
 * import { callerLog } from "./society.ts";
 * callerLog("society/Researcher/facts/society/Librarian/_oneshot-1.chat");
 * // "society/Researcher/facts.chat"
 * callerLog("round-1/society/Critic/default.chat"); // "round-1/agent.chat"
 * callerLog("society/Critic/default.chat"); // null
 * ```
 */
export function callerLog(rel: string): string | null {
  const x = NESTED.exec(rel)?.[1];
  if (x === undefined) return null;
  return SPECIALIST.test(x) ? `${x}.chat` : `${x}/agent.chat`;
}

/**
 * For each log that belongs to another log of the same job (a nested
 * society), that log's node index.
 *
 * @param refs nodes by index
 * @param logsOf the log chats of each job (node indices)
 * @returns nested log index → caller log index
 */
export function societyCallers(
  refs: readonly NodeRef[],
  logsOf: ReadonlyMap<number, readonly number[]>,
): Map<number, number> {
  const out = new Map<number, number>();
  for (const [job, logs] of logsOf) {
    const prefix = refs[job]!.path + ".files/log/";
    const byRel = new Map<string, number>();
    for (const i of logs) {
      const path = refs[i]!.path;
      if (path.startsWith(prefix)) byRel.set(path.slice(prefix.length), i);
    }
    for (const [rel, i] of byRel) {
      const caller = callerLog(rel);
      const c = caller === null ? undefined : byRel.get(caller);
      if (c !== undefined && c !== i) out.set(i, c);
    }
  }
  return out;
}
