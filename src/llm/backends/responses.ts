/**
 * OpenAI Responses API adapter (`responses`, the default backend;
 * `inference.md` §3.1): pure request formatting and reply processing, and the
 * query through the `openai` SDK (streaming events when asked).
 *
 * @module
 */
import type { Message } from "../../chat/types.ts";
import { parseArguments } from "../../tools/calls.ts";
import { isFunctionDefinition } from "../../tools/registry.ts";
import type { ToolDefinition } from "../../tools/types.ts";
import { replyObject, reportedErrorOf, responseError } from "../errors.ts";
import {
  DIRECTIVE_ROLES,
  isRemoteUrl,
  loadMedia,
  mediaDataUrl,
  textContent,
  toolMessageIds,
} from "../format.ts";
import { requestSignal } from "../http.ts";
import type { Backend, BackendReply, BackendRequest, QueryContext, ReplyItem } from "../types.ts";
import {
  countingClient,
  incompleteStreamError,
  mapSdkError,
  openaiBaseUrl,
  openaiClient,
  sdkJson,
} from "./openai_sdk.ts";
import { readResponsesStream } from "./responses_stream.ts";
import { renamedLimit } from "./token_limit.ts";

/** A `function_call` input item (the call id without its `fc_` prefix). */
function functionCallItem(c: { name: string; arguments: unknown; id: string }) {
  return {
    type: "function_call",
    status: "completed",
    name: c.name,
    arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? {}),
    call_id: c.id.replace(/^fc_/, ""),
  };
}

/** A `function_call_output` input item. */
function functionOutputItem(o: { content: string; id: string }) {
  return { type: "function_call_output", output: o.content, call_id: o.id.replace(/^fc_/, "") };
}

/** An image as a user `input_image` (a url as is, a file as a data url). */
function imageItem(m: Message) {
  const ref = textContent(m.content).trim();
  const url = mediaDataUrl(ref, "image");
  return { role: "user", content: [{ type: "input_image", image_url: url }] };
}

/** A PDF as a user `input_file` (a url as is, a file as data with its name). */
function pdfItem(m: Message) {
  const ref = textContent(m.content).trim();
  if (isRemoteUrl(ref)) return { role: "user", content: [{ type: "input_file", file_url: ref }] };
  const md = loadMedia(ref, "pdf");
  return {
    role: "user",
    content: [{
      type: "input_file",
      file_data: `data:${md.mime};base64,${md.base64}`,
      filename: md.filename,
    }],
  };
}

/** The input item of one sendable message other than `websearch`; `tool` is its call or output. */
function inputItem(m: Message, tool: unknown): Record<string, unknown> {
  switch (m.role) {
    case "function_call":
      return functionCallItem(tool as { name: string; arguments: unknown; id: string });
    case "function_call_output":
      return functionOutputItem(tool as { content: string; id: string });
    case "image":
      return imageItem(m);
    case "pdf":
      return pdfItem(m);
    default:
      return { role: m.role, content: m.content };
  }
}

/**
 * Formats messages as Responses input items, and hosted tools found in the
 * messages (`websearch`, leftover `tool` items).
 *
 * @param messages compiled messages (directives are skipped)
 * @returns input items and extra tools
 */
export function responsesInput(
  messages: readonly Message[],
): { input: Record<string, unknown>[]; tools: ToolDefinition[] } {
  const sendable = messages.filter((m) =>
    m.role === "websearch" || (!DIRECTIVE_ROLES.has(m.role) && m.content !== "")
  );
  const ids = toolMessageIds(sendable);
  const input: Record<string, unknown>[] = [];
  const tools: ToolDefinition[] = [];
  sendable.forEach((m, i) => {
    if (m.role === "websearch") tools.push({ type: "web_search_preview" });
    else input.push(inputItem(m, ids.get(i)));
  });
  return { input, tools };
}

/**
 * Flattens definitions to the Responses shape `{type:"function", name,
 * description, parameters}` with pinned `defaults` stripped; hosted tools pass
 * unchanged. Never mutates its input (§5.3).
 *
 * @param tools definitions
 * @returns provider tools
 */
export function responsesTools(tools: readonly ToolDefinition[]): Record<string, unknown>[] {
  return tools.map((t) => {
    if (!isFunctionDefinition(t)) return { ...t };
    const { name, description, parameters } = t.function;
    const out: Record<string, unknown> = { type: "function", name };
    if (description !== undefined) out.description = description;
    if (parameters !== undefined) {
      const { defaults: _d, ...p } = parameters;
      out.parameters = p;
    }
    return out;
  });
}

/**
 * Builds the request body of `responses.create`. `max_tokens` is sent as
 * `max_output_tokens`, the API's only name for it ([TS-FIX] R113-2,
 * `token_limit.ts`; a given `max_output_tokens` wins).
 *
 * @param req the request
 * @param model model name
 * @returns the body
 */
export function responsesBody(req: BackendRequest, model: string): Record<string, unknown> {
  const { input, tools: hosted } = responsesInput(req.messages);
  const tools = [...responsesTools(req.tools), ...hosted];
  const body: Record<string, unknown> = {
    ...renamedLimit(req.params, "max_output_tokens"),
    model,
    input,
  };
  if (tools.length) body.tools = tools;
  if (req.reasoning) body.reasoning = req.reasoning;
  if (req.text) body.text = req.text;
  if (req.previousResponseId) body.previous_response_id = req.previousResponseId;
  return body;
}

/**
 * The texts of a `reasoning` item: its `summary` texts (OpenAI), else its
 * `content` texts of type `reasoning_text` (vLLM sends `summary: []`).
 *
 * @param item the output item
 * @returns the texts
 */
export function reasoningTexts(item: Record<string, unknown>): string[] {
  const texts = (list: unknown, type?: string) =>
    (Array.isArray(list) ? list as Record<string, unknown>[] : [])
      .filter((p) => typeof p?.text === "string" && (type === undefined || p.type === type))
      .map((p) => p.text as string);
  const summary = texts(item.summary);
  return summary.length ? summary : texts(item.content, "reasoning_text");
}

/** Options of {@link responsesReply}. */
export interface ResponsesReplyOptions {
  /** Backend name for errors. */
  backend?: string;
  /** Rewrites tool names (vLLM's channel cleanup). */
  toolName?: (name: string) => string;
  /** Receives warnings about skipped items. */
  warn?: (message: string) => void;
}

/**
 * Processes a Responses reply (§3.1 table): `message` → one text per
 * `output_text`; `function_call` → a call; `mcp_call` → an already-run pair
 * ([TS-FIX]); `image_generation_call` → an `image` message; `reasoning` and
 * `web_search_call` skipped; unknown items skipped with a warning ([TS-FIX]).
 *
 * @param raw the response object
 * @param opts backend name, tool-name rewrite, warning sink
 * @returns the processed reply
 */
export function responsesReply(raw: unknown, opts: ResponsesReplyOptions = {}): BackendReply {
  const backend = opts.backend ?? "responses";
  const r = replyObject(backend, raw);
  if (r.error && typeof r.error === "object") throw reportedErrorOf(backend, r.error);
  if (!Array.isArray(r.output)) throw responseError(backend, "sent a reply without an output list");
  const items: ReplyItem[] = [];
  const reasoning: string[] = [];
  const rename = opts.toolName ?? ((n: string) => n);
  for (const item of r.output as Record<string, unknown>[]) {
    switch (item?.type) {
      case "message":
        for (const part of (item.content as Record<string, unknown>[] | undefined) ?? []) {
          if (part?.type === "output_text" && typeof part.text === "string") {
            items.push({ type: "text", text: part.text });
          }
        }
        break;
      case "function_call":
        items.push({
          type: "call",
          name: rename(String(item.name)),
          arguments: parseArguments(item.arguments),
          id: String(item.call_id ?? item.id),
        });
        break;
      case "mcp_call":
        items.push({
          type: "hosted_call",
          name: String(item.name),
          arguments: parseArguments(item.arguments),
          id: String(item.id ?? item.call_id),
          output: textContent(item.output ?? item.error ?? ""),
        });
        break;
      case "image_generation_call":
        items.push({ type: "message", message: { role: "image", content: item } });
        break;
      case "reasoning":
        reasoning.push(...reasoningTexts(item));
        break;
      case "web_search_call":
        break;
      default:
        opts.warn?.(`Skipping unknown Responses output item "${String(item?.type)}"`);
    }
  }
  const reply: BackendReply = { items };
  if (typeof r.id === "string") reply.id = r.id;
  if (r.usage !== undefined && r.usage !== null) reply.usage = r.usage;
  if (reasoning.length) reply.reasoning = reasoning.join(" ");
  const cut = (r.incomplete_details as Record<string, unknown> | null | undefined)?.reason;
  if (r.status === "incomplete" && cut === "max_output_tokens") {
    reply.truncated = {
      reason: "status=incomplete, incomplete_details.reason=max_output_tokens",
      limit: "max_output_tokens",
    };
  }
  return reply;
}

/**
 * Sends a Responses request through the SDK (shared with `vllm`).
 *
 * @param req the request
 * @param ctx the query context
 * @param opts backend name and reply options
 * @returns the processed reply
 */
export async function queryResponses(
  req: BackendRequest,
  ctx: QueryContext,
  opts: ResponsesReplyOptions & { backend: string },
): Promise<BackendReply> {
  const body = responsesBody(req, ctx.settings.model);
  const client = await openaiClient(ctx, openaiBaseUrl(ctx.settings.url, ctx.settings.apiVersion));
  const rs = requestSignal(ctx);
  let raw: unknown;
  try {
    if (!req.stream) {
      raw = await sdkJson(
        opts.backend,
        // deno-lint-ignore no-explicit-any
        client.responses.create(body as any, { signal: rs.signal }),
      );
    } else {
      const progress = { events: 0, bytes: 0 };
      const stream = await countingClient(client, ctx, progress).responses.create(
        // deno-lint-ignore no-explicit-any
        { ...body, stream: true } as any,
        { signal: rs.signal },
      ) as unknown as AsyncIterable<Record<string, unknown>>;
      try {
        raw = await readResponsesStream(stream, ctx, opts.backend, progress);
      } catch (e) {
        throw await incompleteStreamError(opts.backend, rs, ctx, progress, e);
      }
      if (raw === undefined) throw await incompleteStreamError(opts.backend, rs, ctx, progress);
    }
  } catch (e) {
    throw await mapSdkError(opts.backend, e, rs, ctx, req.stream, client.baseURL);
  } finally {
    rs.clear();
  }
  const warn = opts.warn ?? ctx.warn;
  return responsesReply(raw, { ...opts, ...(warn ? { warn } : {}) });
}

/** The `responses` backend. */
export const responsesBackend: Backend = {
  defaults: {
    tag: "responses",
    model: "gpt-5-nano",
    urlEnv: "RESPONSES_URL",
    keyEnv: ["RESPONSES_KEY", "OPENAI_API_KEY"],
    modelEnv: ["RESPONSES_MODEL", "MODEL"],
    url: "https://api.openai.com/v1",
    keyRequired: true,
  },
  threading: true,
  query: (req, ctx) => queryResponses(req, ctx, { backend: "responses" }),
};
