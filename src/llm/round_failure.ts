/**
 * What a round met besides its reply, for the inference cache (offline
 * replay, R121): the retries of its query, and the provider failure that
 * ended it. A round's entry records the retries (a replay tells them again,
 * so the notes a nested ask leaves in its job's `.info` are written alike),
 * and a round whose query failed for good is recorded as a failure entry,
 * which only an offline replay plays: the messages the failure kept, then
 * the same error thrown, so the same tool output, log and notes follow.
 * Everything recorded is text the run showed, its credentials masked.
 *
 * @module
 */
import type { Message } from "../chat/types.ts";
import { isScoutError, ScoutError, type ScoutErrorCode } from "../errors.ts";
import { redactSecretsIn } from "../util/secrets.ts";
import type {
  AskEvent,
  RecordedError,
  RecordedFailure,
  RecordedRound,
  RetryNote,
  RoundState,
} from "./ask_loop_types.ts";

/**
 * `text` as the cache may hold it: the credentials of its urls, the ask's
 * own key (when it is not too short to be told from a word) and
 * header-shaped credentials masked ({@link redactSecretsIn}). (Not every
 * key-like token: a provider's message shows a key masked already,
 * `sk-proj-****abcd`, and text changed here would reach the model changed,
 * as the replayed failure's tool output.)
 */
function scrub(text: string, key: string | undefined): string {
  return redactSecretsIn(text, [key]);
}

/**
 * The note of a retry, for the round's record.
 *
 * @param info the retry (`withRetries`' `onRetry`)
 * @param key the ask's key (masked in the text)
 * @returns the note
 */
export function retryNote(
  info: { attempt: number; delayMs: number; error: unknown },
  key?: string,
): RetryNote {
  const why = info.error instanceof Error ? info.error.message : String(info.error);
  return { attempt: info.attempt, delayMs: info.delayMs, error: scrub(why, key) };
}

/**
 * Tells the retries a recorded round met again, in order, as `retry` events
 * marked `replayed` (their errors carry the recorded messages). Nothing
 * waits: the delays are told as they were.
 *
 * @param notes the recorded retries
 * @param onEvent the ask's progress hook
 */
export function replayRetries(
  notes: readonly RetryNote[] | undefined,
  onEvent: ((e: AskEvent) => void) | undefined,
): void {
  for (const n of notes ?? []) {
    const error = new Error(n.error);
    onEvent?.({ type: "retry", attempt: n.attempt, delayMs: n.delayMs, error, replayed: true });
  }
}

/** Fields of an error that are not recorded: set later, or not plain data. */
const NOT_RECORDED = new Set(["name", "code", "message", "stack", "cause", "messages"]);

function recordedError(e: ScoutError, key: string | undefined): RecordedError {
  const fields: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(e)) {
    if (NOT_RECORDED.has(k) || k === "snapshotPath" || k === "snapshotName") continue;
    if (typeof v === "string") fields[k] = scrub(v, key);
    else if (typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v))) fields[k] = v;
  }
  return { code: e.code, message: scrub(e.message, key), fields };
}

/** The failed rounds whose errors are passing up, by error: what their entries record. */
const failedRounds = new WeakMap<object, { state: RoundState; failed: RecordedFailure }>();

/**
 * Notes that a round's query failed for good with `e`, for its failure
 * entry: a provider failure only (a `ScoutError` of the query or of its
 * reply's processing), never the ask being aborted.
 *
 * @param e the error
 * @param state the round's state (whose entry may record it)
 * @param kept what the failed round added to the ask's messages, and its retries
 * @param ask the ask's key and abort signal
 */
export function noteFailedRound(
  e: unknown,
  state: RoundState,
  kept: { messages: Message[]; retries: RetryNote[] },
  ask: { key?: string; signal?: AbortSignal | undefined },
): void {
  if (!isScoutError(e) || (e.phase !== "query" && e.phase !== "process_response")) return;
  if (ask.signal?.aborted) return;
  const failed: RecordedFailure = {
    failure: recordedError(e, ask.key),
    messages: kept.messages,
    ...(kept.retries.length ? { retries: kept.retries } : {}),
  };
  failedRounds.set(e, { state, failed });
}

/**
 * The failure a round noted ({@link noteFailedRound}) for the error that
 * ended it, or null (another round's, or not a provider failure).
 *
 * @param e what the round threw
 * @param state the round's state
 * @returns the failure to record, or null
 */
export function failedRoundOf(e: unknown, state: RoundState): RecordedFailure | null {
  const noted = typeof e === "object" && e !== null ? failedRounds.get(e) : undefined;
  return noted?.state === state ? noted.failed : null;
}

/**
 * Whether a recorded round is a failure.
 *
 * @param r the recorded round
 * @returns true for a {@link RecordedFailure}
 */
export function isRecordedFailure(r: RecordedRound | RecordedFailure): r is RecordedFailure {
  return "failure" in r;
}

/**
 * Plays a recorded failure (offline replay): its retries told, the messages
 * it kept added to `out`, then its error thrown again — a `ScoutError` of the
 * recorded code, message and fields, its snapshot to be written under the
 * recorded name (`snapshotName`).
 *
 * @param recorded the failure
 * @param onEvent the ask's progress hook
 * @param out the ask's messages so far
 * @throws the recorded error, always
 */
export function replayFailure(
  recorded: RecordedFailure,
  onEvent: ((e: AskEvent) => void) | undefined,
  out: Message[],
): never {
  replayRetries(recorded.retries, onEvent);
  for (const m of recorded.messages) out.push(m);
  const { code, message, fields, snapshot } = recorded.failure;
  throw new ScoutError(code as ScoutErrorCode, message, {
    ...fields,
    ...(snapshot !== undefined ? { snapshotName: snapshot } : {}),
  });
}
