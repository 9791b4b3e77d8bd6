/**
 * The `openai` SDK as the client of every OpenAI-protocol server (Responses,
 * Chat Completions, vLLM, OpenWebUI): one client per ask and settings, the
 * SDK's own retries off (the ask pipeline retries, §7), the injected fetch,
 * and SDK errors mapped to typed ones. The SDK is imported lazily so commands
 * that never talk to an OpenAI server do not load it.
 *
 * @module
 */
import type OpenAI from "openai";
import { isScoutError } from "../../errors.ts";
import {
  countedBody,
  httpError,
  networkError,
  providerMessage,
  reportedErrorOf,
  responseError,
  retryAfterMs,
  stalledBodyError,
  streamCutError,
  type StreamProgress,
  timeoutError,
} from "../errors.ts";
import { bodyExcerpt } from "../body_text.ts";
import { atUrl } from "../error_location.ts";
import { parseReplyJson, type RequestSignal } from "../http.ts";
import {
  isStreamOf,
  type NotAStream,
  notAStreamError,
  peekBody,
  readNotAStream,
  SSE_STREAM,
} from "../stream_check.ts";
import type { QueryContext } from "../types.ts";
import { maskAnswer } from "../sent_secrets.ts";

type OpenAIModule = typeof import("openai");
let sdk: Promise<OpenAIModule> | undefined;

/**
 * Loads the SDK module once.
 *
 * @returns the module
 */
export function loadSdk(): Promise<OpenAIModule> {
  sdk ??= import("openai");
  return sdk;
}

// Clients by fetch, then base url and timeout. Building a client costs about
// as much as a loopback round trip, and every ask (every delegated call) used
// to build one; a client holds no per-request state, so asks with the same
// fetch, url, timeout and key share one.
const clients = new WeakMap<typeof fetch, Map<string, OpenAI>>();
const MAX_CLIENTS = 32;

/**
 * `baseURL` for the OpenAI family (§1.4): the url as is when it already
 * contains `/<apiVersion>`, else `<url>/<apiVersion>`; no url → undefined
 * (SDK default).
 *
 * @param url configured url
 * @param apiVersion version segment (default `v1`)
 * @returns the base url
 *
 * @example
 * ```ts
 * import { openaiBaseUrl } from "./openai_sdk.ts";
 * openaiBaseUrl("http://host:8000"); // "http://host:8000/v1"
 * openaiBaseUrl("http://host:8000/v1"); // "http://host:8000/v1"
 * ```
 */
export function openaiBaseUrl(url: string | undefined, apiVersion = "v1"): string | undefined {
  if (!url) return undefined;
  if (url.includes("/" + apiVersion)) return url;
  return url.replace(/\/+$/, "") + "/" + apiVersion;
}

/**
 * The SDK client for an ask, shared by the asks with the same fetch, base
 * url, timeout and key.
 *
 * @param ctx query context (settings, fetch)
 * @param baseURL base url (undefined → SDK default)
 * @returns the client
 */
export async function openaiClient(
  ctx: QueryContext,
  baseURL: string | undefined,
): Promise<OpenAI> {
  const mod = await loadSdk();
  let byUrl = clients.get(ctx.fetch);
  if (!byUrl) clients.set(ctx.fetch, byUrl = new Map());
  const k = `${baseURL ?? ""}\u0000${ctx.settings.timeoutMs}`;
  let client = byUrl.get(k);
  if (!client || client.apiKey !== ctx.settings.key) {
    if (byUrl.size >= MAX_CLIENTS) byUrl.clear();
    client = new mod.OpenAI({
      apiKey: ctx.settings.key,
      ...(baseURL === undefined ? {} : { baseURL }),
      maxRetries: 0,
      timeout: ctx.settings.timeoutMs,
      fetch: ctx.fetch,
      logLevel: "off",
    });
    byUrl.set(k, client);
  }
  return client;
}

/**
 * The client for one streamed request: the ask's client with a fetch that
 * counts the body bytes into `progress` (for {@link incompleteStreamError})
 * and refuses a 2xx reply that is not an event stream (a proxy's login page):
 * by content type, or else by how its body starts; {@link mapSdkError} turns
 * that refusal into a {@link notAStreamError}.
 *
 * @param client the ask's client
 * @param ctx query context (its fetch)
 * @param progress counters for the reply's bytes
 * @returns a client sharing every other option
 */
export function countingClient(
  client: OpenAI,
  ctx: QueryContext,
  progress: StreamProgress,
): OpenAI {
  const counting: typeof fetch = async (input, init) => {
    const res = await ctx.fetch(input, init);
    if (!res.body) return res;
    let body: ReadableStream<Uint8Array> = res.body;
    const type = res.headers.get("content-type") ?? "";
    if (res.ok && !SSE_STREAM.contentType.test(type)) {
      const peek = await peekBody(body);
      body = peek.body;
      if (!isStreamOf(type, peek.head, SSE_STREAM)) {
        const got = await readNotAStream(res, body);
        throw Object.assign(new Error("The reply is not an event stream"), { notAStream: got });
      }
    }
    return new Response(watchEventEnd(countedBody(body, progress), progress), {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
  return client.withOptions({ fetch: counting });
}

const LF = 10;
const CR = 13;

/** Whether SSE bytes end with the blank line that closes an event (`\n\n`, `\r\r`, `\r\n\r\n`). */
function closesEvent(tail: readonly number[]): boolean {
  const [a, b] = [tail.at(-2), tail.at(-1)];
  return (a === LF && b === LF) || (a === CR && b === CR) ||
    tail.slice(-4).join() === [CR, LF, CR, LF].join();
}

/** Bytes that end with the `[DONE]` event, blank lines after it allowed. */
const SENTINEL_END = /\[DONE\]\s*$/;
const TAIL = 24;

/**
 * An SSE body that notes in `progress.openTail` whether it ended inside an
 * event: the SDK hands such a tail on as a whole event, and its JSON then
 * fails to parse (a stream cut, not malformed JSON); and in
 * `progress.sentinel` whether the bytes so far end with `[DONE]` — noted as
 * they pass, as the SDK stops reading there and the body may never end.
 */
function watchEventEnd(
  body: ReadableStream<Uint8Array>,
  progress: StreamProgress,
): ReadableStream<Uint8Array> {
  let tail: number[] = [];
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, c) {
        tail = [...tail, ...chunk.subarray(-TAIL)].slice(-TAIL);
        progress.sentinel = SENTINEL_END.test(String.fromCharCode(...tail));
        c.enqueue(chunk);
      },
      flush() {
        progress.openTail = tail.length > 0 && !closesEvent(tail);
      },
    }),
  );
}

/**
 * The error for an SDK stream that ended, or broke while read, before the
 * response was complete: the timeout or the caller's abort when those ended
 * it, an error the provider reported in the stream as such, else a
 * (retryable) {@link streamCutError} with the events and bytes received —
 * also when the body ended inside an event whose JSON then did not parse.
 *
 * @param backend backend name
 * @param rs the request's signal
 * @param ctx query context
 * @param progress events and bytes received
 * @param cause what reading the stream threw (absent: it ended cleanly)
 * @returns the error to throw
 */
export async function incompleteStreamError(
  backend: string,
  rs: RequestSignal,
  ctx: QueryContext,
  progress: StreamProgress,
  cause?: unknown,
): Promise<unknown> {
  if (rs.timedOut() || ctx.signal?.aborted) {
    return await mapSdkError(backend, cause ?? new Error("timeout"), rs, ctx, true);
  }
  // the body ended inside its last event, whose JSON then failed to parse
  if (cause instanceof SyntaxError && progress.openTail) {
    return streamCutError(backend, progress, cause);
  }
  if (cause !== undefined) {
    const mapped = await mapSdkError(backend, cause, rs, ctx, true);
    if (isScoutError(mapped) && mapped.network !== true) return mapped;
  }
  return streamCutError(backend, progress, cause);
}

/**
 * The JSON body of a non-streamed SDK request, read here rather than by the
 * SDK: its own reading adds a timer, an abort listener and a promise race per
 * request (0.05–0.27 ms in two runs of `bench/openai_sdk_floor.ts`, variant
 * `sdk-json` against `sdk`) for a timeout and an abort that the request's
 * own signal already covers until the body is read (`requestSignal`,
 * `mapSdkError`). The SDK still sends the request, checks the status and
 * maps errors.
 *
 * @param backend backend name (for the error)
 * @param request what `create()` returned
 * @returns the parsed body
 * @throws ScoutError `provider_response` quoting the start of a body that is
 *   not JSON ({@link parseReplyJson}, as for the fetch-based adapters)
 */
export async function sdkJson(
  backend: string,
  request: { asResponse(): Promise<Response> },
): Promise<unknown> {
  return parseReplyJson(backend, await (await request.asResponse()).text());
}

/**
 * Maps anything the SDK (or reading its stream) throws to a typed error.
 *
 * @param backend backend name
 * @param e what was thrown
 * @param rs the request signal (to tell our timeout from a user abort)
 * @param ctx query context
 * @param streaming whether the failure happened while reading a stream
 * @param url the address the request went to (the client's base url)
 * @returns the error to throw (a ScoutError)
 */
export async function mapSdkError(
  backend: string,
  e: unknown,
  rs: RequestSignal,
  ctx: QueryContext,
  streaming = false,
  url?: string,
): Promise<unknown> {
  // the base url noted for the error's message (the SDK's default when none is configured)
  return atUrl(await typedSdkError(backend, e, rs, ctx, streaming, url), url);
}

async function typedSdkError(
  backend: string,
  e: unknown,
  rs: RequestSignal,
  ctx: QueryContext,
  streaming: boolean,
  url: string | undefined,
): Promise<unknown> {
  const mod = await loadSdk();
  if (rs.timedOut()) {
    // an error status arrived, then its body did not: the status is the news
    return e instanceof mod.APIError && e.status !== undefined
      ? stalledBodyError(backend, e.status, ctx.settings.timeoutMs, retryAfterMs(e.headers))
      : timeoutError(backend, ctx.settings.timeoutMs);
  }
  if (ctx.signal?.aborted) return ctx.signal.reason ?? e;
  const notAStream = ((e as Error)?.cause as { notAStream?: NotAStream } | undefined)?.notAStream;
  if (notAStream) return notAStreamError(backend, notAStream, SSE_STREAM);
  if (e instanceof mod.APIConnectionTimeoutError) {
    return timeoutError(backend, ctx.settings.timeoutMs);
  }
  // the fetch refused a redirect to another origin (R95-1)
  if (e instanceof mod.APIConnectionError && isScoutError(e.cause, "redirect_refused")) {
    return e.cause;
  }
  if (e instanceof mod.APIConnectionError) return networkError(backend, e.cause ?? e, url);
  if (e instanceof mod.APIError) return apiError(backend, e, ctx);
  if (e instanceof SyntaxError) {
    return responseError(backend, `sent malformed JSON: ${e.message}`, e);
  }
  if (e instanceof TypeError) {
    // While a stream is read, a TypeError is the body failing (connection reset);
    // otherwise the SDK choked on the shape of a reply.
    return streaming
      ? networkError(backend, e, url)
      : responseError(backend, `sent a reply that cannot be read: ${e.message}`, e);
  }
  return e;
}

/**
 * An SDK `APIError`: with a status, the HTTP error (the provider's message
 * from a JSON body; a text or HTML body as its text, without the status the
 * SDK puts in front); without one, an error event inside the stream, typed
 * like its HTTP form. What the body quotes of the request's key (a server
 * echoing its headers) is masked before any excerpt is made (R146).
 */
function apiError(
  backend: string,
  e: InstanceType<OpenAIModule["APIError"]>,
  ctx: QueryContext,
) {
  if (e.status === undefined) {
    return reportedErrorOf(backend, e.error ?? { message: e.message }, true);
  }
  const mask = (text: string) => maskAnswer(text, ctx.settings);
  if (e.error !== undefined) {
    return httpError(
      backend,
      e.status,
      providerMessage(mask(JSON.stringify({ error: e.error }))),
      retryAfterMs(e.headers),
    );
  }
  const prefix = `${e.status} `;
  let text = e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
  if (text === "status code (no body)") text = "";
  const type = e.headers?.get("content-type") ?? "";
  return httpError(backend, e.status, bodyExcerpt(mask(text), type), retryAfterMs(e.headers));
}
