/**
 * Anthropic Messages streams (SSE): the events `message_start` …
 * `message_stop` assembled into the message object a JSON reply would be, its
 * text deltas and the usage known so far passed on as they come. Bedrock's
 * InvokeModel streams of Anthropic models come here as SSE text too.
 *
 * @module
 */
import { reportedErrorOf, responseError } from "../errors.ts";
import { type SseEvent, sseEvents } from "../http.ts";
import { clipEnd } from "../../util/clip.ts";

type Block = Record<string, unknown>;

/** What an Anthropic stream has assembled so far, and where its deltas and usage go. */
interface StreamState {
  message: Record<string, unknown> | null;
  blocks: Block[];
  /** Tool input JSON received so far, by block index. */
  partialJson: Map<number, string>;
  usage: Record<string, unknown>;
  onDelta: ((text: string) => void) | undefined;
  onUsage: ((usage: unknown) => void) | undefined;
}

/**
 * An event's JSON; null for the last event when the body ended inside it (a
 * stream cut mid-event, not malformed JSON).
 */
function parseStreamEvent(ev: SseEvent): Record<string, unknown> | null {
  try {
    return JSON.parse(ev.data);
  } catch (e) {
    if (ev.open) return null;
    throw responseError(
      "anthropic",
      `sent malformed JSON in its stream: ${clipEnd(ev.data, 100, "")}`,
      e,
    );
  }
}

/**
 * `content_block_delta`: text (passed on), tool input JSON, thinking or its
 * signature added to its block.
 */
function applyBlockDelta(state: StreamState, data: Record<string, unknown>): void {
  const i = data.index as number;
  const b = state.blocks[i] ??= { type: "text", text: "" };
  const d = data.delta as Record<string, unknown>;
  if (d.type === "text_delta") {
    b.text = String(b.text ?? "") + String(d.text);
    state.onDelta?.(String(d.text));
  } else if (d.type === "input_json_delta") {
    state.partialJson.set(i, (state.partialJson.get(i) ?? "") + String(d.partial_json));
  } else if (d.type === "thinking_delta") {
    b.thinking = String(b.thinking ?? "") + String(d.thinking);
  } else if (d.type === "signature_delta") {
    // the thinking block's signature, sent whole before the block stops
    b.signature = String(d.signature);
  }
}

/** `content_block_stop`: a tool-use block's input JSON, now whole, parsed into it. */
function finishBlock(state: StreamState, data: Record<string, unknown>): void {
  const i = data.index as number;
  const json = state.partialJson.get(i);
  const block = state.blocks[i];
  if (json === undefined || !block) return;
  try {
    block.input = json.trim() === "" ? {} : JSON.parse(json);
  } catch (e) {
    throw responseError(
      "anthropic",
      `sent malformed tool input JSON: ${clipEnd(json, 100, "")}`,
      e,
    );
  }
}

/**
 * Applies one stream event to the state.
 *
 * @returns undefined while the stream goes on; at `message_stop`, the message
 *   (null when none was started)
 */
function applyEvent(
  state: StreamState,
  data: Record<string, unknown>,
): Record<string, unknown> | null | undefined {
  switch (data.type) {
    case "message_start":
      state.message = { ...(data.message as Record<string, unknown>) };
      state.usage = { ...((state.message.usage as Record<string, unknown>) ?? {}) };
      state.onUsage?.(state.usage);
      break;
    case "content_block_start":
      state.blocks[data.index as number] = { ...(data.content_block as Block) };
      break;
    case "content_block_delta":
      applyBlockDelta(state, data);
      break;
    case "content_block_stop":
      finishBlock(state, data);
      break;
    case "message_delta":
      if (data.usage) {
        state.usage = { ...state.usage, ...(data.usage as Record<string, unknown>) };
        state.onUsage?.(state.usage);
      }
      if (state.message && data.delta) {
        Object.assign(state.message, data.delta as Record<string, unknown>);
      }
      break;
    case "message_stop":
      if (!state.message) return null;
      return { ...state.message, content: state.blocks.filter(Boolean), usage: state.usage };
    case "error":
      // typed as its HTTP form: `overloaded_error` is retried as a 529 would be
      throw reportedErrorOf("anthropic", data.error ?? {}, true);
  }
  return undefined;
}

/**
 * Assembles an SSE stream into a message object.
 *
 * @param body response body
 * @param onDelta receives text deltas
 * @param progress counts the events received
 * @param onUsage receives the usage known so far (`message_start`, `message_delta`)
 * @returns the message, or null when the stream ended before `message_stop`
 *   (also inside its last event)
 */
export async function assembleAnthropicStream(
  body: ReadableStream<Uint8Array>,
  onDelta?: (text: string) => void,
  progress?: { events: number },
  onUsage?: (usage: unknown) => void,
): Promise<Record<string, unknown> | null> {
  const state: StreamState = {
    message: null,
    blocks: [],
    partialJson: new Map(),
    usage: {},
    onDelta,
    onUsage,
  };
  for await (const ev of sseEvents(body)) {
    const data = parseStreamEvent(ev);
    if (data === null) return null;
    if (progress) progress.events++;
    const end = applyEvent(state, data);
    if (end !== undefined) return end;
  }
  return null;
}
