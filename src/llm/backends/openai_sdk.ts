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
import {
  httpError,
  networkError,
  providerMessage,
  responseError,
  retryAfterMs,
  timeoutError,
} from "../errors.ts";
import type { RequestSignal } from "../http.ts";
import type { ClientSettings, QueryContext } from "../types.ts";

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

const clients = new WeakMap<ClientSettings, Map<string, OpenAI>>();

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
 * The SDK client for an ask (memoised per settings object and base url).
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
  let byUrl = clients.get(ctx.settings);
  if (!byUrl) clients.set(ctx.settings, byUrl = new Map());
  const k = baseURL ?? "";
  let client = byUrl.get(k);
  if (!client) {
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
 * Maps anything the SDK (or reading its stream) throws to a typed error.
 *
 * @param backend backend name
 * @param e what was thrown
 * @param rs the request signal (to tell our timeout from a user abort)
 * @param ctx query context
 * @param streaming whether the failure happened while reading a stream
 * @returns the error to throw (a ScoutError)
 */
/**
 * The error for an SDK stream that ended without a complete response: a
 * timeout if the request's deadline passed, else a (retryable) network error.
 *
 * @param backend backend name
 * @param rs the request's signal
 * @param ctx query context
 * @returns the error to throw (a ScoutError)
 */
export async function incompleteStreamError(
  backend: string,
  rs: RequestSignal,
  ctx: QueryContext,
): Promise<unknown> {
  if (rs.timedOut()) return await mapSdkError(backend, new Error("timeout"), rs, ctx);
  return networkError(backend, "the stream ended before the response was complete");
}

export async function mapSdkError(
  backend: string,
  e: unknown,
  rs: RequestSignal,
  ctx: QueryContext,
  streaming = false,
): Promise<unknown> {
  if (rs.timedOut()) return timeoutError(backend, ctx.settings.timeoutMs);
  if (ctx.signal?.aborted) return ctx.signal.reason ?? e;
  const mod = await loadSdk();
  if (e instanceof mod.APIConnectionTimeoutError) {
    return timeoutError(backend, ctx.settings.timeoutMs);
  }
  if (e instanceof mod.APIConnectionError) return networkError(backend, e.cause ?? e);
  if (e instanceof mod.APIError) {
    const body = e.error === undefined ? "" : JSON.stringify({ error: e.error });
    const msg = body ? providerMessage(body) : e.message;
    if (e.status === undefined) return responseError(backend, `reported an error: ${msg}`, e);
    return httpError(backend, e.status, msg, retryAfterMs(e.headers));
  }
  if (e instanceof SyntaxError) {
    return responseError(backend, `sent malformed JSON: ${e.message}`, e);
  }
  if (e instanceof TypeError) {
    // While a stream is read, a TypeError is the body failing (connection reset);
    // otherwise the SDK choked on the shape of a reply.
    return streaming
      ? networkError(backend, e)
      : responseError(backend, `sent a reply that cannot be read: ${e.message}`, e);
  }
  return e;
}
