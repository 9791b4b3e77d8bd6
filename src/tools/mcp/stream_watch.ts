/**
 * Which broken SSE streams of a Streamable HTTP connection the SDK will not
 * resume (R98-3). The SDK reports every broken stream the same way
 * (`onerror` "SSE stream disconnected: …") but reconnects on its own a GET
 * stream (the standalone notification stream) and a POST reply stream that
 * carried an event id (a resumable server); only a POST reply stream
 * without one, broken before its answer, leaves its request pending until
 * the timeout. This fetch wrapper watches the POST reply streams and counts
 * those drops, for the session to fail its pending calls on exactly them.
 *
 * @module
 */

/** A fetch that watches POST reply streams, and the drops it saw. */
export interface StreamWatch {
  /** The fetch to give the transport. */
  fetch: typeof fetch;
  /**
   * Takes one drop of a POST reply stream the SDK will not resume.
   *
   * @returns whether there was one
   */
  takeDrop(): boolean;
}

/** Tracks the SSE events of one reply stream: an event id seen, an answer seen. */
function sseScanner(): { scan(chunk: Uint8Array): void; owed(): boolean } {
  const decoder = new TextDecoder();
  let tail = "";
  let data = "";
  let resumable = false;
  let answered = false;
  const line = (l: string) => {
    if (l === "") {
      if (data !== "" && isAnswer(data)) answered = true;
      data = "";
    } else if (/^id:/.test(l)) resumable = true;
    else if (/^data:/.test(l)) data += l.replace(/^data: ?/, "") + "\n";
  };
  return {
    scan(chunk) {
      if (resumable || answered) return;
      const lines = (tail + decoder.decode(chunk, { stream: true })).split(/\r\n|\r|\n/);
      tail = lines.pop() ?? "";
      for (const l of lines) line(l);
    },
    owed: () => !resumable && !answered,
  };
}

/** Whether an SSE event's data is a JSON-RPC answer (result or error). */
function isAnswer(data: string): boolean {
  try {
    const m = JSON.parse(data) as Record<string, unknown>;
    return "id" in m && ("result" in m || "error" in m);
  } catch {
    return false;
  }
}

function methodOf(input: string | URL | Request, init: RequestInit | undefined): string {
  return (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
}

/**
 * Wraps a fetch so that the POST replies that are SSE streams are watched.
 *
 * @param inner the fetch doing the requests
 * @returns the wrapped fetch and the drops it counts
 */
export function watchReplyStreams(inner: typeof fetch): StreamWatch {
  let drops = 0;
  const watched: typeof fetch = async (input, init) => {
    const res = await inner(input, init);
    const type = res.headers.get("content-type") ?? "";
    if (methodOf(input, init) !== "POST" || !res.ok || !res.body) return res;
    if (!/^\s*text\/event-stream/i.test(type)) return res;
    const reader = res.body.getReader();
    const sse = sseScanner();
    const body = new ReadableStream<Uint8Array>({
      async pull(c) {
        let r: ReadableStreamReadResult<Uint8Array>;
        try {
          r = await reader.read();
        } catch (e) {
          if (sse.owed()) drops++;
          c.error(e);
          return;
        }
        if (r.done) return c.close();
        sse.scan(r.value);
        c.enqueue(r.value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    const out = new Response(body, {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
    Object.defineProperty(out, "url", { value: res.url });
    return out;
  };
  return {
    fetch: watched,
    takeDrop() {
      if (drops === 0) return false;
      drops--;
      return true;
    },
  };
}
