/**
 * Which MCP server answers a POST to `workflow mcp --http` ([TS-FIX] R115-2).
 * A stateless server (one per POST) cannot cancel a call: the client's
 * `notifications/cancelled` arrives in another POST, at a server that never
 * saw the request. So a client that initializes gets a session: its server
 * and transport live on, the `Mcp-Session-Id` header (a random UUID only that
 * client has) routes its later POSTs — its cancels among them — to them, and
 * a DELETE ends it. Request ids are per client, so a cancel reaches only the
 * calls of its own session: another client's session, a request without a
 * session or with an id no session has (404) cancels nothing. A POST without
 * a session that is not an `initialize` is served by a server of its own, as
 * before (a `curl` call needs no handshake); it is cancelled by closing its
 * connection. A session's POST cut before its calls are answered cancels
 * them. At most {@link MAX_SESSIONS} sessions are kept: past that, the least
 * recently used one with no call open is ended (its client gets 404 and
 * initializes again).
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { Id, InFlight } from "./http_shutdown.ts";
import { jsonText } from "../../util/json_text.ts";

/** Sessions kept at most. */
export const MAX_SESSIONS = 1000;

/** The SDK's limit of a request body (4 MiB). */
const MAX_BODY = 4 * 1024 * 1024;

/** One client's server and transport. */
interface Session {
  server: Server;
  transport: StreamableHTTPServerTransport;
}

/** Routes the requests of `workflow mcp --http` to their servers. */
export interface McpHttpRouter {
  /**
   * Answers one HTTP request (its Host and Origin already checked).
   * @param req the request
   * @param res its response
   */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Ends every session (their calls' handlers are aborted). */
  close(): Promise<void>;
}

/** Writes a JSON-RPC error reply with an HTTP status. */
function reply(res: ServerResponse, status: number, code: number, message: string): void {
  if (res.headersSent) return;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (status === 405) headers.allow = "POST, DELETE";
  res.writeHead(status, headers);
  res.end(jsonText({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

/** The parsed JSON body, or null once an error reply is written. */
async function jsonBody(
  req: IncomingMessage,
  res: ServerResponse,
): Promise<{ body: unknown } | null> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Uint8Array).length;
    if (size > MAX_BODY) {
      reply(res, 413, -32000, `Request body too large (more than ${MAX_BODY} bytes)`);
      req.resume();
      return null;
    }
    chunks.push(chunk as Uint8Array);
  }
  try {
    return { body: JSON.parse(Buffer.concat(chunks).toString("utf8")) };
  } catch {
    reply(res, 400, -32700, "Parse error: Invalid JSON");
    return null;
  }
}

/** The ids of the requests (not notifications or responses) of a body. */
function requestIds(body: unknown): Id[] {
  const items = Array.isArray(body) ? body : [body];
  return items.flatMap((m) => {
    const r = m as { id?: unknown; method?: unknown } | null;
    const ok = r && typeof r.method === "string" &&
      (typeof r.id === "string" || typeof r.id === "number");
    return ok ? [r.id as Id] : [];
  });
}

/** A session's POST cut before its calls are answered cancels them (the SDK's own path). */
function cancelCut(transport: StreamableHTTPServerTransport): (open: Id[]) => void {
  return (open) => {
    for (const requestId of open) {
      transport.onmessage?.({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId, reason: "The client disconnected" },
      });
    }
  };
}

/** A POST without a session: a server of its own, gone (its handler aborted) with the connection. */
async function serveStateless(
  server: Server,
  calls: InFlight,
  exchange: { req: IncomingMessage; res: ServerResponse; body: unknown },
): Promise<void> {
  const { req, res, body } = exchange;
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  calls.track(transport, res, requestIds(body));
  await transport.handleRequest(req, res, body);
}

/** The sessions by id, least recently used first. */
interface SessionTable {
  /** The session of an id (now the most recently used), if any. */
  use(id: string): Session | undefined;
  /** Adds a session. */
  add(id: string, s: Session): void;
  /** Ends a session. */
  end(id: string, s: Session): Promise<void>;
  /** Ends the least recently used session with no call open when the table is full. */
  makeRoom(): void;
  /** Ends them all. */
  endAll(): Promise<void>;
}

function sessionTable(calls: InFlight, limit: number): SessionTable {
  const sessions = new Map<string, Session>();
  const t: SessionTable = {
    use: (id) => {
      const s = sessions.get(id);
      if (s) {
        sessions.delete(id);
        sessions.set(id, s);
      }
      return s;
    },
    add: (id, s) => void sessions.set(id, s),
    end: async (id, s) => {
      if (sessions.get(id) === s) sessions.delete(id);
      await Promise.all([s.transport.close(), s.server.close()]).catch(() => {});
    },
    makeRoom: () => {
      if (sessions.size < limit) return;
      const idle = [...sessions].find(([, s]) => !calls.busy(s.transport));
      if (idle) void t.end(...idle);
    },
    endAll: async () => {
      await Promise.all([...sessions].map(([id, s]) => t.end(id, s)));
    },
  };
  return t;
}

/**
 * The router of an HTTP MCP server.
 *
 * @param make builds the MCP server of the workflow (one per session or stateless POST)
 * @param calls the tracker of the calls in flight
 * @param limit sessions kept at most
 * @returns the router
 */
export function mcpHttpRouter(
  make: () => Server,
  calls: InFlight,
  limit: number = MAX_SESSIONS,
): McpHttpRouter {
  const table = sessionTable(calls, limit);
  const serve = async (s: Session, req: IncomingMessage, res: ServerResponse, body: unknown) => {
    calls.track(s.transport, res, requestIds(body), cancelCut(s.transport));
    await s.transport.handleRequest(req, res, body);
  };
  const open = async (req: IncomingMessage, res: ServerResponse, body: unknown) => {
    table.makeRoom();
    const s: Session = {
      server: make(),
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id: string) => table.add(id, s),
        onsessionclosed: (id: string) => table.end(id, s),
      }),
    };
    await s.server.connect(s.transport);
    await serve(s, req, res, body);
  };
  return {
    handle: async (req, res) => {
      const header = req.headers["mcp-session-id"];
      const id = Array.isArray(header) ? header[0] : header;
      const s = id === undefined ? undefined : table.use(id);
      if (id !== undefined && !s) return reply(res, 404, -32001, "Session not found");
      if (req.method === "DELETE" && s) return await s.transport.handleRequest(req, res);
      if (req.method !== "POST") {
        return reply(res, 405, -32000, "Method not allowed (POST; DELETE ends a session)");
      }
      const parsed = await jsonBody(req, res);
      if (parsed === null) return;
      const body = parsed.body;
      if (s) return await serve(s, req, res, body);
      const init = (Array.isArray(body) ? body : [body]).some((m) => isInitializeRequest(m));
      if (init) return await open(req, res, body);
      await serveStateless(make(), calls, { req, res, body });
    },
    close: () => table.endAll(),
  };
}
