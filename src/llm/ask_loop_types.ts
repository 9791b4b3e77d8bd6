/**
 * The data of the tool loop: its input, its events, and what one round
 * records and replays (the inference cache stores {@link RecordedRound}s).
 *
 * @module
 */
import type { MetaRecord } from "../chat/meta.ts";
import type { Message } from "../chat/types.ts";
import type { SpecialistRunner } from "../tools/agent_results.ts";
import type { ToolFunction, ToolRegistry } from "../tools/types.ts";
import type { Session } from "./meta_record.ts";
import type { ProviderParams } from "./params.ts";
import type { Backend, ClientSettings, ReplyItem } from "./types.ts";
import type { MetaWho } from "./meta_record.ts";

/** Progress of an ask, for streaming and logs. */
export type AskEvent =
  | { type: "text"; delta: string }
  | { type: "round"; round: number }
  | { type: "response"; round: number; streamed: boolean }
  /** A retry of the query (`replayed`: one a recorded round met, told again as it replays). */
  | { type: "retry"; attempt: number; delayMs: number; error: unknown; replayed?: true }
  | { type: "tool"; name: string; id: string }
  | { type: "cache"; hit: boolean; key: string }
  /**
   * A live round's meta record arrived: `produced` is what the ask produced so far (a copy),
   * ending with the reply that meta paid for — its texts, and its local calls without outputs
   * (their tools have not run yet).
   */
  | { type: "meta"; round: number; produced: Message[] };

/** What a round records: enough to replay it. */
export interface RecordedRound {
  /** The reply's items (texts, calls with their ids, messages). */
  items: ReplyItem[];
  /** The provider's response id (threading). */
  id?: string;
  /** The round's meta message (null when meta records are off). */
  meta: Message | null;
  /**
   * The `incomplete=true` meta messages of the round's retried attempts that
   * reported usage, oldest first, written before `meta` (absent: none).
   */
  retried?: Message[];
  /** `[start_timestamp, timestamp]` of each `function_call_output`, in order. */
  stamps: ([string, string] | null)[];
  /** The retries its query met, oldest first (absent: none): told again when it replays. */
  retries?: RetryNote[];
}

/**
 * A retry a round's query met: the retry number, the delay waited and the
 * failed attempt's error message as it was told (where the query went, no
 * credentials).
 */
export interface RetryNote {
  /** The attempts made before it (1 for the first retry). */
  attempt: number;
  /** The delay before the next attempt, ms. */
  delayMs: number;
  /** The failed attempt's error message. */
  error: string;
}

/**
 * The provider failure that ended a round (its retries used up, or not
 * retryable), as the run saw it: a `ScoutError`'s code, message (where the
 * query went included, no credentials) and its other plain fields (`status`,
 * `phase`, `backend`, `baseMessage`, `attempts`…), and the name of its
 * failure snapshot.
 */
export interface RecordedError {
  /** The error's code (`provider_http`, `provider_response`, `timeout`…). */
  code: string;
  /** Its message. */
  message: string;
  /** Its other fields with a string, number or boolean value. */
  fields: Record<string, string | number | boolean>;
  /** The base name of its failure snapshot under `$SCOUT_HOME/tmp/ask`. */
  snapshot?: string;
}

/**
 * A round whose query failed for good, as recorded: an offline replay
 * (only) plays the failure again — its retries told, the messages it kept
 * (the records of billed attempts, a partial answer) added, the same error
 * thrown.
 */
export interface RecordedFailure {
  /** The error. */
  failure: RecordedError;
  /** What the failed round added to the ask's messages. */
  messages: Message[];
  /** The retries its query met before it failed (absent: none). */
  retries?: RetryNote[];
}

/** Where the loop stands when a round starts (what the round's request is made of). */
export interface RoundState {
  /** 1-based round number. */
  round: number;
  /** The messages sent (before the prompt strategies). */
  history: Message[];
  /** The current meta (totals accumulate from it). */
  meta: MetaRecord;
  /** Threading id, if any. */
  previousResponseId?: string;
  /** Provider parameters of this round (`tool_choice` only in round 1). */
  params: Record<string, unknown>;
}

/** What playing a round gives the loop. */
export interface PlayedRound {
  /** What to store. */
  record: RecordedRound;
  /** The meta after the round. */
  meta: MetaRecord;
  /** The round's messages after its meta. */
  messages: Message[];
  /** Whether the reply ended with a local tool call (the loop goes on). */
  lastIsLocalCall: boolean;
}

/**
 * Plays a round: the recorded one, or (null) a live query. A live reply
 * that is the round's whole record (no local tool calls) is handed to `inHand`
 * as soon as it is in: what to store should the process exit before the
 * round returns (its answer paid for, `cache_lock.ts` `Keep`).
 */
export type PlayRound = (
  recorded: RecordedRound | RecordedFailure | null,
  inHand?: (record: RecordedRound) => void,
) => Promise<PlayedRound>;

/**
 * Where rounds come from: the inference cache wraps each round, handing
 * `play` the recorded round on a hit (null otherwise) and storing what a live
 * round recorded.
 */
export interface RoundSource {
  /** Runs one round through the source. */
  round(state: RoundState, play: PlayRound): Promise<PlayedRound>;
}

/** Everything one loop needs. */
export interface LoopInput {
  /** Messages after meta removal and threading trim. */
  messages: Message[];
  /** Backend name (errors) and implementation. */
  backendName: string;
  /** Who answers, written into every meta record (`model=`, `backend=`, `endpoint=`). */
  who?: MetaWho;
  backend: Backend;
  /** Client settings plus retries (and the longest `Retry-After` waited for, ms). */
  settings: ClientSettings & { maxRetries: number; maxRetryAfterMs?: number };
  /** Tools. */
  registry: ToolRegistry;
  /** Provider parameters (tool_choice applies to round 1 only). */
  params: ProviderParams;
  /** The chat's current meta (totals accumulate from it). */
  currentMeta: MetaRecord;
  /** Threading: continue from this response id. */
  previousResponseId?: string;
  /** Whether replies are threaded by id. */
  threading: boolean;
  /** Applies the prompt strategies to one round's messages. */
  prepare: (messages: Message[]) => Message[];
  /** Round cap. */
  maxToolRounds: number;
  /** How many tool calls of one reply run (`max_reply_tool_calls`); the rest get error outputs. */
  maxReplyToolCalls?: number;
  /** Write meta records (default true). */
  logResponse: boolean;
  /** Stream text deltas. */
  stream: boolean;
  /** Fallback tool handler. */
  handler?: ToolFunction;
  /** Session totals. */
  session: Session;
  /** HTTP client. */
  fetch: typeof fetch;
  /** Abort signal. */
  signal?: AbortSignal;
  /** Progress events. */
  onEvent?: (e: AskEvent) => void;
  /** Warnings. */
  warn?: (m: string) => void;
  /** Clock. */
  now: () => Date;
  /** New inference ids. */
  newId: () => string;
  /** Retry sleep (tests). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Tool length guard. */
  maxContentLength?: number;
  /** Tool concurrency. */
  toolConcurrency?: number;
  /** Runs specialists that tools returned as `{agent}` (from the agent layer). */
  runSpecialists?: SpecialistRunner;
  /** The inference cache, round by round (absent: every round is live). */
  rounds?: RoundSource;
}

/**
 * What a failed attempt delivered: streamed text, usage known before the end;
 * and the records of the round's attempts retried after reporting usage.
 */
export interface AttemptOutput {
  /** Text streamed so far. */
  text: string;
  /** Usage reported before the failure. */
  usage?: unknown;
  /**
   * An `incomplete=true` meta message per retried attempt that reported usage
   * (billed tokens: R93-2), oldest first; the text of those attempts is not kept.
   */
  retried: Message[];
  /** The retries so far. */
  retries: RetryNote[];
}
