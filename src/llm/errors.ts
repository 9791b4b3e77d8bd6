/**
 * Typed provider failures (`inference.md` §7): HTTP errors, network errors,
 * timeouts and unusable replies, as {@link ScoutError}s with the fields the
 * retry layer and the CLI read (`backend`, `status`, `phase`, `retryable`,
 * `retryAfterMs`).
 *
 * @module
 */
import { isScoutError, ScoutError } from "../errors.ts";
import { redactUrl, redactUrlsIn } from "../util/secrets.ts";
import { bodyExcerpt } from "./body_text.ts";
import { networkReason } from "./network_reason.ts";
import { clipEnd } from "../util/clip.ts";

/** Statuses worth retrying: 408, 409, 429 and 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * Parses `retry-after-ms` / `retry-after` (seconds or an HTTP date).
 *
 * @param headers response headers
 * @param now clock for HTTP dates
 * @returns milliseconds to wait, or undefined
 */
export function retryAfterMs(
  headers: Headers | Record<string, string | null | undefined> | undefined,
  now: () => number = Date.now,
): number | undefined {
  if (!headers) return undefined;
  const get = (k: string) =>
    headers instanceof Headers ? headers.get(k) : (headers[k] ?? headers[k.toLowerCase()]);
  const ms = get("retry-after-ms");
  if (ms && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.round(Number(ms));
  const ra = get("retry-after");
  if (!ra) return undefined;
  if (/^\d+(\.\d+)?$/.test(ra.trim())) return Math.round(Number(ra) * 1000);
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now());
}

function excerpt(text: string): string {
  const t = text.replace(/\s+/g, " ").trim();
  return clipEnd(t, 300);
}

/**
 * Extracts a provider's error message from a JSON or text body; an HTML page
 * (a proxy's) as its text without markup.
 *
 * @param body response body text
 * @param contentType the response's content type, if known
 * @returns a short message
 */
export function providerMessage(body: string, contentType = ""): string {
  try {
    const data = JSON.parse(body);
    const m = data?.error?.message ?? data?.message ?? data?.error;
    if (typeof m === "string" && m) return excerpt(m);
  } catch { /* not JSON */ }
  return bodyExcerpt(body, contentType);
}

/**
 * An HTTP error status from a provider.
 *
 * @param backend backend name
 * @param status HTTP status
 * @param message provider message
 * @param retryAfter milliseconds from `retry-after`, if any
 * @returns the error (`provider_http`)
 */
export function httpError(
  backend: string,
  status: number,
  message: string,
  retryAfter?: number,
): ScoutError {
  return new ScoutError(
    "provider_http",
    `Provider "${backend}" answered HTTP ${status}${message ? `: ${message}` : ""}`,
    {
      backend,
      status,
      phase: "query",
      retryable: isRetryableStatus(status),
      ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter }),
    },
  );
}

/**
 * The HTTP status that an error a provider reports in its reply or stream
 * stands for, by its type or code — so it is retried like that status:
 * `overloaded_error` → 529; `rate_limit_error`, `rate_limit_exceeded`,
 * `throttlingException` → 429; `…unavailable…`, `…timeout…` → 503;
 * `api_error`, `server_error`, `internalServerException`,
 * `modelStreamErrorException` → 500; anything else → 400.
 *
 * @param kind the error's type or code
 * @returns the status
 */
export function statusOfErrorKind(kind: string): number {
  if (/overloaded/i.test(kind)) return 529;
  if (/rate.?limit|throttl|too.?many.?requests/i.test(kind)) return 429;
  if (/unavailable|time.?out/i.test(kind)) return 503;
  if (/server.?error|api.?error|internal|modelStreamError/i.test(kind)) return 500;
  return 400;
}

/**
 * An error the provider reported in its reply (an error object in a 200
 * body, or an error event inside its stream), typed like the HTTP status it
 * stands for ({@link statusOfErrorKind}): an overloaded or rate-limited
 * stream is retried as a 529 or 429 would be.
 *
 * @param backend backend name
 * @param kind the error's type or code (`""` when it has none)
 * @param message the provider's message
 * @param inStream whether it came inside a stream (the message says so)
 * @returns the error (`provider_http`, `status` the equivalent, `inStream`)
 */
export function reportedError(
  backend: string,
  kind: string,
  message: string,
  inStream = false,
): ScoutError {
  const status = statusOfErrorKind(kind);
  const what = `${kind || "an error"}${inStream ? " in its stream" : ""}`;
  return new ScoutError(
    "provider_http",
    `Provider "${backend}" reported ${what}${message ? `: ${excerpt(message)}` : ""}`,
    { backend, status, phase: "query", retryable: isRetryableStatus(status), inStream },
  );
}

/**
 * {@link reportedError} for an error object as providers send it
 * (`{type|code, message}`; Anthropic nests it under `error`).
 *
 * @param backend backend name
 * @param error the error object (or a string)
 * @param inStream whether it came inside a stream
 * @returns the error
 */
export function reportedErrorOf(backend: string, error: unknown, inStream = false): ScoutError {
  if (typeof error !== "object" || error === null) {
    return reportedError(backend, "", String(error ?? ""), inStream);
  }
  const e = error as Record<string, unknown>;
  const kind = [e.code, e.type].find((k) => typeof k === "string" && k !== "" && k !== "error");
  const message = typeof e.message === "string" ? e.message : JSON.stringify(e);
  return reportedError(backend, (kind as string | undefined) ?? "", message, inStream);
}

/**
 * An error status whose body then did not arrive within `request_timeout`:
 * typed and retried as that status (a 502 is still a 502), saying so.
 *
 * @param backend backend name
 * @param status HTTP status
 * @param timeoutMs the limit
 * @param retryAfter milliseconds from `retry-after`, if any
 * @returns the error (`provider_http`)
 */
export function stalledBodyError(
  backend: string,
  status: number,
  timeoutMs: number,
  retryAfter?: number,
): ScoutError {
  return new ScoutError(
    "provider_http",
    `Provider "${backend}" answered HTTP ${status}, then its body did not arrive within ${
      formatSeconds(timeoutMs)
    }`,
    {
      backend,
      status,
      phase: "query",
      retryable: isRetryableStatus(status),
      timeoutMs,
      ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter }),
    },
  );
}

/**
 * A connection failure (refused, reset, stream cut).
 *
 * @param backend backend name
 * @param cause the underlying error or a description
 * @param url the address the request went to (the client's base url), if
 *   known: named without credentials ({@link redactUrl})
 * @returns the error (`provider_http`, retryable)
 */
export function networkError(backend: string, cause: unknown, url?: string): ScoutError {
  // a runtime's fetch error may name the url, `?key=` and all
  const what = networkReason(cause, url) ??
    redactUrlsIn(cause instanceof Error ? cause.message : String(cause));
  const shown = url === undefined ? undefined : redactUrl(url);
  const at = shown === undefined ? "" : ` at ${shown}`;
  return new ScoutError("provider_http", `Cannot reach provider "${backend}"${at}: ${what}`, {
    backend,
    phase: "query",
    retryable: true,
    network: true,
    cause,
    ...(shown === undefined ? {} : { url: shown, urlShown: true }),
  });
}

/** What a streamed reply delivered before it ended: events (SSE events, NDJSON lines) and bytes. */
export interface StreamProgress {
  /** Events (or NDJSON lines) received. */
  events: number;
  /** Body bytes received. */
  bytes: number;
  /**
   * True when the body ended inside an event (SSE bytes not closed by a blank
   * line): a last event that does not parse was cut, not malformed.
   */
  openTail?: boolean;
  /**
   * True when the body received so far ends with the `data: [DONE]` event
   * that closes a Chat Completions stream (the server ended it, not a cut or
   * an abort).
   */
  sentinel?: boolean;
}

/**
 * A body stream that counts its bytes into `progress`.
 *
 * @param body the response body
 * @param progress counters, updated as chunks pass
 * @returns the same bytes
 */
export function countedBody(
  body: ReadableStream<Uint8Array>,
  progress: StreamProgress,
): ReadableStream<Uint8Array> {
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, c) {
        progress.bytes += chunk.byteLength;
        c.enqueue(chunk);
      },
    }),
  );
}

/**
 * A streamed reply that ended (cleanly or by a reset) before it was complete:
 * says so, with what had arrived, instead of blaming the network.
 *
 * @param backend backend name
 * @param progress events and bytes received
 * @param cause what the body read threw, if anything
 * @returns the error (`provider_http`, retryable, `streamCut: true`)
 */
export function streamCutError(
  backend: string,
  progress: StreamProgress,
  cause?: unknown,
): ScoutError {
  const ev = `${progress.events} event${progress.events === 1 ? "" : "s"}`;
  return new ScoutError(
    "provider_http",
    `The stream from provider "${backend}" ended early, after ${ev} (${progress.bytes} bytes), before the reply was complete`,
    {
      backend,
      phase: "query",
      retryable: true,
      network: true,
      streamCut: true,
      events: progress.events,
      bytes: progress.bytes,
      ...(cause === undefined ? {} : { cause }),
    },
  );
}

/**
 * A request that took longer than `request_timeout`.
 *
 * @param backend backend name
 * @param timeoutMs the limit
 * @returns the error (`timeout`, retryable)
 */
export function timeoutError(backend: string, timeoutMs: number): ScoutError {
  return new ScoutError(
    "timeout",
    `Provider "${backend}" did not answer within ${formatSeconds(timeoutMs)}`,
    { backend, phase: "query", retryable: true, timeoutMs },
  );
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(3).replace(/0+$/, "")} s`;
}

/**
 * A reply that cannot be used (malformed JSON, no choices, error payload).
 *
 * @param backend backend name
 * @param message what is wrong
 * @param cause underlying error
 * @returns the error (`provider_response`, not retried)
 */
export function responseError(backend: string, message: string, cause?: unknown): ScoutError {
  return new ScoutError("provider_response", `Provider "${backend}" ${message}`, {
    backend,
    phase: "process_response",
    retryable: false,
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * The provider reply as a JSON object, or a `provider_response` error naming
 * the backend (every adapter's first step in processing a reply).
 *
 * @param backend backend name
 * @param raw the decoded reply
 * @returns the reply as a record
 */
export function replyObject(backend: string, raw: unknown): Record<string, unknown> {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw responseError(
      backend,
      `sent a reply that is not a JSON object: ${clipEnd(String(raw), 100, "")}`,
    );
  }
  return raw as Record<string, unknown>;
}

/**
 * Whether an error may be retried (typed errors carry `retryable`).
 *
 * @param e any error
 * @returns true when the retry layer should try again
 */
export function isRetryable(e: unknown): boolean {
  return isScoutError(e) && e.retryable === true;
}
