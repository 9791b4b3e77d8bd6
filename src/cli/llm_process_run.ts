/**
 * What the queue workers do with one request (loaded by `llm_process.ts`):
 * `answerAsk` runs a whole ask and returns the answer text (`llm process`);
 * `answerQuery` sends exactly one provider request and returns the
 * provider's raw response (`llm process_queries`, Ruby's `process: <id>`).
 *
 * @module
 */
import { loadConfig } from "../config/store.ts";
import { ScoutError } from "../errors.ts";
import { ask, type AskOptions } from "../llm/ask.ts";
import { sameOriginFetch } from "../util/same_origin_fetch.ts";
import { headerSecrets, redactSecretsIn } from "../util/secrets.ts";
import type { Io } from "./io.ts";
import { warnSink } from "./io.ts";
import { workerMessages, workerOptions } from "./llm_process_guard.ts";
import { clipEnd } from "../util/clip.ts";

function invalid(message: string): ScoutError {
  return new ScoutError("invalid_input", `Bad relay request: ${message}`);
}

function baseOptions(io: Io, signal: AbortSignal): AskOptions {
  return {
    env: io.env,
    cwd: io.cwd,
    config: loadConfig({ cwd: io.cwd, env: io.env }),
    warn: warnSink(io),
    signal,
  };
}

/**
 * Answers a `backend: relay` request `{question, …options}`.
 *
 * @param request the parsed request
 * @param io injected I/O
 * @param signal aborts the ask
 * @returns the answer text
 */
export async function answerAsk(request: unknown, io: Io, signal: AbortSignal): Promise<string> {
  if (!request || typeof request !== "object" || Array.isArray(request)) {
    throw invalid("expected an object {question, …options}");
  }
  const { question, ...given } = request as Record<string, unknown>;
  // a shared queue's client is not trusted: plain messages, no routing (R97-2)
  const messages = workerMessages(question);
  const options = workerOptions(given, warnSink(io));
  const r = await ask(messages, { ...options, ...baseOptions(io, signal) });
  return r.text;
}

/**
 * Answers a `relay:` query `[messages, options]`: one provider request with
 * this machine's keys; the raw provider response is returned unprocessed.
 *
 * @param request the parsed request
 * @param id request id (for messages)
 * @param io injected I/O
 * @param signal aborts the request
 * @returns the raw provider response (parsed JSON)
 */
export async function answerQuery(
  request: unknown,
  id: string,
  io: Io,
  signal: AbortSignal,
): Promise<unknown> {
  if (!Array.isArray(request) || request.length !== 2 || typeof request[1] !== "object") {
    throw invalid("expected [messages, options]");
  }
  const messages = workerMessages(request[0]);
  const options = workerOptions({ ...(request[1] as Record<string, unknown>) }, warnSink(io));
  // Capture the first provider response, then stop the ask: the client
  // processes the raw response itself (its tools run there, not here).
  const stop = new AbortController();
  signal.addEventListener("abort", () => stop.abort(signal.reason), { once: true });
  let raw: string | undefined;
  const capture: typeof fetch = async (input, init) => {
    if (raw !== undefined) throw new DOMException("captured", "AbortError");
    const res = await sameOriginFetch(fetch)(input, init);
    const text = await res.text();
    if (!res.ok) {
      // the body may echo the request's headers: this worker's key never reaches the queue (R146)
      const sent = headerSecrets(init?.headers ?? (input instanceof Request ? input.headers : {}));
      const shown = clipEnd(redactSecretsIn(text, sent), 200, "");
      throw new ScoutError("provider_http", `Provider answered HTTP ${res.status}: ${shown}`);
    }
    raw = text;
    stop.abort(new DOMException("captured", "AbortError"));
    return new Response(text, { status: res.status, headers: res.headers });
  };
  try {
    await ask(messages, {
      ...options,
      ...baseOptions(io, stop.signal),
      fetch: capture,
      cache: false,
      stream: false,
      max_retries: 0,
    });
  } catch (e) {
    if (raw === undefined || signal.aborted) throw e;
  }
  if (raw === undefined) throw new ScoutError("relay", `Query ${id} made no provider request`);
  try {
    return JSON.parse(raw);
  } catch {
    throw new ScoutError("provider_response", `Query ${id}: the provider's response is not JSON`);
  }
}
