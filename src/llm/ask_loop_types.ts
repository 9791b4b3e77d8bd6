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
  | { type: "retry"; attempt: number; delayMs: number; error: unknown }
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
 * Where rounds come from: the inference cache wraps each round, handing
 * `play` the recorded round on a hit (null otherwise) and storing what a live
 * round recorded.
 */
export interface RoundSource {
  /** Runs one round through the source. */
  round(
    state: RoundState,
    play: (recorded: RecordedRound | null) => Promise<PlayedRound>,
  ): Promise<PlayedRound>;
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
}
