/**
 * sameOriginFetch (R95-1): redirects are followed only within the origin
 * (scheme, host and port); an https → http downgrade on the same host is
 * another origin. The inner fetch is a recording fake (the network edge).
 */
import assert from "node:assert/strict";
import { isScoutError } from "../../src/errors.ts";
import { sameOriginFetch } from "../../src/util/same_origin_fetch.ts";

interface Call {
  url: string;
  method: string;
  body: string | null;
  headers: Headers;
  redirect: string | undefined;
}

/** A fake fetch answering each url from `routes` (a 307 when a route is a string). */
function fake(routes: Record<string, string | [number, string]>) {
  const calls: Call[] = [];
  const f: typeof fetch = (input, init) => {
    const url = String(input);
    calls.push({
      url,
      method: init?.method ?? "GET",
      body: (init?.body as string | undefined) ?? null,
      headers: new Headers(init?.headers),
      redirect: init?.redirect,
    });
    const r = routes[url];
    if (r === undefined) return Promise.resolve(new Response("done"));
    const [status, location] = typeof r === "string" ? [307, r] : r;
    return Promise.resolve(new Response(null, { status, headers: { location } }));
  };
  return { f, calls };
}

const init = {
  method: "POST",
  body: '{"q":1}',
  headers: { "x-api-key": "K", "content-type": "a/b" },
};

Deno.test("R95-1: an https → http redirect on the same host is refused before anything is sent there", async () => {
  const { f, calls } = fake({ "https://h.example/v1": "http://h.example/v1" });
  await assert.rejects(sameOriginFetch(f)("https://h.example/v1", init), (e) => {
    assert.ok(isScoutError(e, "redirect_refused"));
    assert.match(e.message, /from https:\/\/h\.example to http:\/\/h\.example/);
    return true;
  });
  assert.deepEqual(calls.map((c) => c.url), ["https://h.example/v1"]);
  assert.equal(calls[0]!.redirect, "manual");
});

Deno.test("R95-1: another port or host is another origin; the same origin is followed with method, body and headers (307/308)", async () => {
  for (const to of ["https://h.example:8443/v1", "https://evil.example/v1"]) {
    const { f, calls } = fake({ "https://h.example/v1": to });
    await assert.rejects(sameOriginFetch(f)("https://h.example/v1", init), /Refused a redirect/);
    assert.equal(calls.length, 1);
  }
  for (const status of [307, 308]) {
    const { f, calls } = fake({ "https://h.example/v1": [status, "/v2?x=1"] });
    const res = await sameOriginFetch(f)("https://h.example/v1", init);
    assert.equal(await res.text(), "done");
    assert.equal(calls[1]!.url, "https://h.example/v2?x=1");
    assert.equal(calls[1]!.method, "POST");
    assert.equal(calls[1]!.body, '{"q":1}');
    assert.equal(calls[1]!.headers.get("x-api-key"), "K");
  }
});

Deno.test("R95-1: a 303 (or a 302 of a POST) within the origin becomes a GET without body", async () => {
  for (const status of [302, 303]) {
    const { f, calls } = fake({ "https://h.example/v1": [status, "/done"] });
    await sameOriginFetch(f)("https://h.example/v1", init);
    assert.equal(calls[1]!.method, "GET");
    assert.equal(calls[1]!.body, null);
    assert.equal(calls[1]!.headers.get("content-type"), null);
  }
});

Deno.test("R95-1: a Request input is guarded too; a redirect loop ends; the wrapper is one per fetch", async () => {
  const { f, calls } = fake({ "https://h.example/a": "https://evil.example/a" });
  const req = new Request("https://h.example/a", init);
  await assert.rejects(sameOriginFetch(f)(req), /to https:\/\/evil\.example/);
  assert.equal(calls[0]!.method, "POST");
  const loop = fake({ "https://h.example/l": "/l" });
  await assert.rejects(sameOriginFetch(loop.f)("https://h.example/l"), /Too many redirects/);
  assert.equal(loop.calls.length, 21);
  assert.equal(sameOriginFetch(f), sameOriginFetch(f));
  assert.equal(sameOriginFetch(sameOriginFetch(f)), sameOriginFetch(f));
});
