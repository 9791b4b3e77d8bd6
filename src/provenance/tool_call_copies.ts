/**
 * The tool calls of a walk, each once (R111-4): a call is found once per
 * chat that holds it — the chat a job's answer is projected into, the job's
 * result chat, its log, the history a continued chat sends again — and
 * those copies share their `copyKey` (`chat_tool_calls.ts`), as copies of
 * one inference share their identity in the token views.
 *
 * @module
 */
import type { ProvenanceToolCall } from "./chat_tool_calls.ts";

/** One call and where its copies are among the walk's calls. */
export interface DistinctToolCall {
  /** Position of the copy shown for it (see {@link distinctToolCalls}). */
  shown: number;
  /** Positions of all its copies, in walk order (the shown one among them). */
  copies: number[];
}

/**
 * Groups the walk's calls by their copies, in the order each call is first
 * found. The copy shown for a call is the first whose chat names the agent
 * that made it (a society log, a job's log or result) — a projection into
 * the root session names none — else the first; the walk reads a job's
 * logs before its result chat and a job's `log/agent.chat` before its
 * society's logs, so an inherited history does not move a call to the
 * specialist it was sent to.
 *
 * @param calls the walk's calls (`provenanceToolCalls`)
 * @returns one entry per call
 *
 * @example
 * ```ts ignore
 * import { provenanceToolCalls } from "./tool_calls.ts";
 * import { distinctToolCalls } from "./tool_call_copies.ts";
 * const { calls } = provenanceToolCalls("plan.chat");
 * distinctToolCalls(calls).map((d) => calls[d.shown]!.tool);
 * ```
 */
export function distinctToolCalls(calls: readonly ProvenanceToolCall[]): DistinctToolCall[] {
  const out: DistinctToolCall[] = [];
  const byKey = new Map<string, DistinctToolCall>();
  calls.forEach((c, i) => {
    let d = byKey.get(c.copyKey);
    if (d === undefined) {
      byKey.set(c.copyKey, d = { shown: i, copies: [] });
      out.push(d);
    } else if (calls[d.shown]!.agent.from === "none" && c.agent.from !== "none") d.shown = i;
    d.copies.push(i);
  });
  return out;
}

/**
 * For each of the walk's calls, the position of the copy shown for its call
 * ({@link distinctToolCalls}), or null for that copy itself.
 *
 * @param calls the walk's calls
 * @param distinct their {@link distinctToolCalls}
 * @returns one entry per call
 */
export function copyOf(
  calls: readonly ProvenanceToolCall[],
  distinct: readonly DistinctToolCall[],
): (number | null)[] {
  const out = new Array<number | null>(calls.length).fill(null);
  for (const d of distinct) for (const i of d.copies) if (i !== d.shown) out[i] = d.shown;
  return out;
}
