/**
 * HTTP plumbing shared by the fetch-based adapters (Anthropic, Ollama):
 * a POST with the request timeout and the ask's abort signal, the reply read
 * as JSON or assembled from a stream, failures mapped to typed errors, and
 * line readers for SSE and NDJSON bodies.
 *
 * @module
 */
import { isScoutError } from "../errors.ts";
import {
  countedBody,
  httpError,
  networkError,
  providerMessage,
  responseError,
  retryAfterMs,
  stalledBodyError,
  streamCutError,
  type StreamProgress,
  timeoutError,
} from "./errors.ts";
import {
  isStreamOf,
  notAStreamError,
  peekBody,
  readNotAStream,
  type StreamKind,
} from "./stream_check.ts";
import type { QueryContext } from "./types.ts";
import { maskAnswer } from "./sent_secrets.ts";
import { headerSecrets } from "../util/secrets.ts";
import { clipEnd } from "../util/clip.ts";

/** A request signal combining the ask's signal and the timeout. */
export interface RequestSignal {
  /** Signal to pass to fetch. */
  signal: AbortSignal;
  /** True once the timeout fired. */
  timedOut(): boolean;
  /** Cancels the timer. */
  clear(): void;
}

/**
 * Builds a signal that aborts on the ask's signal or after `timeoutMs`.
 *
 * @param ctx query context (signal, timeout)
 * @returns the combined signal
 */
export function requestSignal(ctx: QueryContext): RequestSignal {
  const ac = new AbortController();
  let fired = false;
  const timer = setTimeout(() => {
    fired = true;
    ac.abort(new DOMException("The request timed out", "TimeoutError"));
  }, ctx.settings.timeoutMs);
  const onAbort = () => ac.abort(ctx.signal?.reason);
  if (ctx.signal) {
    if (ctx.signal.aborted) onAbort();
    else ctx.signal.addEventListener("abort", onAbort, { once: true });
  }
  return {
    signal: ac.signal,
    timedOut: () => fired,
    clear: () => {
      clearTimeout(timer);
      ctx.signal?.removeEventListener("abort", onAbort);
    },
  };
}

/**
 * Maps a thrown fetch/body error to a typed one (aborts by the caller pass through).
 *
 * @param backend backend name
 * @param e what was thrown
 * @param rs the request signal
 * @param ctx the query context
 * @param url the address the request went to
 * @returns the error to throw
 */
export function mapFetchError(
  backend: string,
  e: unknown,
  rs: RequestSignal,
  ctx: QueryContext,
  url?: string,
): unknown {
  if (rs.timedOut()) return timeoutError(backend, ctx.settings.timeoutMs);
  if (ctx.signal?.aborted) return ctx.signal.reason ?? e;
  // a redirect to another origin was refused (R95-1): not a network failure, not retried
  if (isScoutError(e, "redirect_refused")) return e;
  return networkError(backend, e, url);
}

/**
 * POSTs JSON and returns the response when its status is 2xx.
 *
 * @param backend backend name (for errors)
 * @param url endpoint url
 * @param body JSON body
 * @param opts headers, context and the request signal
 * @returns the response (body unread)
 */
export async function postJson(
  backend: string,
  url: string,
  body: unknown,
  opts: { headers: Record<string, string>; ctx: QueryContext; rs: RequestSignal },
): Promise<Response> {
  let res: Response;
  try {
    res = await opts.ctx.fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...opts.headers },
      body: JSON.stringify(body),
      signal: opts.rs.signal,
    });
  } catch (e) {
    throw mapFetchError(backend, e, opts.rs, opts.ctx, url);
  }
  if (!res.ok) {
    let text = "";
    try {
      text = await res.text();
    } catch (e) {
      const retryAfter = retryAfterMs(res.headers);
      if (opts.rs.timedOut()) {
        throw stalledBodyError(backend, res.status, opts.ctx.settings.timeoutMs, retryAfter);
      }
      if (opts.ctx.signal?.aborted) throw mapFetchError(backend, e, opts.rs, opts.ctx, url);
      // body unreadable (reset): the status says enough
    }
    const type = res.headers.get("content-type") ?? "";
    // a server may echo the request's headers: its key is masked before any excerpt (R146)
    const shown = maskAnswer(text, opts.ctx.settings, headerSecrets(opts.headers));
    throw httpError(backend, res.status, providerMessage(shown, type), retryAfterMs(res.headers));
  }
  return res;
}

/** Options of {@link readReply}. */
export interface ReadReplyOptions {
  /** The query context. */
  ctx: QueryContext;
  /** The request signal. */
  rs: RequestSignal;
  /**
   * Assembles a streamed body into the reply object (null when the stream
   * ended early), counting events into `progress`; absent = the body is one
   * JSON document.
   */
  assemble?: (
    body: ReadableStream<Uint8Array>,
    progress: StreamProgress,
  ) => Promise<Record<string, unknown> | null>;
  /**
   * The stream `assemble` reads. A reply whose content type is not the
   * stream's and whose body does not start like it either is read as one JSON
   * document when `json` allows it and the body is JSON (a server that
   * ignored `stream`), else fails at once saying what came back
   * ({@link notAStreamError}); absent = every body is assembled.
   */
  stream?: StreamKind & { json?: boolean };
}

/**
 * Parses a reply body that is not streamed.
 *
 * @param backend backend name (for the error)
 * @param text the body
 * @returns the parsed JSON
 * @throws ScoutError `provider_response` quoting the start of a body that is not JSON
 */
export function parseReplyJson(backend: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw responseError(backend, `sent malformed JSON: ${clipEnd(text, 100, "")}`, e);
  }
}

/**
 * The body of a streamed reply when it is the stream expected; undefined when
 * it is one JSON document to parse instead (`stream.json`).
 *
 * @throws ScoutError `provider_response` when it is neither ({@link notAStreamError})
 */
async function streamOrJson(
  backend: string,
  res: Response,
  body: ReadableStream<Uint8Array>,
  stream: StreamKind & { json?: boolean },
): Promise<{ body: ReadableStream<Uint8Array>; json?: true }> {
  const type = res.headers.get("content-type") ?? "";
  if (stream.contentType.test(type)) return { body };
  const peek = await peekBody(body);
  if (isStreamOf(type, peek.head, stream)) return { body: peek.body };
  if (stream.json && (/json/i.test(type) || /^\s*[{[]/.test(peek.head))) {
    return { body: peek.body, json: true };
  }
  throw notAStreamError(backend, await readNotAStream(res, peek.body), stream);
}

/** A streamed body assembled; an early end or a broken read is a {@link streamCutError}. */
async function assembled(
  backend: string,
  body: ReadableStream<Uint8Array>,
  opts: ReadReplyOptions & { assemble: NonNullable<ReadReplyOptions["assemble"]> },
): Promise<unknown> {
  const progress: StreamProgress = { events: 0, bytes: 0 };
  let raw: Record<string, unknown> | null;
  try {
    raw = await opts.assemble(countedBody(body, progress), progress);
  } catch (e) {
    if (isScoutError(e) || opts.rs.timedOut() || opts.ctx.signal?.aborted) throw e;
    throw streamCutError(backend, progress, e);
  }
  if (raw === null) throw streamCutError(backend, progress);
  return raw;
}

/**
 * Reads a reply body: assembled from its stream, or parsed as JSON. A stream
 * that ends early or breaks is a (retryable) {@link streamCutError} with the
 * events and bytes received, malformed JSON a `provider_response` error, a
 * body that fails while read a network error or the timeout; a streamed
 * request answered with something that is not its stream fails at once
 * (`opts.stream`).
 *
 * @param backend backend name (for errors)
 * @param res the response of {@link postJson}
 * @param opts context, request signal, stream assembler and kind
 * @returns the decoded reply
 */
export async function readReply(
  backend: string,
  res: Response,
  opts: ReadReplyOptions,
): Promise<unknown> {
  try {
    const assemble = opts.assemble;
    if (assemble && res.body) {
      const got = opts.stream
        ? await streamOrJson(backend, res, res.body, opts.stream)
        : { body: res.body };
      if (got.json) return parseReplyJson(backend, await new Response(got.body).text());
      return await assembled(backend, got.body, { ...opts, assemble });
    }
    return parseReplyJson(backend, await res.text());
  } catch (e) {
    if (isScoutError(e)) throw e;
    throw mapFetchError(backend, e, opts.rs, opts.ctx, res.url || undefined);
  }
}

/** Where a body read by {@link lines} ended. */
export interface LineEnd {
  /**
   * True once the body ended inside a line: the last line yielded had no
   * newline after it (the connection closed mid-line, or a sender that omits
   * the final newline).
   */
  open: boolean;
}

/**
 * Reads a body as text lines (split on `\n`, `\r` stripped).
 *
 * @param body response body
 * @param end set to `open: true` before an unterminated last line is yielded
 * @returns the lines, the last one even without a newline
 */
export async function* lines(
  body: ReadableStream<Uint8Array>,
  end?: LineEnd,
): AsyncGenerator<string> {
  const dec = new TextDecoder();
  let buf = "";
  for await (const chunk of body) {
    buf += dec.decode(chunk, { stream: true });
    let i: number;
    while ((i = buf.indexOf("\n")) !== -1) {
      yield buf.slice(0, i).replace(/\r$/, "");
      buf = buf.slice(i + 1);
    }
  }
  buf += dec.decode();
  if (buf === "") return;
  if (end) end.open = true;
  yield buf.replace(/\r$/, "");
}

/** One server-sent event. */
export interface SseEvent {
  /** `event:` field (default `message`). */
  event: string;
  /** Joined `data:` lines. */
  data: string;
  /**
   * True for a last event that the body ended inside of (no blank line closed
   * it): its data may be cut, and data that does not parse means the stream
   * ended early rather than that the provider sent malformed JSON.
   */
  open?: boolean;
}

/**
 * Parses a server-sent-events body into events.
 *
 * @param body response body
 * @returns the events in order; a last event not closed by a blank line is
 *   yielded with `open: true`
 */
export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  let event = "";
  let data: string[] = [];
  for await (const line of lines(body)) {
    if (line === "") {
      if (data.length) yield { event: event || "message", data: data.join("\n") };
      event = "";
      data = [];
      continue;
    }
    if (line.startsWith(":")) continue;
    const i = line.indexOf(":");
    const field = i === -1 ? line : line.slice(0, i);
    let value = i === -1 ? "" : line.slice(i + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  if (data.length) yield { event: event || "message", data: data.join("\n"), open: true };
}
