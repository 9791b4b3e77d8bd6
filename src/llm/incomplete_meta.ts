/**
 * The meta record of an attempt that did not complete (`inference.md` notes
 * §3, [TS-FIX]): built like any other (its own `inference_id`, `timestamp`,
 * `_c` totals, the token keys reported before the failure) plus
 * `incomplete=true` and `reason=interrupted|timeout|stream_cut|error`. The
 * loop writes one for a reply cut short for good, and one for each retried
 * attempt that reported usage (R93-2): those tokens were billed.
 *
 * @module
 */
import type { MetaRecord } from "../chat/meta.ts";
import { parseMeta, serializeMeta } from "../chat/meta.ts";
import type { Message } from "../chat/types.ts";
import { isScoutError } from "../errors.ts";
import type { LoopInput } from "./ask_loop_types.ts";
import { nextMeta } from "./meta_record.ts";

/**
 * Why a reply is incomplete, for the `reason` of its meta record.
 *
 * @param e the failure
 * @param signal the ask's abort signal
 * @returns `interrupted`, `timeout`, `stream_cut` or `error`
 */
export function incompleteReason(e: unknown, signal?: AbortSignal): string {
  if (signal?.aborted) return "interrupted";
  if (isScoutError(e, "timeout")) return "timeout";
  if (isScoutError(e) && e.streamCut === true) return "stream_cut";
  return "error";
}

/**
 * The meta message of an attempt that failed with `e`.
 *
 * @param e the failure
 * @param usage the usage reported before it (none: `{}`)
 * @param previous the meta the totals go on from
 * @param input the loop input (session, ids, clock, who)
 * @returns the `meta` message
 */
export function incompleteMeta(
  e: unknown,
  usage: unknown,
  previous: MetaRecord,
  input: LoopInput,
): Message {
  const meta = nextMeta({
    usage: usage ?? {},
    previous,
    session: input.session,
    inferenceId: input.newId(),
    timestamp: input.now(),
    ...(input.who ? { who: input.who } : {}),
  });
  meta.incomplete = "true";
  meta.reason = incompleteReason(e, input.signal);
  return { role: "meta", content: serializeMeta(meta) };
}

/**
 * The meta the next record of a round goes on from: the last of the round's
 * retried attempts' records, else `fallback` (as written: what a replay reads back).
 *
 * @param retried the round's retried attempts' meta messages
 * @param fallback the meta before them
 * @returns the meta
 */
export function metaAfter(retried: readonly Message[], fallback: MetaRecord): MetaRecord {
  const last = retried.at(-1);
  return last ? parseMeta(String(last.content)) : fallback;
}
