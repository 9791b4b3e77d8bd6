/**
 * Ollama adapter (`ollama`; `inference.md` §3.4) over plain `fetch`:
 * `POST {url}/api/chat`, JSON (`stream:false`) or NDJSON when streaming.
 * Calls carry no id, so one is derived from the name and the arguments'
 * digest string (`<name>_<md5>`, `_<index>` added on collisions, [TS-FIX]);
 * text beside tool calls is kept and usage is recorded ([TS-FIX]).
 *
 * @module
 */
import type { Message } from "../../chat/types.ts";
import { ScoutError } from "../../errors.ts";
import { isFunctionDefinition } from "../../tools/registry.ts";
import { md5hex } from "../../util/hash.ts";
import { setOwn } from "../../util/own_record.ts";
import { replyObject, responseError } from "../errors.ts";
import {
  isRemoteUrl,
  loadMedia,
  sendableMessages,
  textContent,
  toolMessageIds,
} from "../format.ts";
import { type LineEnd, lines, postJson, readReply, requestSignal } from "../http.ts";
import { chatTools } from "./openai.ts";
import { renamedLimit } from "./token_limit.ts";
import { NDJSON_STREAM } from "../stream_check.ts";
import type { Backend, BackendReply, BackendRequest, QueryContext, ReplyItem } from "../types.ts";
import { clipEnd } from "../../util/clip.ts";

/**
 * The digest string of plain JSON arguments (`workflow.md` §2.3 rules for
 * strings, numbers, booleans, null, arrays and maps; strings are never
 * treated as file names here, so ids do not depend on the disk).
 *
 * @param v a JSON value
 * @returns the digest string
 *
 * @example
 * ```ts
 * import { argumentDigest } from "./ollama.ts";
 * argumentDigest({ location: "London", unit: "Celsius" }); // "{location=London, unit=Celsius}"
 * ```
 */
export function argumentDigest(v: unknown): string {
  if (v === null || v === undefined) return "nil";
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return String(v);
  if (typeof v === "number") {
    if (Number.isInteger(v)) return String(v);
    const a = Math.abs(v);
    return a > 10 ? v.toFixed(1) : a > 1 ? v.toFixed(3) : v.toFixed(6);
  }
  const join = (parts: string[]) => {
    let acc = "";
    for (const p of parts) acc = acc === "" ? p : acc + ", " + p;
    return acc;
  };
  if (Array.isArray(v)) return "[" + join(v.map(argumentDigest)) + "]";
  if (typeof v === "object") {
    return "{" + join(Object.entries(v).map(([k, x]) => `${k}=${argumentDigest(x)}`)) + "}";
  }
  return String(v);
}

/**
 * Formats messages for `/api/chat`.
 *
 * @param messages compiled messages
 * @returns Ollama messages
 * @throws ScoutError `invalid_input` for PDFs (not supported by Ollama)
 */
export function ollamaMessages(messages: readonly Message[]): Record<string, unknown>[] {
  const sendable = sendableMessages(messages).filter((m) => m.role !== "websearch");
  const ids = toolMessageIds(sendable);
  return sendable.map((m, i) => {
    switch (m.role) {
      case "function_call": {
        const c = ids.get(i) as { name: string; arguments: unknown };
        const args = typeof c.arguments === "object" && c.arguments !== null ? c.arguments : {};
        return {
          role: "assistant",
          content: "",
          tool_calls: [{ type: "function", function: { name: c.name, arguments: args } }],
        };
      }
      case "function_call_output": {
        const o = ids.get(i) as { content: string; name?: string };
        const msg: Record<string, unknown> = { role: "tool", content: o.content };
        if (o.name) msg.tool_name = o.name;
        return msg;
      }
      case "image": {
        const ref = textContent(m.content).trim();
        if (isRemoteUrl(ref)) {
          throw new ScoutError(
            "invalid_input",
            `Backend "ollama" needs local images, not a URL: "${ref}"`,
          );
        }
        return { role: "user", content: "", images: [loadMedia(ref, "image").base64] };
      }
      case "pdf":
        throw new ScoutError(
          "invalid_input",
          `Backend "ollama" cannot read PDFs: "${textContent(m.content)}"`,
        );
      default:
        return { role: m.role, content: textContent(m.content) };
    }
  });
}

const TOP_LEVEL = new Set([
  "format",
  "keep_alive",
  "think",
  "options",
  "tools",
  "stream",
  "template",
  "raw",
]);

/**
 * Builds the request body. Sampling parameters (`temperature`, `num_ctx`…) go
 * into `options`, where Ollama reads them, `max_tokens` as `num_predict` (a
 * given `num_predict` wins); `text.format` → `format`.
 *
 * @param req the request
 * @param model model
 * @returns the body
 */
export function ollamaBody(req: BackendRequest, model: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model,
    messages: ollamaMessages(req.messages),
    stream: req.stream,
  };
  const options: Record<string, unknown> = {};
  // defined, not assigned: a parameter `__proto__` is sent as any, under Bun too
  for (const [k, v] of Object.entries(req.params)) setOwn(TOP_LEVEL.has(k) ? body : options, k, v);
  if (Object.keys(options).length) {
    const merged = { ...options, ...(body.options as Record<string, unknown> | undefined) };
    // Ollama's limit is num_predict; it ignores an unknown max_tokens ([TS-FIX] R113-2)
    body.options = renamedLimit(merged, "num_predict");
  }
  const tools = chatTools(req.tools.filter(isFunctionDefinition));
  if (tools.length) body.tools = tools;
  const format = req.text?.format as Record<string, unknown> | undefined;
  if (format && body.format === undefined) {
    if (format.type === "json_schema" && format.schema) body.format = format.schema;
    else if (format.type === "json_object") body.format = "json";
  }
  return body;
}

/**
 * Processes a (possibly assembled) `/api/chat` reply.
 *
 * @param raw the reply object
 * @returns the processed reply; usage as `{prompt_tokens, completion_tokens}`
 */
export function ollamaReply(raw: unknown): BackendReply {
  const r = replyObject("ollama", raw);
  if (typeof r.error === "string") throw responseError("ollama", `reported an error: ${r.error}`);
  const message = r.message as Record<string, unknown> | undefined;
  if (!message) throw responseError("ollama", "sent a reply without a message");
  const items: ReplyItem[] = [];
  if (typeof message.content === "string" && message.content !== "") {
    items.push({ type: "text", text: message.content });
  }
  const used = new Set<string>();
  ((message.tool_calls ?? []) as Record<string, unknown>[]).forEach((tc, i) => {
    const fn = (tc.function ?? {}) as Record<string, unknown>;
    const name = String(fn.name ?? "");
    let args = fn.arguments ?? {};
    if (typeof args === "string") {
      try {
        args = JSON.parse(args);
      } catch { /* kept as text: reported to the model */ }
    }
    let id = typeof tc.id === "string" && tc.id ? tc.id : `${name}_${md5hex(argumentDigest(args))}`;
    if (used.has(id)) id = `${id}_${i}`;
    used.add(id);
    items.push({ type: "call", name, arguments: args, id });
  });
  const reply: BackendReply = { items };
  const usage: Record<string, number> = {};
  if (typeof r.prompt_eval_count === "number") usage.prompt_tokens = r.prompt_eval_count;
  if (typeof r.eval_count === "number") usage.completion_tokens = r.eval_count;
  if (Object.keys(usage).length) reply.usage = usage;
  if (typeof message.thinking === "string" && message.thinking) reply.reasoning = message.thinking;
  if (r.done_reason === "length") {
    reply.truncated = { reason: "done_reason=length", limit: "num_predict" };
  }
  return reply;
}

/**
 * Assembles an NDJSON stream into one reply object.
 *
 * @param body response body
 * @param onDelta receives content deltas
 * @param progress counts the lines received
 * @returns the reply, or null when no `done: true` line arrived (or the body
 *   ended inside its last line)
 */
export async function assembleOllamaStream(
  body: ReadableStream<Uint8Array>,
  onDelta?: (text: string) => void,
  progress?: { events: number },
): Promise<Record<string, unknown> | null> {
  let content = "";
  let thinking = "";
  const toolCalls: unknown[] = [];
  const end: LineEnd = { open: false };
  for await (const line of lines(body, end)) {
    if (line.trim() === "") continue;
    let chunk: Record<string, unknown>;
    try {
      chunk = JSON.parse(line);
    } catch (e) {
      // the body ended inside this line: the stream was cut, not malformed
      if (end.open) return null;
      throw responseError(
        "ollama",
        `sent malformed JSON in its stream: ${clipEnd(line, 100, "")}`,
        e,
      );
    }
    if (progress) progress.events++;
    if (typeof chunk.error === "string") {
      throw responseError("ollama", `reported an error: ${chunk.error}`);
    }
    const m = (chunk.message ?? {}) as Record<string, unknown>;
    if (typeof m.content === "string" && m.content !== "") {
      content += m.content;
      onDelta?.(m.content);
    }
    if (typeof m.thinking === "string") thinking += m.thinking;
    if (Array.isArray(m.tool_calls)) toolCalls.push(...m.tool_calls);
    if (chunk.done === true) {
      const message: Record<string, unknown> = { role: "assistant", content };
      if (toolCalls.length) message.tool_calls = toolCalls;
      if (thinking) message.thinking = thinking;
      return { ...chunk, message };
    }
  }
  return null;
}

async function query(req: BackendRequest, ctx: QueryContext): Promise<BackendReply> {
  const body = ollamaBody(req, ctx.settings.model);
  const base = (ctx.settings.url ?? "http://localhost:11434").replace(/\/+$/, "");
  const headers: Record<string, string> = {};
  if (ctx.settings.key && ctx.settings.key !== "EMPTY") {
    headers.authorization = `Bearer ${ctx.settings.key}`;
  }
  const rs = requestSignal(ctx);
  let raw: unknown;
  try {
    const res = await postJson("ollama", `${base}/api/chat`, body, { headers, ctx, rs });
    raw = await readReply("ollama", res, {
      ctx,
      rs,
      ...(req.stream
        ? { stream: NDJSON_STREAM, assemble: (b, p) => assembleOllamaStream(b, ctx.onDelta, p) }
        : {}),
    });
  } finally {
    rs.clear();
  }
  return ollamaReply(raw);
}

/** The `ollama` backend. */
export const ollamaBackend: Backend = {
  defaults: {
    tag: "ollama",
    model: "llama3.1",
    urlEnv: "OLLAMA_URL",
    keyEnv: ["OLLAMA_KEY"],
    modelEnv: ["OLLAMA_MODEL", "MODEL"],
    url: "http://localhost:11434",
  },
  query,
};
