/**
 * The tool loop of one ask (`inference.md` §2.2): every round prepares the
 * prompt (strategies applied to the round's messages, never stored), queries
 * the provider with retries — or takes the round from the inference cache
 * (`rounds`), tools re-run — records a meta, runs the requested tools as one
 * batch, and goes on while the round ends with a tool output — up to
 * `max_tool_rounds` ([TS-FIX]: the Ruby recursion is unbounded). An iterative
 * loop; a failure carries the messages produced so far (`err.messages`).
 *
 * @module
 */
import type { MetaRecord } from "../chat/meta.ts";
import { parseMeta } from "../chat/meta.ts";
import { rubyStrip } from "../chat/text.ts";
import type { Message } from "../chat/types.ts";
import { ScoutError } from "../errors.ts";
import { interruptedBatch } from "../tools/interrupted.ts";
import { providerDefinitions } from "../tools/registry.ts";
import type { ToolDefinition } from "../tools/types.ts";
import type {
  AttemptOutput,
  LoopInput,
  PlayedRound,
  PlayRound,
  RecordedFailure,
  RecordedRound,
  RetryNote,
  RoundState,
} from "./ask_loop_types.ts";
import {
  itemsToMessages,
  liveMeta,
  pendingReply,
  queryRound,
  replayReply,
  restamp,
  stampsOf,
  truncationWarning,
} from "./ask_round.ts";
import { incompleteMeta, metaAfter } from "./incomplete_meta.ts";
import { noteInference } from "./inference_tally.ts";
import {
  isRecordedFailure,
  noteFailedRound,
  replayFailure,
  replayRetries,
} from "./round_failure.ts";
import type { ReplyItem } from "./types.ts";

export type {
  AskEvent,
  LoopInput,
  PlayedRound,
  RecordedFailure,
  RecordedRound,
  RoundSource,
  RoundState,
} from "./ask_loop_types.ts";

/**
 * The messages that keep a reply cut short (retries used up, Ctrl-C): a meta
 * record marked `incomplete=true` with the reason and the tokens known so far
 * (often none: most providers send usage last), then the partial text (trimmed)
 * as an assistant message. Nothing when the attempt delivered nothing.
 */
function incompleteAnswer(
  e: unknown,
  partial: AttemptOutput,
  previous: MetaRecord,
  input: LoopInput,
): Message[] {
  if (partial.text === "" && partial.usage === undefined) return [];
  const out: Message[] = [];
  if (input.logResponse) out.push(incompleteMeta(e, partial.usage, previous, input));
  // trimmed as the chat format stores it (ASCII whitespace and NUL, never
  // U+3000 or U+00A0), so the printed partial equals the saved one
  const text = rubyStrip(partial.text);
  if (text !== "") out.push({ role: "assistant", content: text });
  return out;
}

/**
 * The partial answer a failed ask kept (see `AskResult.messages` / the
 * error's `messages`): the text of a trailing assistant message whose meta
 * record says `incomplete=true`, else null.
 *
 * @param messages the messages produced before the failure
 * @returns the partial text, or null
 */
export function incompleteText(messages: readonly Message[]): string | null {
  const last = messages.at(-1);
  const meta = messages.at(-2);
  if (last?.role !== "assistant" || typeof last.content !== "string") return null;
  if (meta?.role !== "meta" || typeof meta.content !== "string") return null;
  return parseMeta(meta.content).incomplete === "true" ? last.content : null;
}

/**
 * Sets a failure's `messages` — what the failed ask produced before it
 * failed — to `messages`: the tool loop sets its own (an error passing up
 * from a nested ask, a specialist's `not_cached` or an abort, carried that
 * ask's, which are not the caller's chat); the agent layer's task route sets
 * its job's marker.
 *
 * @param e the error
 * @param messages what the failed ask produced
 * @returns `e`
 */
export function attachMessages(e: unknown, messages: Message[]): unknown {
  if (typeof e === "object" && e !== null && Object.isExtensible(e)) {
    (e as { messages?: unknown }).messages = messages;
  }
  return e;
}

/**
 * What a failed ask produced before it failed (its error's `messages`, see
 * {@link attachMessages}), or none: the meta records of the inferences it
 * paid for, its tool calls paired with their outputs, and on an agent's task
 * route the `meta job=…` marker of its failed job (whose logs hold the rest).
 * An agent's `chat` appends only what succeeds to the live chat; append these
 * to keep the evidence of a failed turn, so that `llm prov` of the saved chat
 * counts what it cost (`agent ask -o` saves them so).
 *
 * @param e the error
 * @returns the messages
 *
 * @example
 * ```ts
 * import { agentChat, agentCurrent, failureMessages, type Agent } from "../../mod.ts";
 * async function turn(agent: Agent) {
 *   try {
 *     return await agentChat(agent);
 *   } catch (e) {
 *     agentCurrent(agent).push(...failureMessages(e)); // what the failed turn paid for
 *     throw e;
 *   }
 * }
 * ```
 */
export function failureMessages(e: unknown): Message[] {
  const produced = (e as { messages?: unknown } | null)?.messages;
  return Array.isArray(produced) ? produced as Message[] : [];
}

/** What a live query gave a round: the reply's side of its record, and the meta after it. */
interface LiveReply {
  items: ReplyItem[];
  id: string | undefined;
  meta: MetaRecord;
  metaMessage: Message | null;
  retried: Message[];
  retries: RetryNote[];
  paidAt: Date;
}

/**
 * Queries the provider for a round (a failing query keeps its partial answer
 * in `out`, and is noted for the round's failure entry: `round_failure.ts`).
 * A reply with no local tool call is the round's whole record once in: it is
 * handed to `inHand` before the response is told (telling it prints it, and
 * a reader gone may end the process there: the paid answer is then stored).
 * Its hosted calls' outputs are stamped by their replay; a reply with local
 * calls is whole only once they ran, their outputs stamped.
 */
async function liveReply(
  state: RoundState,
  tools: ToolDefinition[],
  input: LoopInput,
  { out, inHand }: { out: Message[]; inHand: ((record: RecordedRound) => void) | undefined },
): Promise<LiveReply> {
  const partial: AttemptOutput = { text: "", retried: [], retries: [] };
  const { reply, streamed } = await queryRound(state, tools, input, partial).catch((e) => {
    const previous = metaAfter(partial.retried, state.meta);
    const kept = [...partial.retried, ...incompleteAnswer(e, partial, previous, input)];
    out.push(...kept);
    const ask = { key: input.settings.key, signal: input.signal };
    noteFailedRound(e, state, { messages: kept, retries: partial.retries }, ask);
    throw e;
  });
  // the records of attempts retried after reporting usage come first
  let meta = metaAfter(partial.retried, state.meta);
  const paidAt = input.now();
  let metaMessage: Message | null = null;
  if (input.logResponse) {
    metaMessage = liveMeta(reply, meta, input, paidAt).message;
    // the next round starts from the meta as written (what a replay reads back)
    meta = parseMeta(String(metaMessage.content));
  }
  const { retried, retries } = partial;
  const { items, id } = reply;
  if (inHand && !items.some((i) => i.type === "call")) {
    inHand(recordOf({ items, id, meta: metaMessage, retried, retries }, []));
  }
  input.onEvent?.({ type: "response", round: state.round, streamed });
  if (reply.truncated) input.warn?.(truncationWarning(input.backendName, reply.truncated));
  return { items, id, meta, metaMessage, retried, retries, paidAt };
}

/** A round's record: its reply's side, and the stamps of its tool outputs. */
function recordOf(
  reply: Pick<RecordedRound, "items" | "id" | "meta" | "retried" | "retries">,
  stamps: RecordedRound["stamps"],
): RecordedRound {
  const { items, id, meta, retried = [], retries = [] } = reply;
  return {
    items,
    ...(id ? { id } : {}),
    meta,
    ...(retried.length ? { retried } : {}),
    stamps,
    ...(retries.length ? { retries } : {}),
  };
}

/**
 * Plays one round: the recorded reply (its retries told again), or a live
 * query; the meta into `out`; then the tools. A recorded failure (offline
 * replay only) is played as it failed; a live reply whole once in goes to
 * `inHand` ({@link liveReply}).
 */
async function playRound(
  state: RoundState,
  recorded: RecordedRound | RecordedFailure | null,
  tools: ToolDefinition[],
  input: LoopInput,
  out: Message[],
  inHand?: (record: RecordedRound) => void,
): Promise<PlayedRound> {
  noteInference(recorded ? "replayed" : "live");
  if (recorded && isRecordedFailure(recorded)) replayFailure(recorded, input.onEvent, out);
  let live: LiveReply | null = null;
  let meta: MetaRecord;
  if (recorded) {
    replayRetries(recorded.retries, input.onEvent);
    meta = replayReply(state, recorded, input);
  } else meta = (live = await liveReply(state, tools, input, { out, inHand })).meta;
  const { items, id, meta: metaMessage, retried = [], retries = [] } = recorded ?? {
    ...live!,
    meta: live!.metaMessage,
  };
  out.push(...retried);
  if (metaMessage) out.push(metaMessage);
  // what was paid so far, the reply's calls among it, for logs written as the run goes (a
  // SIGKILL keeps them: a call still running shows without its output, R111-2)
  if (metaMessage && live && input.onEvent) {
    const produced = [...out, ...pendingReply(items, live.paidAt)];
    input.onEvent({ type: "meta", round: state.round, produced });
  }
  const done = await itemsToMessages(items, input).catch((e) => {
    // interrupted during its tools: the calls and their outputs so far are kept
    for (const m of interruptedBatch(e) ?? []) out.push(m);
    throw e;
  });
  const messages = recorded ? restamp(done.messages, recorded.stamps) : done.messages;
  return {
    record: recordOf({ items, id, meta: metaMessage, retried, retries }, stampsOf(messages)),
    meta,
    messages,
    lastIsLocalCall: done.lastIsLocalCall,
  };
}

/**
 * Runs the loop.
 *
 * @param input messages, backend, tools and the runtime
 * @returns `[meta₁, fc, fco, …, metaₙ, assistant…, previous_response_id?]`
 * @throws ScoutError `tool_loop_limit` with `messages` when the cap is hit;
 *   any query failure, with the messages produced so far in `messages`
 */
export async function runLoop(input: LoopInput): Promise<Message[]> {
  const out: Message[] = [];
  const tools = providerDefinitions(input.registry);
  let state: RoundState = {
    round: 1,
    history: input.messages,
    meta: input.currentMeta,
    params: input.params.params,
    ...(input.previousResponseId ? { previousResponseId: input.previousResponseId } : {}),
  };
  try {
    for (;; state = { ...state, round: state.round + 1 }) {
      if (state.round > input.maxToolRounds) {
        throw new ScoutError(
          "tool_loop_limit",
          `Tool loop stopped after ${input.maxToolRounds} rounds (max_tool_rounds)`,
          { rounds: input.maxToolRounds, messages: out },
        );
      }
      input.onEvent?.({ type: "round", round: state.round });
      const at = state;
      const play: PlayRound = (recorded, inHand) =>
        playRound(at, recorded, tools, input, out, inHand);
      const played = await (input.rounds ? input.rounds.round(at, play) : play(null));
      for (const m of played.messages) out.push(m); // not as arguments: 100,000 calls overflow
      let prevId = state.previousResponseId;
      if (input.threading && played.record.id) prevId = played.record.id;
      state = { ...state, meta: played.meta, ...(prevId ? { previousResponseId: prevId } : {}) };
      if (!played.lastIsLocalCall) break;
      state.history = input.threading && prevId
        ? played.messages
        : [...state.history, ...played.messages];
      if ("tool_choice" in state.params) {
        const { tool_choice: _t, ...rest } = state.params;
        state.params = rest;
      }
    }
  } catch (e) {
    throw attachMessages(e, out);
  }
  const prevId = state.previousResponseId;
  if (input.threading && prevId && out.at(-1)?.role !== "previous_response_id") {
    out.push({ role: "previous_response_id", content: prevId });
  }
  return out;
}

/**
 * The text answer of a loop's output (§2.2): empty-content and
 * `previous_response_id` messages dropped, the last message's content when it
 * is an assistant message, else `""` ([TS-FIX]: Ruby returns null).
 *
 * @param messages loop output
 * @returns the answer text
 */
export function finalText(messages: readonly Message[]): string {
  const kept = messages.filter((m) =>
    m.role !== "previous_response_id" && m.content !== "" && m.content !== null &&
    m.content !== undefined
  );
  const last = kept.at(-1);
  if (!last || last.role !== "assistant") return "";
  return typeof last.content === "string" ? last.content : JSON.stringify(last.content);
}
