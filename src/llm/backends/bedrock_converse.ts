/**
 * Bedrock's Converse API (`POST /model/{id}/converse`, `/converse-stream`):
 * the request body, the reply and the stream, for model families other than
 * Anthropic's (which go through `invoke` with the Messages body). Messages are
 * built as for Anthropic (same alternation and tool pairing) and then mapped
 * to Converse content blocks.
 *
 * @module
 */
import { ScoutError } from "../../errors.ts";
import { setOwn } from "../../util/own_record.ts";
import { replyObject, responseError } from "../errors.ts";
import { placeThinking } from "../thinking.ts";
import type { BackendReply, BackendRequest, ReplyItem, ThinkingBlock } from "../types.ts";
import { anthropicMessages, anthropicTools, formatInstruction } from "./anthropic.ts";
import type { EventStreamMessage } from "./aws_eventstream.ts";
import { clipEnd } from "../../util/clip.ts";

type Block = Record<string, unknown>;

/** A Map: a chat's `data:constructor;base64,…` image has no format of Object.prototype's. */
const MEDIA_FORMAT = new Map([
  ["image/png", "png"],
  ["image/jpeg", "jpeg"],
  ["image/gif", "gif"],
  ["image/webp", "webp"],
  ["application/pdf", "pdf"],
]);

function converseBlock(b: Block, index: number): Block {
  switch (b.type) {
    case "text":
      return { text: b.text };
    case "tool_use":
      return { toolUse: { toolUseId: b.id, name: b.name, input: b.input } };
    case "tool_result": {
      const result: Block = { toolUseId: b.tool_use_id, content: [{ text: String(b.content) }] };
      if (b.is_error === true) result.status = "error"; // a failed call (R113-4)
      return { toolResult: result };
    }
    case "thinking":
      return { reasoningContent: { reasoningText: { text: b.thinking, signature: b.signature } } };
    case "redacted_thinking":
      return { reasoningContent: { redactedContent: b.data } };
    case "image":
    case "document": {
      const src = b.source as Record<string, unknown>;
      const format = MEDIA_FORMAT.get(String(src.media_type));
      if (src.type !== "base64" || !format) {
        throw new ScoutError(
          "invalid_input",
          `Bedrock Converse takes images and PDFs as file bytes (png, jpeg, gif, webp, pdf), not ${
            src.type === "url" ? "URLs" : String(src.media_type)
          }`,
          { backend: "bedrock" },
        );
      }
      const source = { bytes: src.data };
      return b.type === "image"
        ? { image: { format, source } }
        : { document: { format, name: `document-${index + 1}`, source } };
    }
    default:
      return { text: JSON.stringify(b) };
  }
}

/** A Map: an option called `toString` is no inference key of Object.prototype's (R112-5). */
const INFERENCE_KEYS = new Map([
  ["max_tokens", "maxTokens"],
  ["temperature", "temperature"],
  ["top_p", "topP"],
  ["stop", "stopSequences"],
  ["stop_sequences", "stopSequences"],
]);

/**
 * Builds a Converse request body: `messages`, `system`, `toolConfig`,
 * `inferenceConfig` (`max_tokens`, `temperature`, `top_p`, `stop`) and the
 * other parameters as `additionalModelRequestFields`.
 *
 * @param req the request
 * @returns the body
 */
export function converseBody(req: BackendRequest): Record<string, unknown> {
  const { system, messages } = anthropicMessages(req.messages);
  const systemText = [system, formatInstruction(req.text)].filter(Boolean).join("\n\n");
  const body: Record<string, unknown> = {
    messages: messages.map((m) => ({
      role: m.role,
      content: m.content.map(converseBlock),
    })),
  };
  if (systemText) body.system = [{ text: systemText }];
  const inference: Record<string, unknown> = {};
  const additional: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(req.params)) {
    const key = INFERENCE_KEYS.get(k);
    if (key) inference[key] = key === "stopSequences" && !Array.isArray(v) ? [v] : v;
    else setOwn(additional, k, v); // `__proto__` is a field like any, under Bun too
  }
  if (Object.keys(inference).length) body.inferenceConfig = inference;
  if (Object.keys(additional).length) body.additionalModelRequestFields = additional;
  const tools = anthropicTools(req.tools).filter((t) => "input_schema" in t);
  if (tools.length) {
    body.toolConfig = {
      tools: tools.map((t) => ({
        toolSpec: {
          name: t.name,
          description: t.description,
          inputSchema: { json: t.input_schema },
        },
      })),
    };
  }
  return body;
}

/** Converse usage in the Anthropic key names the meta records read. */
function usageOf(u: unknown): Record<string, unknown> | undefined {
  if (!u || typeof u !== "object") return undefined;
  const x = u as Record<string, unknown>;
  return {
    input_tokens: x.inputTokens,
    output_tokens: x.outputTokens,
    total_tokens: x.totalTokens,
    cache_read_input_tokens: x.cacheReadInputTokens ?? 0,
    cache_creation_input_tokens: x.cacheWriteInputTokens ?? 0,
  };
}

/**
 * A `reasoningContent` block: its text added to `reasoning`; as a
 * {@link ThinkingBlock} when it can go back (a signed text, as Anthropic
 * models sign theirs, or a redacted one), else null.
 */
function reasoningBlock(rc: Block, reasoning: string[]): ThinkingBlock | null {
  const rt = rc.reasoningText as Block | undefined;
  if (typeof rt?.text === "string") {
    reasoning.push(rt.text);
    if (typeof rt.signature === "string") {
      return { type: "thinking", thinking: rt.text, signature: rt.signature };
    }
  }
  if (typeof rc.redactedContent === "string") {
    return { type: "redacted_thinking", data: rc.redactedContent };
  }
  return null;
}

/**
 * Processes a Converse reply (`output.message.content`: `text`, `toolUse`,
 * `reasoningContent`). In a reply with a call, signed and redacted reasoning
 * goes back with the turn, as Anthropic's thinking blocks do (`thinking.ts`).
 *
 * @param raw the reply object
 * @param warn warning sink
 * @returns the processed reply
 */
export function converseReply(raw: unknown, warn?: (m: string) => void): BackendReply {
  const r = replyObject("bedrock", raw);
  const message = (r.output as Record<string, unknown> | undefined)?.message as
    | Record<string, unknown>
    | undefined;
  if (!message || !Array.isArray(message.content)) {
    throw responseError("bedrock", "sent a Converse reply without output.message.content");
  }
  const items: (ReplyItem | ThinkingBlock)[] = [];
  const reasoning: string[] = [];
  for (const b of message.content as Block[]) {
    if (typeof b.text === "string") {
      if (b.text !== "") items.push({ type: "text", text: b.text });
    } else if (b.toolUse) {
      const t = b.toolUse as Record<string, unknown>;
      items.push({
        type: "call",
        name: String(t.name),
        arguments: t.input ?? {},
        id: String(t.toolUseId),
      });
    } else if (b.reasoningContent) {
      const block = reasoningBlock(b.reasoningContent as Block, reasoning);
      if (block) items.push(block);
    } else {
      warn?.(`Skipping unknown Converse content block ${Object.keys(b).join(",")}`);
    }
  }
  const reply: BackendReply = { items: placeThinking(items) };
  const usage = usageOf(r.usage);
  if (usage) reply.usage = usage;
  if (reasoning.length) reply.reasoning = reasoning.join(" ");
  if (r.stopReason === "max_tokens") {
    reply.truncated = { reason: "stopReason=max_tokens", limit: "max_tokens" };
  }
  return reply;
}

/** What a Converse stream has assembled so far, and where its text deltas go. */
interface ConverseStreamState {
  blocks: Block[];
  /** Tool input JSON received so far, by block index. */
  toolInput: Map<number, string>;
  stopped: boolean;
  /** `messageStop`'s `stopReason`. */
  stopReason?: unknown;
  usage: unknown;
  onDelta: ((text: string) => void) | undefined;
}

/**
 * `contentBlockDelta`: text (passed on), tool input JSON, or reasoning (its
 * text, signature or redacted content) added to block `i`.
 */
function applyBlockDelta(state: ConverseStreamState, i: number, d: Record<string, unknown>): void {
  if (typeof d.text === "string") {
    const b = state.blocks[i] ??= { text: "" };
    b.text = String(b.text ?? "") + d.text;
    state.onDelta?.(d.text);
  } else if (d.toolUse) {
    const part = String((d.toolUse as Record<string, unknown>).input ?? "");
    state.toolInput.set(i, (state.toolInput.get(i) ?? "") + part);
  } else if (d.reasoningContent) {
    const rd = d.reasoningContent as Block;
    const b = state.blocks[i] ??= { reasoningContent: {} };
    const rc = b.reasoningContent as Block;
    if (typeof rd.redactedContent === "string") {
      rc.redactedContent = String(rc.redactedContent ?? "") + rd.redactedContent;
      return;
    }
    const rt = (rc.reasoningText ??= { text: "" }) as Block;
    if (typeof rd.text === "string") rt.text = String(rt.text) + rd.text;
    if (typeof rd.signature === "string") rt.signature = rd.signature;
  }
}

/** `contentBlockStop`: a tool-use block's input JSON, now whole, parsed into it. */
function finishBlock(state: ConverseStreamState, i: number): void {
  const json = state.toolInput.get(i);
  const b = state.blocks[i];
  if (json === undefined || !b?.toolUse) return;
  try {
    (b.toolUse as Block).input = json.trim() === "" ? {} : JSON.parse(json);
  } catch (e) {
    throw responseError("bedrock", `sent malformed tool input JSON: ${clipEnd(json, 100, "")}`, e);
  }
}

/** Applies one stream event (its type in the `:event-type` header) to the state. */
function applyEvent(state: ConverseStreamState, ev: EventStreamMessage): void {
  const data = JSON.parse(new TextDecoder().decode(ev.payload)) as Record<string, unknown>;
  const i = Number(data.contentBlockIndex ?? 0);
  switch (ev.headers[":event-type"]) {
    case "contentBlockStart": {
      const tool = (data.start as Record<string, unknown> | undefined)?.toolUse as Block;
      if (tool) state.blocks[i] = { toolUse: { ...tool } };
      break;
    }
    case "contentBlockDelta":
      applyBlockDelta(state, i, data.delta as Record<string, unknown>);
      break;
    case "contentBlockStop":
      finishBlock(state, i);
      break;
    case "messageStop":
      state.stopped = true;
      state.stopReason = data.stopReason;
      break;
    case "metadata":
      state.usage = data.usage;
      break;
  }
}

/**
 * Assembles Converse stream events into a Converse reply object.
 *
 * @param events the decoded event-stream messages
 * @param onDelta receives text deltas
 * @param progress counts the events received
 * @returns the reply object, or null when the stream ended before `messageStop`
 */
export async function assembleConverseStream(
  events: AsyncIterable<EventStreamMessage>,
  onDelta?: (text: string) => void,
  progress?: { events: number },
): Promise<Record<string, unknown> | null> {
  const state: ConverseStreamState = {
    blocks: [],
    toolInput: new Map(),
    stopped: false,
    usage: undefined,
    onDelta,
  };
  for await (const ev of events) {
    if (progress) progress.events++;
    applyEvent(state, ev);
  }
  if (!state.stopped) return null;
  return {
    output: { message: { role: "assistant", content: state.blocks.filter(Boolean) } },
    ...(state.stopReason !== undefined ? { stopReason: state.stopReason } : {}),
    ...(state.usage ? { usage: state.usage } : {}),
  };
}
