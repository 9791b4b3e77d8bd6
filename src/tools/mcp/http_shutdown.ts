/**
 * Answering the calls in flight when `workflow mcp --http` is stopped
 * (SIGINT/SIGTERM): their jobs are recorded `aborted`, and each waiting
 * client gets a JSON-RPC error ("server shutting down") instead of a
 * connection that hangs until its own timeout.
 *
 * @module
 */
import type { ServerResponse } from "node:http";
import type {
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";

type Id = string | number;

/** The requests of one HTTP exchange not answered yet, and how to answer them with an error. */
interface Exchange {
  open: Set<Id>;
  transport: Transport;
  res: ServerResponse;
}

/** The exchanges of a server in flight. */
export interface InFlight {
  /** Tracks an exchange's requests (call after `server.connect(transport)`). */
  track: (transport: Transport, res: ServerResponse) => void;
  /** Answers every request still open with a JSON-RPC error; resolves once sent (≤ 1 s). */
  shutdown: (message: string) => Promise<void>;
}

/**
 * A tracker of the requests in flight of an HTTP MCP server.
 *
 * @returns the tracker
 */
export function inFlight(): InFlight {
  const exchanges = new Set<Exchange>();
  return {
    track: (transport, res) => {
      const ex: Exchange = { open: new Set(), transport, res };
      exchanges.add(ex);
      res.once("close", () => exchanges.delete(ex));
      const onmessage = transport.onmessage;
      transport.onmessage = <T extends JSONRPCMessage>(m: T, extra?: MessageExtraInfo) => {
        const r = m as { id?: Id; method?: string };
        if (r.method !== undefined && r.id !== undefined) ex.open.add(r.id);
        onmessage?.(m, extra);
      };
      const send = transport.send.bind(transport);
      transport.send = (m: JSONRPCMessage, options?: TransportSendOptions) => {
        const r = m as { id?: Id; method?: string };
        if (r.method === undefined && r.id !== undefined) ex.open.delete(r.id);
        return send(m, options);
      };
    },
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
