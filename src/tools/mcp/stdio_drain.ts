/**
 * Ending an MCP stdio server when its client closes stdin: the requests
 * already read are answered first. A client that sends its requests and
 * closes (`printf … | scout-ai workflow mcp W`) expects every reply; closing
 * the server at once aborted the handlers and dropped their replies, and the
 * process then exited under the jobs they ran (R81-3). The SDK's own stdio
 * server transport does not close on end of input at all: a Node server
 * exits once its work is done and its event loop drains. Ours closes once
 * no request is waiting for its reply, so the command returns.
 *
 * @module
 */
import type {
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";

type Id = string | number;

function requestId(m: JSONRPCMessage): Id | undefined {
  const r = m as { id?: Id; method?: string };
  return r.method !== undefined && r.id !== undefined ? r.id : undefined;
}

function responseId(m: JSONRPCMessage): Id | undefined {
  const r = m as { id?: Id; method?: string };
  return r.method === undefined && r.id !== undefined ? r.id : undefined;
}

/** A request the client cancelled is not answered (the SDK sends nothing for it). */
function cancelledId(m: JSONRPCMessage): Id | undefined {
  const n = m as { method?: string; params?: { requestId?: Id } };
  return n.method === "notifications/cancelled" ? n.params?.requestId : undefined;
}

/**
 * Counts the requests a connected transport has read and not yet answered,
 * and tells when none is left. Wraps the transport's `onmessage` (set by the
 * SDK's `connect`, so call this after it) and `send`.
 *
 * @param transport a transport already connected to a server
 * @returns `idle()`: resolves once every request read so far was answered
 *   (or cancelled); requests read meanwhile are waited for too
 */
export function trackUnanswered(transport: Transport): { idle: () => Promise<void> } {
  const open = new Map<Id, number>();
  let wake: (() => void) | null = null;
  const settle = (id: Id | undefined) => {
    if (id === undefined || !open.has(id)) return;
    const n = open.get(id)! - 1;
    if (n > 0) open.set(id, n);
    else open.delete(id);
    if (open.size === 0) wake?.();
  };
  const onmessage = transport.onmessage;
  transport.onmessage = <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => {
    const id = requestId(message);
    if (id !== undefined) open.set(id, (open.get(id) ?? 0) + 1);
    settle(cancelledId(message));
    onmessage?.(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage, options?: TransportSendOptions) => {
    try {
      await send(message, options);
    } finally {
      settle(responseId(message));
    }
  };
  return {
    idle: () =>
      open.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (wake = resolve)),
  };
}
