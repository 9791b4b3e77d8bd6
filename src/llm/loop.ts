/**
 * The tool loop of one ask (`inference.md` §2.2): every round prepares the
 * prompt (strategies applied to the round's messages, never stored), queries
 * the provider with retries, records a meta, runs the requested tools as one
 * batch, and goes on while the round ends with a tool output — up to
 * `max_tool_rounds` ([TS-FIX]: the Ruby recursion is unbounded). An iterative
 * loop; a failure carries the messages produced so far (`err.messages`).
 *
 * @module
 */
import type { MetaRecord } from "../chat/meta.ts";
import { parseMeta, serializeMeta } from "../chat/meta.ts";
import type { Message } from "../chat/types.ts";
import { isScoutError, ScoutError } from "../errors.ts";
import { functionCallContent } from "../tools/calls.ts";
import { runToolCalls } from "../tools/dispatch.ts";
import { providerDefinitions } from "../tools/registry.ts";
import type { SpecialistRunner } from "../tools/agent_results.ts";
import type { ToolFunction, ToolInvocation, ToolRegistry } from "../tools/types.ts";
import type { Session } from "./meta_record.ts";
import { nextMeta } from "./meta_record.ts";
import type { ProviderParams } from "./params.ts";
import { withRetries } from "./retry.ts";
import type { Backend, BackendRequest, ClientSettings, ReplyItem } from "./types.ts";

/** Progress of an ask, for streaming and logs. */
export type AskEvent =
  | { type: "text"; delta: string }
  | { type: "round"; round: number }
  | { type: "response"; round: number; streamed: boolean }
  | { type: "retry"; attempt: number; delayMs: number; error: unknown }
  | { type: "tool"; name: string; id: string }
  | { type: "cache"; hit: boolean; key: string };

/** Everything one loop needs. */
export interface LoopInput {
  /** Messages after meta removal and threading trim. */
  messages: Message[];
  /** Backend name (errors) and implementation. */
  backendName: string;
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
}

/** What a failed attempt delivered: streamed text, usage known before the end. */
interface AttemptOutput {
  text: string;
  usage?: unknown;
}

/**
 * Why a reply is incomplete, for the `reason` of its meta record.
 *
 * @param e the failure
 * @param signal the ask's abort signal
 * @returns `interrupted`, `timeout`, `stream_cut` or `error`
 */
function incompleteReason(e: unknown, signal?: AbortSignal): string {
  if (signal?.aborted) return "interrupted";
  if (isScoutError(e, "timeout")) return "timeout";
  if (isScoutError(e) && e.streamCut === true) return "stream_cut";
  return "error";
}

/**
 * The messages that keep a reply cut short (retries used up, Ctrl-C): a meta
 * record marked `incomplete=true` with the reason and the tokens known so far
 * (usually none: providers send usage last), then the partial text (trimmed)
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
  if (input.logResponse) {
    const meta = nextMeta({
      usage: partial.usage ?? {},
      previous,
      session: input.session,
      inferenceId: input.newId(),
      timestamp: input.now(),
    });
    meta.incomplete = "true";
    meta.reason = incompleteReason(e, input.signal);
    out.push({ role: "meta", content: serializeMeta(meta) });
  }
  // trimmed as the chat format stores it, so the printed partial equals the saved one
  const text = partial.text.trim();
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

function attach(e: unknown, messages: Message[]): unknown {
  if (typeof e === "object" && e !== null && Object.isExtensible(e)) {
    const err = e as { messages?: unknown };
    if (err.messages === undefined) err.messages = messages;
  }
  return e;
}

async function itemsToMessages(
  items: ReplyItem[],
  input: LoopInput,
): Promise<{ messages: Message[]; lastIsLocalCall: boolean }> {
  const out: Message[] = [];
  let batch: ToolInvocation[] = [];
  let lastIsLocalCall = false;
  const flush = async () => {
    if (!batch.length) return;
    for (const c of batch) input.onEvent?.({ type: "tool", name: c.name, id: c.id });
    const opts = {
      registry: input.registry,
      now: input.now,
      ...(input.handler ? { handler: input.handler } : {}),
      ...(input.signal ? { signal: input.signal } : {}),
      ...(input.maxContentLength !== undefined ? { maxContentLength: input.maxContentLength } : {}),
      ...(input.toolConcurrency !== undefined ? { concurrency: input.toolConcurrency } : {}),
      ...(input.runSpecialists ? { runSpecialists: input.runSpecialists } : {}),
    };
    out.push(...await runToolCalls(batch, opts));
    batch = [];
  };
  // All calls of one response run as one batch, in response order; texts and
  // other items keep their place relative to the batch.
  const calls = items.filter((i) => i.type === "call");
  for (const item of items) {
    if (item.type === "call") {
      batch.push({ name: item.name, arguments: item.arguments, id: item.id });
      if (batch.length === calls.length) await flush();
      lastIsLocalCall = true;
      continue;
    }
    lastIsLocalCall = false;
    if (item.type === "text") out.push({ role: "assistant", content: item.text });
    else if (item.type === "message") out.push(item.message);
    else if (item.type === "hosted_call") {
      const ts = input.now().toISOString();
      out.push({ role: "function_call", content: functionCallContent(item) });
      out.push({
        role: "function_call_output",
        content: JSON.stringify({
          name: item.name,
          content: item.output,
          id: item.id,
          start_timestamp: ts,
          timestamp: ts,
        }),
      });
    }
  }
  await flush();
  return { messages: out, lastIsLocalCall };
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
  let history = input.messages;
  let meta = input.currentMeta;
  let prevId = input.previousResponseId;
  let params = input.params.params;
  const tools = providerDefinitions(input.registry);
  try {
    for (let round = 1;; round++) {
      if (round > input.maxToolRounds) {
        throw new ScoutError(
          "tool_loop_limit",
          `Tool loop stopped after ${input.maxToolRounds} rounds (max_tool_rounds)`,
          { rounds: input.maxToolRounds, messages: out },
        );
      }
      input.onEvent?.({ type: "round", round });
      const request: BackendRequest = {
        messages: input.prepare(history),
        tools,
        params,
        stream: input.stream,
        ...(input.params.reasoning ? { reasoning: input.params.reasoning } : {}),
        ...(input.params.text ? { text: input.params.text } : {}),
        ...(prevId ? { previousResponseId: prevId } : {}),
      };
      let streamed = false;
      // what the current attempt delivered, kept if the round fails for good
      let partial: AttemptOutput = { text: "" };
      const reply = await withRetries(
        () => {
          partial = { text: "" };
          return input.backend.query(request, {
            settings: input.settings,
            fetch: input.fetch,
            ...(input.signal ? { signal: input.signal } : {}),
            ...(input.warn ? { warn: input.warn } : {}),
            onUsage: (usage: unknown) => (partial.usage = usage),
            ...(input.stream
              ? {
                onDelta: (delta: string) => {
                  streamed = true;
                  partial.text += delta;
                  input.onEvent?.({ type: "text", delta });
                },
              }
              : {}),
          });
        },
        {
          maxRetries: input.settings.maxRetries,
          ...(input.settings.maxRetryAfterMs !== undefined
            ? { maxRetryAfterMs: input.settings.maxRetryAfterMs }
            : {}),
          ...(input.sleep ? { sleep: input.sleep } : {}),
          ...(input.signal ? { signal: input.signal } : {}),
          onRetry: (info) => input.onEvent?.({ type: "retry", ...info, error: info.error }),
        },
      ).catch((e) => {
        out.push(...incompleteAnswer(e, partial, meta, input));
        throw e;
      });
      input.onEvent?.({ type: "response", round, streamed });
      const timestamp = input.now();
      if (input.logResponse) {
        meta = nextMeta({
          usage: reply.usage,
          previous: meta,
          session: input.session,
          inferenceId: input.newId(),
          timestamp,
          ...(reply.id ? { providerResponseId: reply.id } : {}),
          ...(reply.reasoning ? { reasoning: reply.reasoning } : {}),
        });
        out.push({ role: "meta", content: serializeMeta(meta) });
      }
      const { messages: roundOut, lastIsLocalCall } = await itemsToMessages(reply.items, input);
      out.push(...roundOut);
      if (input.threading && reply.id) prevId = reply.id;
      if (!lastIsLocalCall) break;
      history = input.threading && prevId ? roundOut : [...history, ...roundOut];
      if ("tool_choice" in params) {
        const { tool_choice: _t, ...rest } = params;
        params = rest;
      }
    }
  } catch (e) {
    throw attach(e, out);
  }
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
