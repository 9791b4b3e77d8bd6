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
 *   `message_stop`, `tool_use` with `input_json_delta`, signed `thinking`);
 *   requires `x-api-key` and `anthropic-version`, and with `thinking` enabled
 *   refuses a tool-use turn sent back without its thinking
 *   (`thinking_rule.ts`; Bedrock's Anthropic models too);
 * - Ollama `POST /api/chat`, JSON or NDJSON.
 *
 * Replies come from a script (FIFO, one step per request) or a handler:
 * texts, tool calls, usage blocks, ids, reasoning, and faults — an HTTP status
 * with `retry-after`, malformed JSON, a stream cut mid-way, a slow first byte,
 * a reply held until the test releases it.
 * It binds 127.0.0.1 on a free port only. Every request is recorded.
 *
 * Run standalone for demos/benches:
 * `tools/deno run -A tests/support/provider_server.ts [--port N] [--script steps.json] [--echo]`
 * (prints the base url; `--echo` answers every request with the last user text).
 */
import { bedrockResponse, checkSigV4 } from "./bedrock_protocol.ts";
import { json, scriptedStream, sleep } from "./http_replies.ts";
import { errorBody, ssePiece, streamErrorPiece } from "./protocol_parts.ts";
import { Replies } from "./provider_protocols.ts";
import { thinkingRuleViolation } from "./thinking_rule.ts";
import type {
  Protocol,
  ProviderServer,
  ProviderServerOptions,
  RecordedRequest,
  ScriptStep,
} from "./provider_script.ts";
export type {
  Protocol,
  ProviderServer,
  ProviderServerOptions,
  RecordedRequest,
  ScriptStep,
  ScriptToolCall,
  ScriptUsage,
} from "./provider_script.ts";

const enc = new TextEncoder();

function protocolOf(path: string): Protocol | null {
  const bedrock = /^\/model\/[^/]+\/(invoke|invoke-with-response-stream|converse|converse-stream)$/
    .exec(path);
  if (bedrock) return bedrock[1]!.startsWith("invoke") ? "bedrock" : "converse";
  if (path.endsWith("/chat/completions")) return "chat";
  if (path.endsWith("/responses")) return "responses";
  if (path === "/api/chat") return "ollama";
  if (path.endsWith("/messages")) return "anthropic";
  return null;
}

/** A reply held open by {@link holdOpen}: `release` ends the hold (the client went away). */
type Hold = { release?: () => void };

/**
 * Sends nothing more on `controller` until the client goes away (the stream's
 * `cancel` calls `hold.release`) or the server closes (it releases every one
 * of `stalls`), then ends the reply.
 */
async function holdOpen(
  controller: ReadableStreamDefaultController<Uint8Array>,
  stalls: Set<() => void>,
  hold: Hold,
): Promise<void> {
  await new Promise<void>((release) => stalls.add(hold.release = release));
  try {
    controller.close();
  } catch { /* the client went away: the stream is cancelled */ }
}

/**
 * A reply (200 JSON unless told) that sends `head` and then nothing more,
 * until the client goes away or the server closes.
 */
function stalledBody(
  head: string,
  stalls: Set<() => void>,
  status = 200,
  contentType = "application/json",
): Response {
  const hold: Hold = {};
  const body = new ReadableStream<Uint8Array>({
    cancel: () => hold.release?.(),
    async start(controller) {
      controller.enqueue(new TextEncoder().encode(head));
      await holdOpen(controller, stalls, hold);
    },
  });
  return new Response(body, { status, headers: { "content-type": contentType } });
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
  // stalled streams, released when the server closes
  const stalls = new Set<() => void>();

  const handle = async (req: Request): Promise<Response> => {
    const arrivedAt = performance.now();
    const path = new URL(req.url).pathname;
    const protocol = protocolOf(path);
    if (req.method !== "POST" || protocol === null) {
      return json(404, { error: { message: `No route for ${req.method} ${path}` } });
    }
    let body: Record<string, unknown>;
    const text = await req.text();
    try {
      body = JSON.parse(text);
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
      stream: body.stream === true || /-stream$/.test(path),
      arrivedAt,
      receivedAt: performance.now(),
    };
    requests.push(rec);
    // refused before a scripted reply is taken: the provider generates nothing
    const refused = thinkingRuleViolation(protocol, body);
    if (refused) {
      const h: Record<string, string> = protocol === "converse"
        ? { "x-amzn-errortype": "ValidationException" }
        : {};
      return json(400, errorBody(protocol, 400, refused), h);
    }
    const step = queue.shift() ?? opts.fallback?.(rec) ??
      { status: 500, message: "Provider script exhausted: no reply scripted for this request" };
    if (step.delayMs) await sleep(step.delayMs);
    if (step.until) await step.until.catch(() => {});
    const mark = <T>(x: T): T => {
      rec.firstByteAt ??= performance.now();
      return x;
    };

    if (protocol === "anthropic" && (!headers["x-api-key"] || !headers["anthropic-version"])) {
      return mark(
        json(401, errorBody(protocol, 401, "Missing x-api-key or anthropic-version header")),
      );
    }
    if (protocol === "bedrock" || protocol === "converse") {
      const u = new URL(req.url);
      const bad = checkSigV4({
        method: req.method,
        rawPath: u.pathname,
        query: u.search.slice(1),
        headers,
        body: text,
      });
      if (bad) {
        return mark(json(403, { message: bad }, { "x-amzn-errortype": "AccessDeniedException" }));
      }
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
    if (step.page) {
      const { status = 200, contentType, body: text, stall } = step.page;
      const headers: Record<string, string> = contentType ? { "content-type": contentType } : {};
      if (stall) return mark(stalledBody(text.slice(0, 6), stalls, status, contentType));
      return mark(new Response(text, { status, headers }));
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
    if (protocol === "bedrock" || protocol === "converse") {
      return mark(bedrockResponse(protocol, step, body, rec.stream, replies));
    }
    const built = replies[protocol](step, body);
    if (!rec.stream) {
      if (step.stallAfter === undefined) return mark(json(200, built.json));
      const head = JSON.stringify(built.json).slice(0, step.stallAfter);
      return mark(stalledBody(head, stalls));
    }

    const ndjson = protocol === "ollama";
    const pieces = step.pieces ??
      (step.exception
        ? [...built.pieces.slice(0, 1), streamErrorPiece(protocol, step.exception)]
        : built.pieces);
    const hold: Hold = {};
    const stalled = async (i: number, controller: ReadableStreamDefaultController<Uint8Array>) => {
      if (step.stallAfter === undefined || i < step.stallAfter) return false;
      await holdOpen(controller, stalls, hold);
      return true;
    };
    const stream = scriptedStream(pieces.map((p) => enc.encode(ssePiece(p))), step, {
      before: stalled,
      sent: () => rec.firstByteAt ??= performance.now(),
      cancel: () => hold.release?.(),
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
      for (const release of stalls) release();
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
