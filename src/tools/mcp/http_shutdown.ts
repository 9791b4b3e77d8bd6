/**
 * The calls in flight of `workflow mcp --http`, by the POST that carried
 * them: when the server is stopped (SIGINT/SIGTERM) their jobs are recorded
 * `aborted` and each waiting client gets a JSON-RPC error ("server shutting
 * down") instead of a connection that hangs until its own timeout; when a
 * POST's connection closes before its calls are answered, the caller is told
 * which (a session's server then cancels them, R115-2); a call its client
 * cancels (`notifications/cancelled`) ends its POST's reply stream once the
 * POST has nothing else to answer.
 *
 * @module
 */
import type { ServerResponse } from "node:http";
import type {
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";

/** A JSON-RPC request id. */
export type Id = string | number;

/** The requests of one HTTP exchange not answered yet, and how to answer them with an error. */
interface Exchange {
  open: Set<Id>;
  transport: Transport;
  res: ServerResponse;
}

/** The exchanges of a server in flight. */
export interface InFlight {
  /**
   * Tracks the requests one POST carries until each is answered (call after
   * `server.connect(transport)`).
   *
   * @param transport the transport answering them
   * @param res the POST's response
   * @param ids the ids of the requests it carries
   * @param onCut gets the ids still open when the connection closes first
   */
  track: (
    transport: Transport,
    res: ServerResponse,
    ids: readonly Id[],
    onCut?: (open: Id[]) => void,
  ) => void;
  /** Whether a transport has a request not answered yet. */
  busy: (transport: Transport) => boolean;
  /** Answers every request still open with a JSON-RPC error; resolves once sent (≤ 1 s). */
  shutdown: (message: string) => Promise<void>;
}

/** A transport's open requests, each with the exchange carrying it. */
interface Watched {
  open: Map<Id, Exchange>;
}

/**
 * Watches a transport once: an answer sent settles its request; a client's
 * cancel settles it too and, when its exchange has nothing else open, ends
 * that reply stream (the SDK sends nothing for a cancelled request, so the
 * stream would stay open until the client leaves).
 */
function watch(transport: Transport): Watched {
  const w: Watched = { open: new Map() };
  const settle = (id: Id): Exchange | undefined => {
    const ex = w.open.get(id);
    ex?.open.delete(id);
    w.open.delete(id);
    return ex;
  };
  const send = transport.send.bind(transport);
  transport.send = (m: JSONRPCMessage, options?: TransportSendOptions) => {
    const r = m as { id?: Id; method?: string };
    if (r.method === undefined && r.id !== undefined) settle(r.id);
    return send(m, options);
  };
  const onmessage = transport.onmessage;
  transport.onmessage = <T extends JSONRPCMessage>(m: T, extra?: MessageExtraInfo) => {
    onmessage?.(m, extra);
    const r = m as { method?: string; params?: { requestId?: Id } };
    if (r.method !== "notifications/cancelled" || r.params?.requestId === undefined) return;
    const id = r.params.requestId;
    const ex = settle(id);
    const close = (transport as { closeSSEStream?: (id: Id) => void }).closeSSEStream;
    if (ex && ex.open.size === 0) close?.call(transport, id);
  };
  return w;
}

/**
 * A tracker of the requests in flight of an HTTP MCP server.
 *
 * @returns the tracker
 */
export function inFlight(): InFlight {
  const exchanges = new Set<Exchange>();
  const watched = new WeakMap<Transport, Watched>();
  return {
    track: (transport, res, ids, onCut) => {
      let w = watched.get(transport);
      if (!w) watched.set(transport, w = watch(transport));
      const ex: Exchange = { open: new Set(ids), transport, res };
      for (const id of ids) w.open.set(id, ex);
      exchanges.add(ex);
      res.once("close", () => {
        exchanges.delete(ex);
        for (const id of ex.open) if (w.open.get(id) === ex) w.open.delete(id);
        if (ex.open.size > 0) onCut?.([...ex.open]);
      });
    },
    busy: (transport) => (watched.get(transport)?.open.size ?? 0) > 0,
    shutdown: async (message) => {
      const sent = [...exchanges].map(async (ex) => {
        if (ex.open.size === 0) return;
        const closed = new Promise<void>((resolve) => {
          ex.res.once("close", () => resolve());
          setTimeout(resolve, 1000).unref?.();
        });
        for (const id of [...ex.open]) {
          await ex.transport.send({ jsonrpc: "2.0", id, error: { code: -32000, message } })
            .catch(() => {});
        }
        await closed;
      });
      await Promise.all(sent);
    },
  };
}
