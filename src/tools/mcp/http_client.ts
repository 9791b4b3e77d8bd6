/**
 * The HTTP side of an MCP client session (`agents.md` §6.3): reaching a
 * server over Streamable HTTP, falling back to the older SSE transport, and
 * ending the session when the run ends — a `DELETE` with its
 * `Mcp-Session-Id`, as the Streamable HTTP spec asks of clients (R115-6),
 * bounded so that a server which never answers it cannot hold up the exit.
 *
 * @module
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { defaultFetch } from "../../util/http_client.ts";
import { sameOriginFetch } from "../../util/same_origin_fetch.ts";
import { type StreamWatch, watchReplyStreams } from "./stream_watch.ts";

/** How long the end of an HTTP session waits for the server to answer its `DELETE`. */
export const MCP_END_SESSION_MS = 2000;

/** What {@link connectHttp} needs. */
export interface HttpConnect {
  /** The client to connect over Streamable HTTP. */
  client: Client;
  /** Server URL. */
  url: string;
  /** Bearer key (sent only when set, §7.16). */
  key?: string | undefined;
  /** HTTP client (tests). */
  fetch?: typeof fetch | undefined;
  /** Timeout and abort signal of the connect. */
  options: RequestOptions;
  /** Makes the client of the SSE fallback. */
  legacy: () => Client;
  /** Receives the errors of `client`'s transport, with the watch of its reply streams. */
  onError: (e: Error, watch: StreamWatch) => void;
}

/**
 * Connects `client` over Streamable HTTP or, when that fails, a new client
 * over the older SSE transport (the SDK's documented fallback). The key
 * never follows a redirect to another origin (R95-1).
 *
 * @param c the client, url, key and callbacks
 * @returns the connected client (`c.client` or the fallback's)
 * @throws the Streamable HTTP failure when the fallback fails too
 */
export async function connectHttp(c: HttpConnect): Promise<Client> {
  const headers: Record<string, string> = {};
  if (c.key) headers.Authorization = `Bearer ${c.key}`;
  const watch = watchReplyStreams(sameOriginFetch(c.fetch ?? defaultFetch()));
  const common = { requestInit: { headers }, fetch: watch.fetch };
  // a reply stream cut before its answer leaves the request pending (R96-5)
  c.client.onerror = (e: Error) => c.onError(e, watch);
  try {
    await c.client.connect(new StreamableHTTPClientTransport(new URL(c.url), common), c.options);
    return c.client;
  } catch (first) {
    const legacy = c.legacy();
    try {
      await legacy.connect(new SSEClientTransport(new URL(c.url), common), c.options);
      return legacy;
    } catch {
      throw first;
    }
  }
}

/**
 * Ends the server's session of a Streamable HTTP client (a `DELETE` with
 * its `Mcp-Session-Id`; the SDK's `close()` alone never sends it), waiting
 * at most `ms` for the answer: closing the client afterwards aborts a
 * `DELETE` still unanswered. A client of another transport, or one the
 * server gave no session id (a stateless server), sends nothing. Never throws.
 *
 * @param client the client, before it is closed
 * @param ms the longest wait
 */
export async function endHttpSession(client: Client, ms = MCP_END_SESSION_MS): Promise<void> {
  const transport = client.transport;
  if (!(transport instanceof StreamableHTTPClientTransport) || !transport.sessionId) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    transport.terminateSession().catch(() => {}),
    new Promise<void>((r) => (timer = setTimeout(r, ms))),
  ]);
  clearTimeout(timer);
}
