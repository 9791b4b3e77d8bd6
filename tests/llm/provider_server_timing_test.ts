/**
 * The loopback provider server's timestamps (tests/support/provider_server.ts),
 * which the agents bench subtracts as the server's time: `arrivedAt` is
 * taken before the body is read, `receivedAt` after it is parsed, and
 * `firstByteAt` when the reply starts.
 *
 * @module
 */
import assert from "node:assert/strict";
import { startProviderServer } from "../support/provider_server.ts";

Deno.test("provider server: arrival, parsed body and first byte are stamped in that order", async () => {
  await using srv = await startProviderServer();
  srv.script({ text: "ok", delayMs: 30 });
  // a large body: reading and parsing it takes a measurable time after arrival
  const big = "x".repeat(4 << 20);
  const res = await fetch(`${srv.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer k" },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: big }] }),
  });
  await res.text();
  const [r] = srv.requests;
  assert.ok(r, "the request was recorded");
  assert.ok(r.arrivedAt < r.receivedAt, `arrivedAt ${r.arrivedAt} < receivedAt ${r.receivedAt}`);
  assert.ok(r.firstByteAt !== undefined);
  assert.ok(r.firstByteAt - r.receivedAt >= 29, "the scripted delay lies between parse and reply");
});
