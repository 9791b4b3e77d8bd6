/**
 * Running the specialists a model turn asked for (`agents.md` §3.2, §7.7,
 * §7.8): the tool loop hands the agents its tools returned to
 * {@link specialistRunner}'s runner, which runs each one in-process with
 * `chat` — calls on different specialists in parallel (at most `ASK_AGENTS`,
 * default 3), calls on the same specialist (same conversation key) one after
 * the other in call order — and returns the answers with their receipts (the
 * `meta` messages of each run, `agent_meta`).
 *
 * @module
 */
import { contentObject } from "../chat/tool_calls.ts";
import type { Message } from "../chat/types.ts";
import { isReplayMiss } from "../llm/ask_cache.ts";
import { failureMessages } from "../llm/loop.ts";
import type { SpecialistResult, SpecialistRunner } from "../tools/agent_results.ts";
import { chat, current, start } from "./agent.ts";
import { askPlace, failureRecord, noteFailure } from "./ask_notes.ts";
import { isSpecialistCall as isCall, specialistOf } from "./specialist_call.ts";
import type { Agent } from "./types.ts";

export { SPECIALIST_CALL, specialistCall } from "./specialist_call.ts";
export type { SpecialistCall } from "./specialist_call.ts";

/**
 * The receipts of a run: its `meta` messages (never added to the caller's
 * chat), each followed by the receipts its tool outputs carry — the
 * inferences of the specialists it asked in turn, at any depth. Those live
 * only in the specialist's own chat, which nothing saves outside a chat task's
 * logs; provenance counts an inference once however many receipts name it.
 *
 * @param messages what the specialist's `chat` produced
 * @returns the meta messages
 */
export function receipts(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  for (const m of messages) {
    if (m.role === "meta") out.push({ ...m });
    else if (m.role === "function_call_output") out.push(...nestedReceipts(m));
  }
  return out;
}

function nestedReceipts(output: Message): Message[] {
  const held = contentObject(output.content)?.agent_meta;
  if (!Array.isArray(held)) return [];
  return held.filter((r): r is Message =>
    typeof r === "object" && r !== null && r.role === "meta" && typeof r.content === "string"
  ).map((r) => ({ role: "meta", content: r.content }));
}

async function runOne(item: object): Promise<SpecialistResult> {
  const agent = specialistOf(item);
  // a hand-off names its conversation when it runs (after a restart, a new one)
  const conversation = isCall(item) ? item.begin?.() ?? item.conversation : undefined;
  const named = conversation !== undefined ? { conversation } : {};
  const place = askPlace(agent);
  try {
    if (isCall(item)) {
      if (item.restart) start(agent);
      current(agent).push({ role: "user", content: item.prompt });
    }
    // its cache entries are settled by the caller's ask, once the caller's next request is out
    const r = await chat(agent, { stream: false, deferCacheWrites: true });
    const meta = r.job ? [{ role: "meta", content: `job=${jobRef(r.job)}` }] : receipts(r.messages);
    return { content: r.text, agent_meta: meta, ...named };
  } catch (e) {
    // an offline replay miss ends the run: never an answer the caller's model sees
    if (isReplayMiss(e)) throw e;
    // what it did and paid for before failing stays in the evidence: in its conversation
    // (so its log shows its calls, and the logs of the specialists it asked have a caller),
    // and as receipts (its failed job, on the task route)
    const produced = failureMessages(e);
    // …and the user learns of it: its log ends with the failure, and a warning names it,
    // its caller, its job and its snapshot (its caller's model gets none of these: R106-2)
    current(agent).push(...produced, failureRecord(e));
    noteFailure(place, agent.runtime.warn, e);
    const meta = receipts(produced);
    return { content: "", error: e, ...(meta.length ? { agent_meta: meta } : {}), ...named };
  }
}

function jobRef(job: unknown): string {
  const j = job as { path?: string; shortPath?: string; name?: string };
  return j.shortPath ?? j.path ?? j.name ?? String(job);
}

/**
 * The runner the agent layer passes to the tool loop (`ask`'s
 * `runSpecialists`).
 *
 * @param opts `limit`: how many specialists run at once (default
 *   `ASK_AGENTS` from `env`, else 3)
 * @returns the runner
 *
 * @example
 * ```ts
 * import { specialistRunner } from "./specialists.ts";
 * const run = specialistRunner({ limit: 2 });
 * await run([]); // []
 * ```
 */
export function specialistRunner(
  opts: { limit?: number; env?: Record<string, string | undefined> } = {},
): SpecialistRunner {
  const fromEnv = Number.parseInt(opts.env?.ASK_AGENTS ?? "", 10);
  const limit = Math.max(1, opts.limit ?? (Number.isFinite(fromEnv) ? fromEnv : 3));
  return async (items, ended, started) => {
    // one queue per specialist: its calls run in call order
    const queues = new Map<Agent, number[]>();
    items.forEach((item, i) => {
      const who = specialistOf(item);
      queues.set(who, [...queues.get(who) ?? [], i]);
    });
    const results: SpecialistResult[] = new Array(items.length);
    const groups = [...queues.values()];
    let next = 0;
    const worker = async () => {
      while (next < groups.length) {
        for (const i of groups[next++]!) {
          started?.(i); // its start_timestamp: after its wait in this queue
          results[i] = await runOne(items[i]!);
          ended?.(i); // its output's timestamp: this run's end, not the batch's
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(limit, groups.length) }, worker));
    return results;
  };
}
