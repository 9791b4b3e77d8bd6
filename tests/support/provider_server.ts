/**
 * A loopback provider server for tests, demos and benches. It speaks each
 * protocol the backends use, faithfully enough for the real clients (the
 * `openai` SDK, our fetch adapters):
 *
 * - OpenAI Chat Completions `POST …/chat/completions`, JSON or SSE (chunks,
 *   tool-call deltas, `stream_options.include_usage`, `[DONE]`);
 * - OpenAI Responses `POST …/responses`, JSON or SSE events, remembering every
 *   response so `previous_response_id` must name a known one (400 otherwise);
 * - Anthropic Messages `POST …/messages`, JSON or SSE (`message_start` …
 *   `message_stop`, `tool_use` with `input_json_delta`); requires `x-api-key`
 *   and `anthropic-version`;
 * - Ollama `POST /api/chat`, JSON or NDJSON.
 *
 * Replies come from a script (FIFO, one step per request) or a handler:
 * texts, tool calls, usage blocks, ids, reasoning, and faults — an HTTP status
 * with `retry-after`, malformed JSON, a stream cut mid-way, a slow first byte.
 * It binds 127.0.0.1 on a free port only. Every request is recorded.
 *
 * Run standalone for demos/benches:
 * `tools/deno run -A tests/support/provider_server.ts [--port N] [--script steps.json] [--echo]`
 * (prints the base url; `--echo` answers every request with the last user text).
 */

/** A tool call the scripted model makes. */
export interface ScriptToolCall {
  name: string;
  arguments: Record<string, unknown> | string;
  id?: string;
}

/** Token usage in short keys; rendered in each protocol's shape. */
export interface ScriptUsage {
  pt?: number;
  ct?: number;
  cct?: number;
  cwt?: number;
  rt?: number;
}

/** One scripted reply (one HTTP request). */
export interface ScriptStep {
  /** Answer text; an array gives the stream chunks explicitly. */
  text?: string | string[];
  /** Tool calls (after the text). */
  toolCalls?: ScriptToolCall[];
  /** Usage (default `{pt: 10, ct: 5}`); `null` sends none. */
  usage?: ScriptUsage | null;
  /** Response id (generated otherwise). */
  id?: string;
  /** Reasoning text (Chat `reasoning_content`, Anthropic `thinking`, Responses summary). */
  reasoning?: string;
  /** Extra raw output items appended to a Responses reply (e.g. `mcp_call`). */
  extraItems?: Record<string, unknown>[];
  /** Answer with this HTTP status and a protocol-shaped error body. */
  status?: number;
  /** `retry-after` header (seconds) for error statuses. */
  retryAfter?: number;
  /** Error message for `status`. */
  message?: string;
  /** 200 with a body that is not valid JSON. */
  malformed?: boolean;
  /** Stream only: send this many events/chunks, then reset the connection. */
  cutAfter?: number;
  /** Delay before the first byte (headers), ms. */
  delayMs?: number;
  /** Delay between stream chunks, ms. */
  chunkDelayMs?: number;
  /** Send this JSON body as is (status 200), e.g. `{choices: []}`. */
  raw?: unknown;
}

/** A recorded request. */
export interface RecordedRequest {
  protocol: Protocol;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  stream: boolean;
  /** `performance.now()` when the request arrived. */
  receivedAt: number;
  /** `performance.now()` when the first response byte was written. */
  firstByteAt?: number;
}

/** Protocols spoken. */
export type Protocol = "chat" | "responses" | "anthropic" | "ollama";

/** A running server. */
export interface ProviderServer extends AsyncDisposable {
  /** Base url, e.g. `http://127.0.0.1:41234` (no trailing slash, no `/v1`). */
  url: string;
  /** Port. */
  port: number;
  /** Requests received so far. */
  requests: RecordedRequest[];
  /** Appends steps to the script. */
  script(...steps: ScriptStep[]): void;
  /** Steps not used yet. */
  pending(): number;
  /** Stops the server. */
  close(): Promise<void>;
}

/** Options of {@link startProviderServer}. */
export interface ProviderServerOptions {
  /** Initial script. */
  script?: ScriptStep[];
  /** Reply for requests when the script is empty (default: HTTP 500 "script exhausted"). */
  fallback?: (req: RecordedRequest) => ScriptStep;
  /** Port (default 0: a free one). */
  port?: number;
}

const enc = new TextEncoder();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function protocolOf(path: string): Protocol | null {
  if (path.endsWith("/chat/completions")) return "chat";
  if (path.endsWith("/responses")) return "responses";
  if (path === "/api/chat") return "ollama";
  if (path.endsWith("/messages")) return "anthropic";
  return null;
}

function chunksOf(text: string | string[] | undefined): string[] {
  if (text === undefined) return [];
  if (Array.isArray(text)) return text;
  if (text === "") return [];
  return text.match(/\S+\s*|\s+/g) ?? [text];
}

function argsText(a: ScriptToolCall["arguments"]): string {
  return typeof a === "string" ? a : JSON.stringify(a);
}

function argsObject(a: ScriptToolCall["arguments"]): unknown {
  if (typeof a !== "string") return a;
  try {
    return JSON.parse(a);
  } catch {
    return a;
  }
}

function usageFor(p: Protocol, u: ScriptUsage | null | undefined): Record<string, unknown> | null {
  if (u === null) return null;
  const { pt = 10, ct = 5, cct, cwt, rt } = u ?? {};
  switch (p) {
    case "chat": {
      const o: Record<string, unknown> = {
        prompt_tokens: pt,
        completion_tokens: ct,
        total_tokens: pt + ct,
      };
      if (cct !== undefined) o.prompt_tokens_details = { cached_tokens: cct };
      if (rt !== undefined) o.completion_tokens_details = { reasoning_tokens: rt };
      return o;
    }
    case "responses": {
      const o: Record<string, unknown> = { input_tokens: pt };
      o.input_tokens_details = {
        cached_tokens: cct ?? 0,
        ...(cwt !== undefined ? { cache_write_tokens: cwt } : {}),
      };
      o.output_tokens = ct;
      o.output_tokens_details = { reasoning_tokens: rt ?? 0 };
      o.total_tokens = pt + ct;
      return o;
    }
    case "anthropic":
      return {
        input_tokens: pt,
        output_tokens: ct,
        cache_read_input_tokens: cct ?? 0,
        cache_creation_input_tokens: cwt ?? 0,
      };
    case "ollama":
      return { prompt_eval_count: pt, eval_count: ct };
  }
}

function errorBody(p: Protocol, status: number, message: string): unknown {
  if (p === "anthropic") {
    const type = status === 429
      ? "rate_limit_error"
      : status >= 500
      ? "api_error"
      : "invalid_request_error";
    return { type: "error", error: { type, message } };
  }
  if (p === "ollama") return { error: message };
  return {
    error: { message, type: status === 429 ? "rate_limit_exceeded" : "server_error", code: null },
  };
}

/** One streamed piece: SSE event (name + JSON) or an NDJSON line or raw text. */
type Piece = { event?: string; data: unknown } | { raw: string };

function ssePiece(p: Piece): string {
  if ("raw" in p) return p.raw;
  const data = typeof p.data === "string" ? p.data : JSON.stringify(p.data);
  return (p.event ? `event: ${p.event}\n` : "") + `data: ${data}\n\n`;
}

/** Builds replies per protocol; keeps the Responses store and id counters. */
class Replies {
  n = 0;
  stored = new Map<string, unknown>();

  nextId(prefix: string): string {
    return `${prefix}${String(++this.n).padStart(3, "0")}`;
  }

  chat(step: ScriptStep, body: Record<string, unknown>): { json: unknown; pieces: Piece[] } {
    const id = step.id ?? this.nextId("chatcmpl-");
    const model = String(body.model ?? "test");
    const calls = (step.toolCalls ?? []).map((c) => ({ ...c, id: c.id ?? this.nextId("call_") }));
    const text = chunksOf(step.text).join("");
    const message: Record<string, unknown> = { role: "assistant", content: text || null };
    if (step.reasoning) message.reasoning_content = step.reasoning;
    if (calls.length) {
      message.tool_calls = calls.map((c) => ({
        id: c.id,
        type: "function",
        function: { name: c.name, arguments: argsText(c.arguments) },
      }));
    }
    const finish = calls.length ? "tool_calls" : "stop";
    const usage = usageFor("chat", step.usage);
    const json: Record<string, unknown> = {
      id,
      object: "chat.completion",
      created: 1735689600,
      model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
    };
    if (usage) json.usage = usage;
    const base = { id, object: "chat.completion.chunk", created: 1735689600, model };
    const chunk = (delta: unknown, finish_reason: string | null = null) => ({
      data: { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason }] },
    });
    const pieces: Piece[] = [chunk({ role: "assistant", content: "" })];
    if (step.reasoning) pieces.push(chunk({ reasoning_content: step.reasoning }));
    for (const c of chunksOf(step.text)) pieces.push(chunk({ content: c }));
    calls.forEach((c, index) => {
      const args = argsText(c.arguments);
      const half = Math.floor(args.length / 2);
      pieces.push(chunk({
        tool_calls: [{
          index,
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: "" },
        }],
      }));
      pieces.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, half) } }] }));
      pieces.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }));
    });
    pieces.push(chunk({}, finish));
    const so = body.stream_options as Record<string, unknown> | undefined;
    if (so?.include_usage && usage) pieces.push({ data: { ...base, choices: [], usage } });
    pieces.push({ data: "[DONE]" });
    return { json, pieces };
  }

  responses(step: ScriptStep, body: Record<string, unknown>): { json: unknown; pieces: Piece[] } {
    const id = step.id ?? this.nextId("resp_");
    const model = String(body.model ?? "test");
    const output: Record<string, unknown>[] = [];
    if (step.reasoning) {
      output.push({
        type: "reasoning",
        id: this.nextId("rs_"),
        summary: [{ type: "summary_text", text: step.reasoning }],
      });
    }
    const text = chunksOf(step.text).join("");
    if (text) {
      output.push({
        type: "message",
        id: this.nextId("msg_"),
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text, annotations: [] }],
      });
    }
    for (const c of step.toolCalls ?? []) {
      output.push({
        type: "function_call",
        id: this.nextId("fc_"),
        call_id: c.id ?? this.nextId("call_"),
        name: c.name,
        arguments: argsText(c.arguments),
        status: "completed",
      });
    }
    output.push(...(step.extraItems ?? []));
    const usage = usageFor("responses", step.usage);
    const json: Record<string, unknown> = {
      id,
      object: "response",
      created_at: 1735689600,
      status: "completed",
      model,
      output,
      previous_response_id: body.previous_response_id ?? null,
      usage,
    };
    this.stored.set(id, json);
    let seq = 0;
    const ev = (type: string, rest: Record<string, unknown>): Piece => ({
      event: type,
      data: { type, sequence_number: seq++, ...rest },
    });
    const shell = { ...json, status: "in_progress", output: [], usage: null };
    const pieces: Piece[] = [
      ev("response.created", { response: shell }),
      ev("response.in_progress", { response: shell }),
    ];
    output.forEach((item, output_index) => {
      if (item.type === "message") {
        const item_id = item.id;
        pieces.push(
          ev("response.output_item.added", {
            output_index,
            item: { ...item, status: "in_progress", content: [] },
          }),
        );
        pieces.push(ev("response.content_part.added", {
          item_id,
          output_index,
          content_index: 0,
          part: { type: "output_text", text: "", annotations: [] },
        }));
        for (const delta of chunksOf(step.text)) {
          pieces.push(
            ev("response.output_text.delta", {
              item_id,
              output_index,
              content_index: 0,
              delta,
              logprobs: [],
            }),
          );
        }
        pieces.push(
          ev("response.output_text.done", {
            item_id,
            output_index,
            content_index: 0,
            text,
            logprobs: [],
          }),
        );
        pieces.push(ev("response.content_part.done", {
          item_id,
          output_index,
          content_index: 0,
          part: { type: "output_text", text, annotations: [] },
        }));
      } else if (item.type === "function_call") {
        pieces.push(
          ev("response.output_item.added", {
            output_index,
            item: { ...item, arguments: "", status: "in_progress" },
          }),
        );
        pieces.push(
          ev("response.function_call_arguments.delta", {
            item_id: item.id,
            output_index,
            delta: item.arguments,
          }),
        );
        pieces.push(
          ev("response.function_call_arguments.done", {
            item_id: item.id,
            output_index,
            arguments: item.arguments,
          }),
        );
      } else {
        pieces.push(ev("response.output_item.added", { output_index, item }));
      }
      pieces.push(ev("response.output_item.done", { output_index, item }));
    });
    pieces.push(ev("response.completed", { response: json }));
    return { json, pieces };
  }

  anthropic(step: ScriptStep, body: Record<string, unknown>): { json: unknown; pieces: Piece[] } {
    const id = step.id ?? this.nextId("msg_");
    const model = String(body.model ?? "test");
    const content: Record<string, unknown>[] = [];
    if (step.reasoning) {
      content.push({ type: "thinking", thinking: step.reasoning, signature: "sig" });
    }
    const text = chunksOf(step.text).join("");
    if (text) content.push({ type: "text", text });
    for (const c of step.toolCalls ?? []) {
      content.push({
        type: "tool_use",
        id: c.id ?? this.nextId("toolu_"),
        name: c.name,
        input: argsObject(c.arguments),
      });
    }
    const usage = usageFor("anthropic", step.usage) ?? { input_tokens: 0, output_tokens: 0 };
    const stop = step.toolCalls?.length ? "tool_use" : "end_turn";
    const json = {
      id,
      type: "message",
      role: "assistant",
      model,
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage,
    };
    const pieces: Piece[] = [{
      event: "message_start",
      data: {
        type: "message_start",
        message: { ...json, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
      },
    }];
    content.forEach((b, index) => {
      const start = b.type === "text"
        ? { type: "text", text: "" }
        : b.type === "thinking"
        ? { type: "thinking", thinking: "" }
        : { ...b, input: {} };
      pieces.push({
        event: "content_block_start",
        data: { type: "content_block_start", index, content_block: start },
      });
      if (index === 0) pieces.push({ event: "ping", data: { type: "ping" } });
      if (b.type === "text") {
        for (const t of chunksOf(step.text)) {
          pieces.push({
            event: "content_block_delta",
            data: { type: "content_block_delta", index, delta: { type: "text_delta", text: t } },
          });
        }
      } else if (b.type === "thinking") {
        pieces.push({
          event: "content_block_delta",
          data: {
            type: "content_block_delta",
            index,
            delta: { type: "thinking_delta", thinking: b.thinking },
          },
        });
      } else {
        const js = JSON.stringify(b.input);
        const half = Math.floor(js.length / 2);
        for (const part of [js.slice(0, half), js.slice(half)]) {
          pieces.push({
            event: "content_block_delta",
            data: {
              type: "content_block_delta",
              index,
              delta: { type: "input_json_delta", partial_json: part },
            },
          });
        }
      }
      pieces.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
    });
    pieces.push({
      event: "message_delta",
      data: {
        type: "message_delta",
        delta: { stop_reason: stop, stop_sequence: null },
        usage: { output_tokens: usage.output_tokens },
      },
    });
    pieces.push({ event: "message_stop", data: { type: "message_stop" } });
    return { json, pieces };
  }

  ollama(step: ScriptStep, body: Record<string, unknown>): { json: unknown; pieces: Piece[] } {
    const model = String(body.model ?? "test");
    const created_at = "2025-01-01T00:00:00.000Z";
    const text = chunksOf(step.text).join("");
    const calls = (step.toolCalls ?? []).map((c) => ({
      function: { name: c.name, arguments: argsObject(c.arguments) },
    }));
    const message: Record<string, unknown> = { role: "assistant", content: text };
    if (step.reasoning) message.thinking = step.reasoning;
    if (calls.length) message.tool_calls = calls;
    const usage = usageFor("ollama", step.usage) ?? {};
    const done = {
      done: true,
      done_reason: "stop",
      total_duration: 1000,
      load_duration: 10,
      ...usage,
    };
    const json = { model, created_at, message, ...done };
    const pieces: Piece[] = [];
    for (const t of chunksOf(step.text)) {
      pieces.push({
        raw: JSON.stringify({
          model,
          created_at,
          message: { role: "assistant", content: t },
          done: false,
        }) + "\n",
      });
    }
    if (calls.length) {
      pieces.push({
        raw: JSON.stringify({
          model,
          created_at,
          message: { role: "assistant", content: "", tool_calls: calls },
          done: false,
        }) + "\n",
      });
    }
    pieces.push({
      raw: JSON.stringify({
        model,
        created_at,
        message: { role: "assistant", content: "" },
        ...done,
      }) + "\n",
    });
    return { json, pieces };
  }
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/**
 * Starts the server on 127.0.0.1 (free port unless `opts.port`).
 *
 * @param opts initial script and fallback
 * @returns the running server (`await using` closes it)
 */
export function startProviderServer(opts: ProviderServerOptions = {}): Promise<ProviderServer> {
  const queue: ScriptStep[] = [...(opts.script ?? [])];
  const requests: RecordedRequest[] = [];
  const replies = new Replies();

  const handle = async (req: Request): Promise<Response> => {
    const path = new URL(req.url).pathname;
    const protocol = protocolOf(path);
    if (req.method !== "POST" || protocol === null) {
      return json(404, { error: { message: `No route for ${req.method} ${path}` } });
    }
    let body: Record<string, unknown>;
    try {
      body = await req.json();
    } catch {
      return json(400, errorBody(protocol, 400, "Request body is not JSON"));
    }
    const headers: Record<string, string> = {};
    req.headers.forEach((v, k) => (headers[k] = v));
    const rec: RecordedRequest = {
      protocol,
      path,
      headers,
      body,
      stream: body.stream === true,
      receivedAt: performance.now(),
    };
    requests.push(rec);
    const step = queue.shift() ?? opts.fallback?.(rec) ??
      { status: 500, message: "Provider script exhausted: no reply scripted for this request" };
    if (step.delayMs) await sleep(step.delayMs);
    const mark = <T>(x: T): T => {
      rec.firstByteAt ??= performance.now();
      return x;
    };

    if (protocol === "anthropic" && (!headers["x-api-key"] || !headers["anthropic-version"])) {
      return mark(
        json(401, errorBody(protocol, 401, "Missing x-api-key or anthropic-version header")),
      );
    }
    if (
      protocol === "responses" && body.previous_response_id !== undefined &&
      !replies.stored.has(String(body.previous_response_id))
    ) {
      return mark(
        json(
          400,
          errorBody(
            protocol,
            400,
            `Previous response with id '${String(body.previous_response_id)}' not found.`,
          ),
        ),
      );
    }
    if (step.status !== undefined && step.status !== 200) {
      const h: Record<string, string> = {};
      if (step.retryAfter !== undefined) h["retry-after"] = String(step.retryAfter);
      return mark(
        json(
          step.status,
          errorBody(protocol, step.status, step.message ?? `Scripted HTTP ${step.status}`),
          h,
        ),
      );
    }
    if (step.raw !== undefined) return mark(json(200, step.raw));
    if (step.malformed) {
      return mark(
        new Response('{"id": "broken", "choices": [{"message": {"content": "tru', {
          status: 200,
          headers: { "content-type": "application/json" },
        }),
      );
    }
    const built = replies[protocol](step, body);
    if (!rec.stream) return mark(json(200, built.json));

    const ndjson = protocol === "ollama";
    const pieces = built.pieces;
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        for (let i = 0; i < pieces.length; i++) {
          if (step.cutAfter !== undefined && i >= step.cutAfter) {
            controller.error(new Error("scripted connection reset"));
            return;
          }
          if (i > 0 && step.chunkDelayMs) await sleep(step.chunkDelayMs);
          rec.firstByteAt ??= performance.now();
          controller.enqueue(enc.encode(ssePiece(pieces[i]!)));
        }
        controller.close();
      },
    });
    return new Response(stream, {
      status: 200,
      headers: {
        "content-type": ndjson ? "application/x-ndjson" : "text/event-stream",
        "cache-control": "no-cache",
      },
    });
  };

  return new Promise((resolve) => {
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: opts.port ?? 0,
      onListen: () => {},
      onError: (e) => new Response(String(e), { status: 500 }),
    }, handle);
    const port = (server.addr as Deno.NetAddr).port;
    let closed = false;
    const close = async () => {
      if (closed) return;
      closed = true;
      await server.shutdown();
    };
    resolve({
      url: `http://127.0.0.1:${port}`,
      port,
      requests,
      script: (...steps) => void queue.push(...steps),
      pending: () => queue.length,
      close,
      [Symbol.asyncDispose]: close,
    });
  });
}

function lastUserText(body: Record<string, unknown>): string {
  const list = (body.messages ?? body.input ?? []) as Array<Record<string, unknown>>;
  for (let i = list.length - 1; i >= 0; i--) {
    const m = list[i]!;
    if (m.role === "user") {
      const c = m.content;
      if (typeof c === "string") return c;
      if (Array.isArray(c)) return c.map((p) => (p as Record<string, unknown>).text ?? "").join("");
    }
  }
  return "";
}

if (import.meta.main) {
  const args = Deno.args;
  const arg = (name: string) => {
    const i = args.indexOf(name);
    return i === -1 ? undefined : args[i + 1];
  };
  const scriptFile = arg("--script");
  const script: ScriptStep[] = scriptFile ? JSON.parse(await Deno.readTextFile(scriptFile)) : [];
  const echo = args.includes("--echo");
  const server = await startProviderServer({
    script,
    port: Number(arg("--port") ?? 0),
    ...(echo
      ? { fallback: (r: RecordedRequest) => ({ text: `echo: ${lastUserText(r.body)}` }) }
      : {}),
  });
  console.log(server.url);
}
