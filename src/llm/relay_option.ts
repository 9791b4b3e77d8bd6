/**
 * The `relay: <server>` option on any backend (`inference.md` appendix
 * "relay", form 2): each provider request of the ask is not sent from here;
 * its messages and options go as `[messages, options]` to
 * `<digest>.json` in the server's query queue (`~/.scout/var/query/`, or a
 * local directory), `scout-ai llm process_queries` there sends it with its
 * own keys and saves the provider's raw response in `response/<digest>.json`,
 * and this side processes that response with the same backend — so tool
 * calls run here, with this side's tools.
 *
 * @module
 */
import { relayMessages, relayTimeout, waitFor } from "./backends/relay.ts";
import { relayTransport } from "./relay_transport.ts";
import type { Backend, BackendRequest, QueryContext } from "./types.ts";
import { md5hex } from "../util/hash.ts";
import { isScoutError } from "../errors.ts";

/** Remote queue directory of the `relay:` option (under the remote home). */
export const RELAY_QUERY_DIR = ".scout/var/query";

/**
 * The query document of one request: the messages and the options the
 * worker's ask needs to send the same request (backend, model, parameters,
 * tool definitions, format).
 *
 * @param req the request
 * @param backendName the backend
 * @param model the model
 * @returns the JSON text
 */
export function relayQuery(req: BackendRequest, backendName: string, model: string): string {
  const options: Record<string, unknown> = { backend: backendName, model, ...req.params };
  if (req.tools.length) options.tools = req.tools;
  if (req.text?.format) options.format = req.text.format;
  return JSON.stringify([relayMessages(req.messages), options]);
}

/**
 * Wraps a backend so that its requests travel through a relay queue.
 *
 * @param backend the backend that builds requests and reads replies
 * @param backendName its name (sent to the worker)
 * @param server ssh destination (`host`, `user@host`, `host:/dir`) or local directory
 * @param ssh ssh command and options
 * @returns the relayed backend (never streams: the reply arrives whole)
 */
export function relayedBackend(
  backend: Backend,
  backendName: string,
  server: string,
  ssh = "ssh",
): Backend {
  const t = relayTransport(server, RELAY_QUERY_DIR, ssh);
  // One fetch for the whole ask (SDK clients keep the fetch they were made
  // with), sending the request of the round being queried.
  let current: { req: BackendRequest; model: string; timeoutMs: number } | null = null;
  // the request whose wait ran out: reported as the relay's timeout, not retried (R167-7)
  let waited: string | null = null;
  const relayFetch: typeof fetch = async (_input, init) => {
    const { req, model, timeoutMs } = current!;
    const doc = relayQuery(req, backendName, model);
    const id = md5hex(doc);
    const name = `response/${id}.json`;
    let text = await t.get(name);
    // a stored failure is not an answer: asking again reaches the provider again (R167-3)
    if (text !== null && workerFailure(text) !== null) {
      await t.remove(name);
      text = null;
    }
    if (text === null) {
      await t.put(`${id}.json`, doc);
      text = await waitFor(t, name, timeoutMs, init?.signal ?? undefined).catch((e) => {
        if ((e as Error)?.name === "TimeoutError") waited = id; // the backend's own timer
        throw e;
      });
    }
    if (text === null) {
      waited = id;
      throw new DOMException("relay wait", "TimeoutError");
    }
    const failure = workerFailure(text);
    if (failure !== null) await t.remove(name); // consumed: the next ask queues it anew
    const headers = { "content-type": "application/json" };
    return failure === null ? new Response(text, { status: 200, headers }) : new Response(
      JSON.stringify({ error: { message: `relay worker failed: ${failure}` } }),
      { status: 400, headers },
    );
  };
  return {
    ...backend,
    query: async (req: BackendRequest, ctx: QueryContext) => {
      const plain = { ...req, stream: false };
      const timeoutMs = ctx.settings.timeoutMs;
      current = { req: plain, model: ctx.settings.model, timeoutMs };
      waited = null;
      try {
        return await backend.query(plain, { ...ctx, fetch: relayFetch });
      } catch (e) {
        if (waited === null) throw viaRelay(e, server);
        const context = { backend: backendName, phase: "query", cause: e };
        throw viaRelay(
          relayTimeout(t.label, waited, timeoutMs, "process_queries", context),
          server,
        );
      }
    },
  };
}

/**
 * Names the relay as where a failed request went (`e.via`, which
 * `error_location.ts` names in the message), not the url the backend would
 * have used: no request went there (R109-7). A network error's ` at <url>`
 * is taken out of its message.
 *
 * @param e what the backend threw
 * @param server the relay server
 * @returns `e`
 */
function viaRelay(e: unknown, server: string): unknown {
  if (!isScoutError(e)) return e;
  if (e.urlShown === true && typeof e.url === "string") {
    e.message = e.message.replace(` at ${e.url}`, "");
  }
  delete e.url;
  delete e.urlShown;
  e.via = `relay ${server}`;
  return e;
}

/** The worker's `{"error": …}` reply, or null for a provider response. */
function workerFailure(text: string): string | null {
  try {
    const v = JSON.parse(text);
    if (v && typeof v === "object" && Object.keys(v).length === 1 && typeof v.error === "string") {
      return v.error;
    }
  } catch { /* the backend reports a malformed body */ }
  return null;
}
