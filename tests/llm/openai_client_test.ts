/**
 * The `openai` SDK client is built once per fetch, base url, timeout and key
 * — not once per ask (every ask resolves a new settings object; building a
 * client per ask was a measurable share of each delegated call, see
 * docs/design-notes.md "Agents bench").
 */
import assert from "node:assert/strict";
import { openaiClient } from "../../src/llm/backends/openai_sdk.ts";
import type { ClientSettings, QueryContext } from "../../src/llm/types.ts";

const settings = (over: Partial<ClientSettings> = {}): ClientSettings => ({
  backend: "openai",
  model: "m",
  key: "sk-one",
  apiVersion: "v1",
  timeoutMs: 1000,
  ...over,
});
const ctx = (s: ClientSettings, f: typeof fetch = globalThis.fetch): QueryContext => ({
  settings: s,
  fetch: f,
});

Deno.test("openaiClient: asks with equal settings share one client; key, url, timeout or fetch changes give another", async () => {
  const url = "http://127.0.0.1:9/v1";
  const a = await openaiClient(ctx(settings()), url);
  // a new settings object per ask (what ask.ts resolves each time): same client
  assert.equal(await openaiClient(ctx(settings()), url), a);
  const otherKey = await openaiClient(ctx(settings({ key: "sk-two" })), url);
  assert.notEqual(otherKey, a);
  assert.equal(otherKey.apiKey, "sk-two");
  assert.notEqual(await openaiClient(ctx(settings({ timeoutMs: 5 })), url), otherKey);
  assert.notEqual(await openaiClient(ctx(settings()), "http://127.0.0.1:8/v1"), otherKey);
  const f: typeof fetch = (input, init) => globalThis.fetch(input, init);
  const viaF = await openaiClient(ctx(settings(), f), url);
  assert.notEqual(viaF, a);
  assert.equal(await openaiClient(ctx(settings(), f), url), viaF);
  // the key that changed back gets a client with that key again
  assert.equal((await openaiClient(ctx(settings()), url)).apiKey, "sk-one");
});
