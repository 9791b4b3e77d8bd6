/**
 * Anthropic Messages adapter (`anthropic`; `inference.md` §3.3) over plain
 * `fetch`: `POST {url}/v1/messages` with `x-api-key` and `anthropic-version`,
 * JSON or SSE. Ruby defects fixed here: system messages go top-level, tool
 * results carry their content, `defaults` never reach `input_schema`,
 * `thinking` blocks become reasoning, `format` becomes a system instruction.
 * The signed `thinking` / `redacted_thinking` blocks of a reply with a tool
 * call go back with that assistant turn (`thinking.ts`; Ruby raised on them).
 * The calls one reply made go back as one turn, their results as one
 * (`reply_calls.ts`; Ruby sends one message per call).
 *
 * @module
 */
import type { Message } from "../../chat/types.ts";
import { isFunctionDefinition } from "../../tools/registry.ts";
import type { ToolDefinition } from "../../tools/types.ts";
import { replyObject, responseError } from "../errors.ts";
import {
  isRemoteUrl,
  loadMedia,
  sendableMessages,
  textContent,
  toolMessageIds,
} from "../format.ts";
import { postJson, readReply, requestSignal } from "../http.ts";
import { replyOrder } from "../reply_calls.ts";
import { SSE_STREAM } from "../stream_check.ts";
import { placeThinking, thinkingOf } from "../thinking.ts";
import type {
  Backend,
  BackendReply,
  BackendRequest,
  QueryContext,
  ReplyItem,
  ThinkingBlock,
} from "../types.ts";
import { assembleAnthropicStream } from "./anthropic_stream.ts";
import { anthropicMaxTokens } from "./token_limit.ts";

/** `anthropic-version` header value. */
export const ANTHROPIC_VERSION = "2023-06-01";
export { ANTHROPIC_MAX_TOKENS } from "./token_limit.ts";

type Block = Record<string, unknown>;

function mediaBlock(kind: "image" | "pdf", ref: string): Block {
  const type = kind === "image" ? "image" : "document";
  if (isRemoteUrl(ref)) return { type, source: { type: "url", url: ref } };
  const md = loadMedia(ref, kind);
  return { type, source: { type: "base64", media_type: md.mime, data: md.base64 } };
}

/**
 * Formats messages: system texts joined by a blank line as top-level `system`;
 * calls as `tool_use` blocks, outputs as `tool_result` blocks (`is_error`
 * on a failed call's output, [TS-FIX]); adjacent
 * messages of the same role merged into one (the API requires alternation).
 * The thinking blocks a text or call message carries (`thinking.ts`) go
 * right before its block, as they came. The calls one reply made together
 * go as one assistant message and their results as one user message, in
 * call order (`reply_calls.ts`; [TS-FIX] R113-1: Ruby sends one per call).
 *
 * @param messages compiled messages
 * @returns `{system, messages}`
 */
export function anthropicMessages(
  messages: readonly Message[],
): { system?: string; messages: Array<{ role: string; content: Block[] }> } {
  const sendable = sendableMessages(messages).filter((m) => m.role !== "websearch");
  const ids = toolMessageIds(sendable);
  const system: string[] = [];
  const out: Array<{ role: string; content: Block[] }> = [];
  const push = (role: string, block: Block) => {
    const last = out.at(-1);
    if (last && last.role === role) last.content.push(block);
    else out.push({ role, content: [block] });
  };
  for (const i of replyOrder(sendable)) {
    const m = sendable[i]!;
    switch (m.role) {
      case "system":
        system.push(textContent(m.content));
        break;
      case "function_call": {
        const c = ids.get(i) as { name: string; arguments: unknown; id: string };
        const input = typeof c.arguments === "object" && c.arguments !== null ? c.arguments : {};
        for (const b of thinkingOf(m) ?? []) push("assistant", { ...b });
        push("assistant", { type: "tool_use", id: c.id, name: c.name, input });
        break;
      }
      case "function_call_output": {
        const o = ids.get(i) as { content: string; id: string; failed?: boolean };
        const result: Block = { type: "tool_result", tool_use_id: o.id, content: o.content };
        if (o.failed) result.is_error = true; // [TS-FIX] R113-4: Ruby never sets it
        push("user", result);
        break;
      }
      case "image":
      case "pdf":
        push("user", mediaBlock(m.role, textContent(m.content).trim()));
        break;
      case "assistant":
        for (const b of thinkingOf(m) ?? []) push("assistant", { ...b });
        push("assistant", { type: "text", text: textContent(m.content) });
        break;
      default:
        push("user", { type: "text", text: textContent(m.content) });
    }
  }
  return system.length ? { system: system.join("\n\n"), messages: out } : { messages: out };
}

/**
 * Definitions as Anthropic tools: `{name, description ("" default), input_schema}`.
 *
 * @param tools definitions (hosted ones pass as is)
 * @returns provider tools
 */
export function anthropicTools(tools: readonly ToolDefinition[]): Record<string, unknown>[] {
  return tools.map((t) => {
    if (!isFunctionDefinition(t)) return { ...t };
    const { defaults: _d, ...schema } = t.function.parameters ?? { type: "object", properties: {} };
    return {
      name: t.function.name,
      description: t.function.description ?? "",
      input_schema: { type: "object", ...schema },
    };
  });
}

/**
 * The system instruction that asks for JSON (`format`), for APIs without a
 * structured-output parameter.
 *
 * @param text the shaped `text` map (its `format`)
 * @returns the instruction, or undefined for plain text
 */
export function formatInstruction(text: Record<string, unknown> | undefined): string | undefined {
  const f = text?.format as Record<string, unknown> | undefined;
  if (!f || f.type === "text") return undefined;
  const base = "Reply with one JSON object only, with no text before or after it.";
  return f.type === "json_schema" && f.schema
    ? `${base} It must follow this JSON Schema:\n${JSON.stringify(f.schema)}`
    : base;
}

/**
 * Builds the request body. `max_tokens` defaults to 1000, or above the
 * thinking budget when `thinking` sets one ({@link anthropicMaxTokens}).
 *
 * @param req the request
 * @param model model
 * @returns the body
 */
export function anthropicBody(req: BackendRequest, model: string): Record<string, unknown> {
  const { system, messages } = anthropicMessages(req.messages);
  const instruction = formatInstruction(req.text);
  const systemText = [system, instruction].filter(Boolean).join("\n\n");
  const maxTokens = anthropicMaxTokens(req.params);
  const body: Record<string, unknown> = {
    model,
    ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
    ...req.params,
    messages,
  };
  if (systemText) body.system = systemText;
  const tools = anthropicTools(req.tools);
  if (req.messages.some((m) => m.role === "websearch")) {
    tools.push({ type: "web_search_20250305", name: "web_search" });
  }
  if (tools.length) body.tools = tools;
  return body;
}

/**
 * Processes a Messages reply: `text` → text, `tool_use` → call, `thinking` →
 * reasoning; server tool blocks skipped; unknown blocks skipped with a warning.
 * In a reply with a call, each signed `thinking` and each `redacted_thinking`
 * block is also kept, verbatim, on the text or call that follows it.
 *
 * @param raw the message object
 * @param warn warning sink
 * @returns the processed reply
 */
export function anthropicReply(raw: unknown, warn?: (m: string) => void): BackendReply {
  const r = replyObject("anthropic", raw);
  if (r.type === "error" || (r.error && !r.content)) {
    const e = (r.error ?? {}) as Record<string, unknown>;
    throw responseError(
      "anthropic",
      `reported an error: ${String(e.message ?? JSON.stringify(e))}`,
    );
  }
  if (!Array.isArray(r.content)) throw responseError("anthropic", "sent a reply without content");
  const items: (ReplyItem | ThinkingBlock)[] = [];
  const reasoning: string[] = [];
  for (const b of r.content as Block[]) {
    switch (b?.type) {
      case "text":
        if (typeof b.text === "string" && b.text !== "") items.push({ type: "text", text: b.text });
        break;
      case "tool_use":
        items.push({
          type: "call",
          name: String(b.name),
          arguments: (b.input ?? {}) as unknown,
          id: String(b.id),
        });
        break;
      case "thinking":
        if (typeof b.thinking === "string") reasoning.push(b.thinking);
        // sent back verbatim with the turn's tool call (a block without its signature cannot be)
        if (typeof b.signature === "string") items.push({ ...b } as ThinkingBlock);
        break;
      case "redacted_thinking":
        if (typeof b.data === "string") items.push({ ...b } as ThinkingBlock);
        break;
      case "server_tool_use":
      case "web_search_tool_result":
      case "web_search_call":
        break;
      default:
        warn?.(`Skipping unknown Anthropic content block "${String(b?.type)}"`);
    }
  }
  const reply: BackendReply = { items: placeThinking(items) };
  if (typeof r.id === "string") reply.id = r.id;
  if (r.usage) reply.usage = r.usage;
  if (reasoning.length) reply.reasoning = reasoning.join(" ");
  if (r.stop_reason === "max_tokens") {
    reply.truncated = { reason: "stop_reason=max_tokens", limit: "max_tokens" };
  }
  return reply;
}

/**
 * The messages url: `{url}/v1/messages` (`{url}/messages` when the url already
 * names the version).
 *
 * @param url configured url (default `https://api.anthropic.com`)
 * @param apiVersion version segment
 * @returns the url
 */
export function anthropicUrl(url: string | undefined, apiVersion = "v1"): string {
  const base = (url ?? "https://api.anthropic.com").replace(/\/+$/, "");
  return base.includes("/" + apiVersion) ? `${base}/messages` : `${base}/${apiVersion}/messages`;
}

async function query(req: BackendRequest, ctx: QueryContext): Promise<BackendReply> {
  const body = anthropicBody(req, ctx.settings.model);
  if (req.stream) body.stream = true;
  const rs = requestSignal(ctx);
  let raw: unknown;
  try {
    const res = await postJson(
      "anthropic",
      anthropicUrl(ctx.settings.url, ctx.settings.apiVersion),
      body,
      {
        headers: { "x-api-key": ctx.settings.key, "anthropic-version": ANTHROPIC_VERSION },
        ctx,
        rs,
      },
    );
    // a streamed request answered with one JSON message (a server that ignored
    // `stream`) is read as such; with a page that is neither, it fails at once
    raw = await readReply("anthropic", res, {
      ctx,
      rs,
      ...(req.stream
        ? {
          stream: { ...SSE_STREAM, json: true },
          assemble: (b, p) => assembleAnthropicStream(b, ctx.onDelta, p, ctx.onUsage),
        }
        : {}),
    });
  } finally {
    rs.clear();
  }
  return anthropicReply(raw, ctx.warn);
}

/** The `anthropic` backend. */
export const anthropicBackend: Backend = {
  defaults: {
    tag: "anthropic",
    model: "claude-sonnet-4-5",
    urlEnv: "ANTHROPIC_URL",
    keyEnv: ["ANTHROPIC_KEY", "ANTHROPIC_API_KEY"],
    modelEnv: ["ANTHROPIC_MODEL", "MODEL"],
    url: "https://api.anthropic.com",
    keyRequired: true,
  },
  query,
};
