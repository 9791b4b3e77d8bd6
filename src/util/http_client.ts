/**
 * The process's HTTP client: the global `fetch`, except under Bun (the
 * compiled binary), where it is the `fetch` of one `Bun.FetchSession` — the
 * same requests, but a keep-alive pool this process can empty. Bun's plain
 * `fetch` keeps every connection it opened (one per request that ran at once:
 * eight specialists asked in parallel leave eight sockets) for the rest of
 * the run, and offers no way to close them; under a low descriptor limit
 * (`ulimit -n 16`) they held every descriptor left, and the chat of a run
 * that had finished could not be saved (R119-5). {@link closeIdleConnections}
 * closes them when a file cannot be opened for want of descriptors
 * (`descriptors.ts`).
 *
 * A `fetch` replaced by the embedding program (a test's stub, a proxy
 * wrapper) is used as it is. Elsewhere (Deno) nothing changes.
 *
 * @module
 */

/** The part of Bun's `FetchSession` used here. */
interface FetchSession {
  fetch: typeof fetch;
  close(): void;
}

/** Bun's `FetchSession` constructor, or undefined under another runtime (or an older Bun). */
function sessionClass(): (new (init: Record<string, unknown>) => FetchSession) | undefined {
  const bun = (globalThis as {
    Bun?: { FetchSession?: new (init: Record<string, unknown>) => FetchSession };
  }).Bun;
  return bun?.FetchSession;
}

let session: FetchSession | undefined;

/** Whether `f` is the runtime's own fetch (not a replacement written in JavaScript). */
function isNative(f: typeof fetch): boolean {
  return /\{\s*\[native code\]\s*\}\s*$/.test(Function.prototype.toString.call(f));
}

/**
 * The fetch requests go through when the caller gives none: under Bun the
 * session's (its idle connections closable), else the global `fetch`.
 *
 * @example
 * ```ts
 * import { defaultFetch } from "./http_client.ts";
 * const res = await defaultFetch()("http://127.0.0.1:8080/v1/models");
 * ```
 *
 * @returns a fetch
 */
export function defaultFetch(): typeof fetch {
  const global = globalThis.fetch;
  if (global === checkedGlobal) return session?.fetch ?? global;
  const Session = sessionClass();
  if (Session === undefined || !isNative(global)) return global; // asked again: it may change
  session ??= new Session({});
  checkedGlobal = global;
  return session.fetch;
}

/** The global `fetch` found native (every ask asks: its source text is read once). */
let checkedGlobal: typeof fetch | undefined;

/**
 * Closes the idle keep-alive connections of {@link defaultFetch}'s session
 * (requests in flight finish; the session stays usable and opens new ones).
 * A no-op where there is no session.
 */
export function closeIdleConnections(): void {
  session?.close();
}
