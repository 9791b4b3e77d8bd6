/**
 * The POST reply streams the SDK will not resume (R98-3), over a real local
 * HTTP server: a stream cut before its answer counts as a drop unless it
 * carried an event id (resumable) or its answer; GET streams are not watched.
 */
import assert from "node:assert/strict";
import { watchReplyStreams } from "../../src/tools/mcp/stream_watch.ts";

const enc = new TextEncoder();

Deno.test("watchReplyStreams: a POST SSE stream cut before its answer is a drop, unless it had an event id or its answer; a GET stream never", async () => {
  const srv = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const first = new URL(req.url).searchParams.get("first") ?? "";
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(enc.encode(first));
        setTimeout(() => c.error(new Error("cut")), 50);
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
  const url = `http://127.0.0.1:${srv.addr.port}/mcp`;
  const answer = 'data: {"jsonrpc":"2.0","id":2,"result":{}}\n\n';
  const cases: [string, string, boolean][] = [
    ["POST", ": hi\n\n", true],
    ["POST", 'data: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n', true],
    ["POST", "id: 7\ndata:\n\n", false],
    ["POST", answer, false],
    ["GET", ": hi\n\n", false],
  ];
  try {
    for (const [method, first, drop] of cases) {
      const watch = watchReplyStreams(fetch);
      const res = await watch.fetch(`${url}?first=${encodeURIComponent(first)}`, { method });
      await assert.rejects(res.text());
      assert.equal(watch.takeDrop(), drop, `${method} ${JSON.stringify(first)}`);
      assert.equal(watch.takeDrop(), false);
    }
  } finally {
    await srv.shutdown();
  }
});
