/**
 * OpenAI Chat Completions adapter (`openai`; `inference.md` §3.2) through the
 * `openai` SDK — also the client of Chat-Completions-only servers (`openai`
 * with a `url`) and of OpenWebUI. Streaming assembles the chunks, with
 * `stream_options.include_usage` for the usage block.
 *
 * @module
 */
import type OpenAI from "openai";
import type { Message } from "../../chat/types.ts";
import { ScoutError } from "../../errors.ts";
import { parseArguments } from "../../tools/calls.ts";
import { isFunctionDefinition } from "../../tools/registry.ts";
import type { ToolDefinition } from "../../tools/types.ts";
import { replyObject, responseError, type StreamProgress } from "../errors.ts";
import {
  isRemoteUrl,
  loadMedia,
  mediaDataUrl,
  sendableMessages,
  textContent,
  toolMessageIds,
} from "../format.ts";
import { type RequestSignal, requestSignal } from "../http.ts";
import type { Backend, BackendReply, BackendRequest, QueryContext, ReplyItem } from "../types.ts";
import {
  countingClient,
  incompleteStreamError,
  mapSdkError,
  openaiBaseUrl,
  openaiClient,
  sdkJson,
} from "./openai_sdk.ts";
import { assembleChatStream, reasoningOf } from "./openai_stream.ts";
import { chatLimit } from "./token_limit.ts";

/**
 * Formats messages for Chat Completions: calls as assistant `tool_calls` (one
 * message per call), outputs as `{role:"tool", tool_call_id, content}` with
 * standard fields only ([TS-FIX]), images/PDFs as content parts ([TS-FIX]).
 *
 * @param messages compiled messages
 * @param backend backend name for errors
 * @returns Chat Completions messages
 * @throws ScoutError `invalid_input` for `websearch` (not a Chat Completions feature)
 */
export function chatMessages(
  messages: readonly Message[],
  backend = "openai",
): Record<string, unknown>[] {
  if (messages.some((m) => m.role === "websearch")) {
    throw new ScoutError("invalid_input", `Backend "${backend}" does not support websearch`);
  }
  const sendable = sendableMessages(messages);
  const ids = toolMessageIds(sendable);
  return sendable.map((m, i) => {
    switch (m.role) {
      case "function_call": {
        const c = ids.get(i) as { name: string; arguments: unknown; id: string };
        return {
          role: "assistant",
          content: null,
          tool_calls: [{
            id: c.id,
            type: "function",
            function: {
              name: c.name,
              arguments: typeof c.arguments === "string"
                ? c.arguments
                : JSON.stringify(c.arguments ?? {}),
            },
          }],
        };
      }
      case "function_call_output": {
        const o = ids.get(i) as { content: string; id: string };
        return { role: "tool", tool_call_id: o.id, content: o.content };
      }
      case "image": {
        const ref = textContent(m.content).trim();
        const url = mediaDataUrl(ref, "image");
        return { role: "user", content: [{ type: "image_url", image_url: { url } }] };
      }
      case "pdf": {
        const ref = textContent(m.content).trim();
        if (isRemoteUrl(ref)) {
          throw new ScoutError(
            "invalid_input",
            `Backend "${backend}" cannot read a PDF by URL: "${ref}"`,
          );
        }
        const md = loadMedia(ref, "pdf");
        return {
          role: "user",
          content: [{
            type: "file",
            file: { filename: md.filename, file_data: `data:${md.mime};base64,${md.base64}` },
          }],
        };
      }
      default:
        return { role: m.role, content: m.content };
    }
  });
}

/**
 * Definitions as Chat Completions tools (pinned `defaults` stripped).
 *
 * @param tools definitions
 * @returns provider tools
 */
export function chatTools(tools: readonly ToolDefinition[]): Record<string, unknown>[] {
  return tools.map((t) => {
    if (!isFunctionDefinition(t)) return { ...t };
    const fn: Record<string, unknown> = { name: t.function.name };
    if (t.function.description !== undefined) fn.description = t.function.description;
    if (t.function.parameters !== undefined) {
      const { defaults: _d, ...p } = t.function.parameters;
      fn.parameters = p;
    }
    return { type: "function", function: fn };
  });
}

/**
 * Builds the request body: `reasoning.effort` → `reasoning_effort`,
 * `text.format` → `response_format` ([TS-FIX]: Ruby sends Responses-only
 * parameters); at OpenAI's own API `max_tokens` → `max_completion_tokens`
 * ([TS-FIX] R113-2, `token_limit.ts`).
 *
 * @param req the request
 * @param model model
 * @param backend backend name
 * @param baseURL the url the request goes to (none: a compatible server)
 * @returns the body
 */
export function chatBody(
  req: BackendRequest,
  model: string,
  backend = "openai",
  baseURL?: string,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    ...chatLimit(req.params, baseURL),
    model,
    messages: chatMessages(req.messages, backend),
  };
  const tools = chatTools(req.tools);
  if (tools.length) body.tools = tools;
  if (req.reasoning && req.reasoning.effort !== undefined && body.reasoning_effort === undefined) {
    body.reasoning_effort = req.reasoning.effort;
  }
  const format = req.text?.format as Record<string, unknown> | undefined;
  if (format && body.response_format === undefined) {
    if (format.type === "json_schema") {
      body.response_format = {
        type: "json_schema",
        json_schema: {
          name: format.name ?? "response",
          schema: format.schema,
          strict: format.strict,
        },
      };
      if (format.strict === undefined) {
        delete (body.response_format as { json_schema: Record<string, unknown> }).json_schema
          .strict;
      }
    } else if (format.type === "json_object") body.response_format = { type: "json_object" };
    else if (format.type !== "text" && format.type !== undefined) body.response_format = format;
  }
  return body;
}

/** Options of {@link chatReply}. */
export interface ChatReplyOptions {
  /** Backend name for errors. */
  backend?: string;
  /** Id for calls that have none (OpenWebUI). */
  missingId?: (name: string, args: unknown, index: number) => string;
}

/**
 * Processes a Chat Completions reply: `error` → thrown; no choices → typed
 * error; assistant text (kept before tool calls, [TS-FIX]) and calls (ids
 * made unique within the reply, `_<index>` added on a collision, [TS-FIX]);
 * `reasoning_content` (or `reasoning`, [TS-FIX]) → reasoning.
 *
 * @param raw the completion object
 * @param opts backend name, id fallback
 * @returns the processed reply
 */
export function chatReply(raw: unknown, opts: ChatReplyOptions = {}): BackendReply {
  const backend = opts.backend ?? "openai";
  const r = replyObject(backend, raw);
  if (r.error) {
    const e = r.error as Record<string, unknown>;
    throw responseError(backend, `reported an error: ${String(e.message ?? JSON.stringify(e))}`);
  }
  const choices = r.choices as Record<string, unknown>[] | undefined;
  const choice = Array.isArray(choices) ? choices[0] : undefined;
  if (!choice) throw responseError(backend, "sent a reply with no choices");
  const message = (choice.message ?? {}) as Record<string, unknown>;
  const items: ReplyItem[] = [];
  if (typeof message.content === "string" && message.content !== "") {
    items.push({ type: "text", text: message.content });
  }
  const calls = (message.tool_calls ?? choice.tool_calls ?? []) as Record<string, unknown>[];
  const used = new Set<string>();
  calls.forEach((c, i) => {
    const fn = (c.function ?? {}) as Record<string, unknown>;
    const name = String(fn.name ?? c.name ?? "");
    const args = parseArguments(fn.arguments ?? c.arguments);
    let id = c.id ? String(c.id) : opts.missingId ? opts.missingId(name, args, i) : `call_${i}`;
    // unique within the reply (as Ollama's ids), so each output pairs with its call
    if (used.has(id)) id = `${id}_${i}`;
    used.add(id);
    items.push({ type: "call", name, arguments: args, id });
  });
  const reply: BackendReply = { items };
  if (typeof r.id === "string") reply.id = r.id;
  if (r.usage) reply.usage = r.usage;
  const reasoning = reasoningOf(message);
  if (reasoning) reply.reasoning = reasoning;
  if (choice.finish_reason === "length") {
    reply.truncated = { reason: "finish_reason=length", limit: "max_tokens" };
  }
  return reply;
}

/**
 * Whether an assembled Chat Completions stream is the whole reply: a choice
 * finished, and then the server closed the stream with `[DONE]`, or else the
 * usage chunk (asked for with `include_usage`, sent after the finish chunk)
 * came and the read was not ended by the abort or the timeout — the SDK ends
 * its stream quietly on those, so a Ctrl-C between the finish and the usage
 * chunk looked like a whole reply without usage (R141-2). A body that ends
 * cleanly after the finish chunk with neither, unaborted, is whole as before:
 * a compatible server may send no usage and no `[DONE]`, and failing it
 * would make that server unusable for a usage figure.
 *
 * @param raw the assembled completion (null: no choice finished)
 * @param rs the request's signal
 * @param progress what the stream's body brought (`sentinel`: `[DONE]` came)
 * @returns true when the reply is whole
 */
function wholeStream(
  raw: Record<string, unknown> | null,
  rs: RequestSignal,
  progress: StreamProgress,
): raw is Record<string, unknown> {
  if (raw === null) return false;
  if (progress.sentinel === true) return true;
  return !rs.signal.aborted;
}

/**
 * Streams a Chat Completions request (`include_usage` on) and assembles the
 * reply; a stream that ends before the reply is whole ({@link wholeStream})
 * fails as {@link incompleteStreamError} says.
 *
 * @param client the ask's client
 * @param body the request body
 * @param how query context, request signal, backend name
 * @returns the completion object
 */
async function streamChat(
  client: OpenAI,
  body: Record<string, unknown>,
  how: { ctx: QueryContext; rs: RequestSignal; backend: string },
): Promise<Record<string, unknown>> {
  const { ctx, rs, backend } = how;
  const progress: StreamProgress = { events: 0, bytes: 0 };
  const stream = await countingClient(client, ctx, progress).chat.completions.create(
    // deno-lint-ignore no-explicit-any
    { ...body, stream: true, stream_options: { include_usage: true } } as any,
    { signal: rs.signal },
  ) as unknown as AsyncIterable<Record<string, unknown>>;
  let raw: Record<string, unknown> | null;
  try {
    raw = await assembleChatStream(stream, ctx.onDelta, progress, ctx.onUsage);
  } catch (e) {
    throw await incompleteStreamError(backend, rs, ctx, progress, e);
  }
  if (!wholeStream(raw, rs, progress)) {
    throw await incompleteStreamError(backend, rs, ctx, progress);
  }
  return raw;
}

/**
 * Sends a Chat Completions request through the SDK.
 *
 * @param req the request
 * @param ctx the query context
 * @param opts backend name, base url, reply options
 * @returns the processed reply
 */
export async function queryChat(
  req: BackendRequest,
  ctx: QueryContext,
  opts: ChatReplyOptions & { backend: string; baseURL: string | undefined },
): Promise<BackendReply> {
  const client = await openaiClient(ctx, opts.baseURL);
  // the client's url: the SDK's default (api.openai.com, or OPENAI_BASE_URL) when none is set
  const body = chatBody(req, ctx.settings.model, opts.backend, client.baseURL);
  const rs = requestSignal(ctx);
  let raw: unknown;
  try {
    if (!req.stream) {
      raw = await sdkJson(
        opts.backend,
        // deno-lint-ignore no-explicit-any
        client.chat.completions.create(body as any, { signal: rs.signal }),
      );
    } else {
      raw = await streamChat(client, body, { ctx, rs, backend: opts.backend });
    }
  } catch (e) {
    throw await mapSdkError(opts.backend, e, rs, ctx, req.stream, client.baseURL);
  } finally {
    rs.clear();
  }
  return chatReply(raw, opts);
}

/** The `openai` (Chat Completions) backend. */
export const openaiBackend: Backend = {
  defaults: {
    tag: "openai",
    model: "gpt-5-nano",
    urlEnv: "OPENAI_URL",
    keyEnv: ["OPENAI_KEY", "OPENAI_API_KEY"],
    modelEnv: ["OPENAI_MODEL", "MODEL"],
    url: "https://api.openai.com/v1",
    keyRequired: true,
  },
  query: (req, ctx) =>
    queryChat(req, ctx, {
      backend: "openai",
      baseURL: openaiBaseUrl(ctx.settings.url, ctx.settings.apiVersion),
    }),
};
