/**
 * A fetch that follows redirects only within the origin it was asked for.
 *
 * A provider (or an MCP server) sees the request's credentials: `x-api-key`,
 * `api-key`, a session token… fetch drops `Authorization` on a cross-origin
 * redirect but keeps every other header, so a redirect to another origin
 * would hand the key to whoever the provider names (R95-1). This wrapper asks
 * the inner fetch for `redirect: "manual"` and follows a redirect itself only
 * when the target has the same scheme, host and port; otherwise it fails with
 * a `redirect_refused` error naming the origin it refused, and the request
 * never leaves. An https → http downgrade on the same host is another origin.
 *
 * @module
 */
import { ScoutError } from "../errors.ts";

/** Redirects a fetch would follow. */
const REDIRECT = new Set([301, 302, 303, 307, 308]);
/** Most redirects followed for one request (fetch's own limit). */
const MAX_REDIRECTS = 20;
/** Headers about the body, dropped when a redirect turns the request into a GET. */
const BODY_HEADERS = ["content-type", "content-length", "content-encoding", "content-language"];

const wrapped = new WeakMap<typeof fetch, typeof fetch>();
const ours = new WeakSet<typeof fetch>();

/**
 * Wraps a fetch so that it never follows a redirect to another origin. The
 * same inner fetch gives the same wrapper (clients cached by fetch stay shared),
 * and wrapping a wrapper returns it.
 *
 * @example
 * ```ts
 * const f = sameOriginFetch(fetch);
 * // a 307 to http://other.host/… rejects with ScoutError("redirect_refused")
 * ```
 *
 * @param inner the fetch doing the requests (default: the global one)
 * @returns the guarded fetch
 */
export function sameOriginFetch(inner: typeof fetch = globalThis.fetch): typeof fetch {
  if (ours.has(inner)) return inner;
  let f = wrapped.get(inner);
  if (!f) {
    f = (input, init) => follow(inner, input, init);
    wrapped.set(inner, f);
    ours.add(f);
  }
  return f;
}

async function follow(
  inner: typeof fetch,
  input: string | URL | Request,
  init: RequestInit | undefined,
): Promise<Response> {
  let hop = await firstHop(input, init);
  for (let hops = 0;; hops++) {
    const res = await inner(hop.url, { ...hop.init, redirect: "manual" });
    if (res.type === "opaqueredirect") throw refused(hop.url, null);
    const location = REDIRECT.has(res.status) ? res.headers.get("location") : null;
    if (location === null) return res;
    await res.body?.cancel().catch(() => {});
    const next = new URL(location, hop.url);
    if (next.origin !== new URL(hop.url).origin) throw refused(hop.url, next.origin);
    if (hops + 1 > MAX_REDIRECTS) {
      throw new ScoutError("redirect_refused", `Too many redirects from ${originOf(hop.url)}`, {
        retryable: false,
      });
    }
    hop = { url: next.href, init: redirectedInit(hop.init, res.status, hop.url) };
  }
}

async function firstHop(input: string | URL | Request, init: RequestInit | undefined) {
  if (!(input instanceof Request)) return { url: String(input), init: { ...init } };
  const req = new Request(input, init);
  const body = req.body === null ? undefined : await req.arrayBuffer();
  return {
    url: req.url,
    init: {
      method: req.method,
      headers: req.headers,
      signal: req.signal,
      ...(body === undefined ? {} : { body }),
    },
  };
}

/** The request after a redirect: 303 (and 301/302 of a POST) become a GET without body. */
function redirectedInit(init: RequestInit, status: number, url: string): RequestInit {
  const method = (init.method ?? "GET").toUpperCase();
  const toGet = (status === 303 && method !== "GET" && method !== "HEAD") ||
    ((status === 301 || status === 302) && method === "POST");
  if (toGet) {
    const headers = new Headers(init.headers);
    for (const h of BODY_HEADERS) headers.delete(h);
    const { body: _body, ...rest } = init;
    return { ...rest, method: "GET", headers };
  }
  if (init.body instanceof ReadableStream) {
    throw new ScoutError(
      "redirect_refused",
      `Cannot resend a streamed request body on a ${status} redirect from ${originOf(url)}`,
      { retryable: false },
    );
  }
  return init;
}

function originOf(url: string): string {
  return new URL(url).origin;
}

function refused(from: string, to: string | null): ScoutError {
  const where = to === null ? "an origin it does not show" : to;
  return new ScoutError(
    "redirect_refused",
    `Refused a redirect from ${originOf(from)} to ${where}: ` +
      "credentials are only sent to the configured origin",
    { retryable: false, url: originOf(from), redirectTo: to ?? undefined },
  );
}
