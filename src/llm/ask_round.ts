/**
 * One round of the tool loop (`inference.md` §2.2): the reply — queried from
 * the provider with retries, or a recorded one — its meta record, and the
 * requested tools run as one batch. A recorded round ({@link RecordedRound},
 * what the inference cache stores per round) re-runs the tool handlers (so
 * jobs and specialists run again, their own inferences replayed from the
 * cache) and puts the recorded `start_timestamp`/`timestamp` on the outputs:
 * a clock that replays, so the next round's request is the recorded one.
 *
 * @module
 */
import type { MetaRecord } from "../chat/meta.ts";
import { parseMeta, serializeMeta } from "../chat/meta.ts";
import type { Message } from "../chat/types.ts";
import { functionCallContent } from "../tools/calls.ts";
import { runToolCalls } from "../tools/dispatch.ts";
import { interruptedBatch } from "../tools/interrupted.ts";
import type { ToolDefinition, ToolInvocation } from "../tools/types.ts";
import type { AttemptOutput, LoopInput, RecordedRound, RoundState } from "./ask_loop_types.ts";
import { nextMeta } from "./meta_record.ts";
import { locateError } from "./error_location.ts";
import { incompleteMeta, metaAfter } from "./incomplete_meta.ts";
import { withRetries } from "./retry.ts";
import { retryNote } from "./round_failure.ts";
import { settingsSecrets } from "./sent_secrets.ts";
import { redactSecretsInError } from "../util/secrets.ts";
import { markReply } from "./reply_calls.ts";
import { markThinking } from "./thinking.ts";
import type { BackendRequest, QueryContext, ReplyItem, Truncation } from "./types.ts";

function stampOf(m: Message): [string, string] | null {
  try {
    const env = JSON.parse(String(m.content));
    const { start_timestamp: s, timestamp: t } = env ?? {};
    return typeof s === "string" && typeof t === "string" ? [s, t] : null;
  } catch {
    return null;
  }
}

/**
 * Puts recorded timestamps on a round's tool outputs, in order (outputs whose
 * envelope is not JSON, or without a recorded stamp, stay as they are).
 *
 * @param messages the round's messages
 * @param stamps recorded `[start, end]` pairs
 * @returns the messages, outputs restamped
 */
export function restamp(
  messages: Message[],
  stamps: readonly ([string, string] | null)[],
): Message[] {
  let k = 0;
  return messages.map((m) => {
    if (m.role !== "function_call_output") return m;
    const stamp = stamps[k++];
    if (!stamp || stampOf(m) === null) return m;
    const env = JSON.parse(String(m.content));
    env.start_timestamp = stamp[0];
    env.timestamp = stamp[1];
    return { ...m, content: JSON.stringify(env) };
  });
}

/**
 * The timestamps of a round's tool outputs, for its record.
 *
 * @param messages the round's messages
 * @returns one pair (or null) per `function_call_output`
 */
export function stampsOf(messages: readonly Message[]): ([string, string] | null)[] {
  return messages.filter((m) => m.role === "function_call_output").map(stampOf);
}

async function runBatch(batch: ToolInvocation[], input: LoopInput): Promise<Message[]> {
  const max = input.maxReplyToolCalls;
  if (max !== undefined && batch.length > max) {
    input.warn?.(
      `the reply made ${batch.length} tool calls; the ${
        batch.length - max
      } after the first ${max} are not run (max_reply_tool_calls)`,
    );
  }
  for (const c of batch.slice(0, max)) input.onEvent?.({ type: "tool", name: c.name, id: c.id });
  return await runToolCalls(batch, {
    registry: input.registry,
    now: input.now,
    ...(input.handler ? { handler: input.handler } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.maxContentLength !== undefined ? { maxContentLength: input.maxContentLength } : {}),
    ...(input.toolConcurrency !== undefined ? { concurrency: input.toolConcurrency } : {}),
    ...(input.runSpecialists ? { runSpecialists: input.runSpecialists } : {}),
    ...(max !== undefined ? { maxCalls: max } : {}),
  });
}

/**
 * Gives the batch's `function_call` messages (one per call, in call order)
 * the thinking blocks of their calls (`thinking.ts`) and their reply's mark
 * (`reply_calls.ts`).
 */
function markCalls(messages: Message[], calls: readonly ReplyItem[], reply: object): Message[] {
  let k = 0;
  for (const m of messages) {
    if (m.role !== "function_call") continue;
    const call = calls[k++];
    if (call?.type === "call") markThinking(m, call.thinking);
    markReply(m, reply);
  }
  return messages;
}

/**
 * Turns a reply's items into messages, running its local tool calls as one
 * batch in response order (texts and other items keep their place). Texts
 * and calls carry their thinking blocks on their messages (`thinking.ts`),
 * calls the mark of their reply, one for all (`reply_calls.ts`).
 * An interrupted batch's error carries the reply's messages up to and with
 * its pairs (see `interruptedBatch`).
 *
 * @param items the reply's items
 * @param input the loop input
 * @returns the messages, and whether the reply ended with a local call
 */
export async function itemsToMessages(
  items: ReplyItem[],
  input: LoopInput,
): Promise<{ messages: Message[]; lastIsLocalCall: boolean }> {
  const out: Message[] = [];
  const calls = items.filter((i) => i.type === "call");
  const reply = {}; // the calls of this reply, and only they, share it
  const batch: ToolInvocation[] = [];
  let lastIsLocalCall = false;
  for (const item of items) {
    if (item.type === "call") {
      batch.push({ name: item.name, arguments: item.arguments, id: item.id });
      if (batch.length === calls.length) {
        const pairs = await runBatch(batch, input).catch((e) => {
          const pairs = interruptedBatch(e);
          if (pairs) interruptedBatch(e, [...out, ...pairs]);
          throw e;
        });
        // one by one: a reply of 100,000 calls overflows the stack as push's arguments
        for (const m of markCalls(pairs, calls, reply)) out.push(m);
      }
      lastIsLocalCall = true;
      continue;
    }
    lastIsLocalCall = false;
    if (item.type === "text") {
      out.push(markThinking({ role: "assistant", content: item.text }, item.thinking));
    } else if (item.type === "message") out.push(item.message);
    else if (item.type === "hosted_call") {
      out.push(...markCalls(hostedPair(item, input.now()), [], reply));
    }
  }
  return { messages: out, lastIsLocalCall };
}

/** A call the provider ran (web search…) and its output: one complete pair. */
function hostedPair(item: ReplyItem & { type: "hosted_call" }, at: Date): Message[] {
  const ts = at.toISOString();
  return [
    { role: "function_call", content: functionCallContent(item) },
    {
      role: "function_call_output",
      content: JSON.stringify({
        name: item.name,
        content: item.output,
        id: item.id,
        start_timestamp: ts,
        timestamp: ts,
      }),
    },
  ];
}

/**
 * A reply's messages before its local tools ran (R111-2): its texts, its
 * calls the provider ran (with their outputs) and a `function_call` for each
 * local call — no output yet —, in reply order. The messages a round's meta
 * record paid for, for logs written as the run goes: a run killed while the
 * calls run keeps them, each one without an output. (The round's messages
 * replace them once its tools ran: {@link itemsToMessages}.)
 *
 * @param items the reply's items
 * @param at when the reply arrived (the outputs' stamps of provider-run calls)
 * @returns the messages
 *
 * @example
 * ```ts
 * import { pendingReply } from "./ask_round.ts";
 * pendingReply([{ type: "call", name: "ask", arguments: { agent: "W" }, id: "c1" }], new Date())
 *   .map((m) => m.role); // ["function_call"]
 * ```
 */
export function pendingReply(items: readonly ReplyItem[], at: Date): Message[] {
  const out: Message[] = [];
  for (const item of items) {
    switch (item.type) {
      case "call":
        out.push({ role: "function_call", content: functionCallContent(item) });
        break;
      case "text":
        out.push({ role: "assistant", content: item.text });
        break;
      case "message":
        out.push(item.message);
        break;
      case "hosted_call":
        out.push(...hostedPair(item, at));
    }
  }
  return out;
}

/**
 * Queries the provider for one round, with retries; what a failing attempt
 * delivered is kept in `partial`.
 *
 * @param state the round's state
 * @param tools the tool definitions
 * @param input the loop input
 * @param partial receives the current attempt's text and usage, and the
 *   records of the attempts retried after reporting usage
 * @returns the reply and whether text was streamed
 */
export async function queryRound(
  state: RoundState,
  tools: ToolDefinition[],
  input: LoopInput,
  partial: AttemptOutput,
) {
  const request: BackendRequest = {
    messages: input.prepare(state.history),
    tools,
    params: state.params,
    stream: input.stream,
    ...(input.params.reasoning ? { reasoning: input.params.reasoning } : {}),
    ...(input.params.text ? { text: input.params.text } : {}),
    ...(state.previousResponseId ? { previousResponseId: state.previousResponseId } : {}),
  };
  const streamed = { on: false };
  const place = {
    endpoint: input.who?.endpoint,
    url: input.settings.url ?? input.backend.defaults.url,
  };
  const secrets = settingsSecrets(input.settings);
  const reply = await withRetries(
    async () => {
      partial.text = "";
      delete partial.usage;
      try {
        return await input.backend.query(request, attemptContext(input, partial, streamed));
      } catch (e) {
        // each attempt's error names the endpoint and url (retry warnings too); whatever
        // a backend quoted of the provider's answer shows no key the ask sent (R146)
        throw locateError(redactSecretsInError(e, secrets), place);
      }
    },
    {
      maxRetries: input.settings.maxRetries,
      ...(input.settings.maxRetryAfterMs !== undefined
        ? { maxRetryAfterMs: input.settings.maxRetryAfterMs }
        : {}),
      ...(input.sleep ? { sleep: input.sleep } : {}),
      ...(input.signal ? { signal: input.signal } : {}),
      onRetry: (info) => {
        keepRetried(partial, info.error, state.meta, input);
        partial.retries.push(retryNote(info, input.settings.key)); // the round's entry tells it again
        input.onEvent?.({ type: "retry", ...info, error: info.error });
      },
    },
  );
  return { reply, streamed: streamed.on };
}

/**
 * Keeps the record of an attempt about to be retried when it reported usage
 * (the provider billed it): an `incomplete=true` meta with its own
 * `inference_id`, its totals going on from the round's last record.
 */
function keepRetried(
  partial: AttemptOutput,
  error: unknown,
  previous: MetaRecord,
  input: LoopInput,
): void {
  if (!input.logResponse || partial.usage === undefined) return;
  const base = metaAfter(partial.retried, previous);
  partial.retried.push(incompleteMeta(error, partial.usage, base, input));
}

/** The query context of one attempt: its text and usage kept in `partial`, streaming noted. */
function attemptContext(
  input: LoopInput,
  partial: AttemptOutput,
  streamed: { on: boolean },
): QueryContext {
  return {
    settings: input.settings,
    fetch: input.fetch,
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.warn ? { warn: input.warn } : {}),
    onUsage: (usage: unknown) => (partial.usage = usage),
    ...(input.stream
      ? {
        onDelta: (delta: string) => {
          streamed.on = true;
          partial.text += delta;
          input.onEvent?.({ type: "text", delta });
        },
      }
      : {}),
  };
}

/**
 * A recorded round's reply, as a live one would have shown it: its text
 * streamed (when streaming), then the response event.
 *
 * @param state the round's state
 * @param recorded the recorded round
 * @param input the loop input
 * @returns the meta after the round
 */
export function replayReply(
  state: RoundState,
  recorded: RecordedRound,
  input: LoopInput,
): MetaRecord {
  let streamed = false;
  if (input.stream) {
    for (const item of recorded.items) {
      if (item.type !== "text" || item.text === "") continue;
      streamed = true;
      input.onEvent?.({ type: "text", delta: item.text });
    }
  }
  input.onEvent?.({ type: "response", round: state.round, streamed });
  return recorded.meta ? parseMeta(String(recorded.meta.content)) : state.meta;
}

/**
 * The meta message of a live round.
 *
 * @param reply the provider's reply
 * @param previous the meta before the round
 * @param input the loop input
 * @param timestamp when the reply arrived
 * @returns the new meta record and its message
 */
export function liveMeta(
  reply: { usage?: unknown; id?: string; reasoning?: string },
  previous: MetaRecord,
  input: LoopInput,
  timestamp: Date,
): { meta: MetaRecord; message: Message } {
  const meta = nextMeta({
    usage: reply.usage,
    previous,
    session: input.session,
    inferenceId: input.newId(),
    timestamp,
    ...(input.who ? { who: input.who } : {}),
    ...(reply.id ? { providerResponseId: reply.id } : {}),
    ...(reply.reasoning ? { reasoning: reply.reasoning } : {}),
  });
  return { meta, message: { role: "meta", content: serializeMeta(meta) } };
}

/**
 * The warning for a reply the provider stopped at its output token limit:
 * the answer is cut, and which parameter raises the limit.
 *
 * @param backend the backend name
 * @param t the provider's stop reason and the limit's parameter
 * @returns the warning
 *
 * @example
 * ```ts
 * import { truncationWarning } from "./ask_round.ts";
 * truncationWarning("openai", { reason: "finish_reason=length", limit: "max_tokens" });
 * // 'Provider "openai" cut the reply at the token limit (finish_reason=length): the answer is incomplete; raise max_tokens'
 * ```
 */
export function truncationWarning(backend: string, t: Truncation): string {
  return `Provider "${backend}" cut the reply at the token limit (${t.reason}): ` +
    `the answer is incomplete; raise ${t.limit}`;
}
