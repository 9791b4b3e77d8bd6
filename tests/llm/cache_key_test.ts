/**
 * The cache keys are byte for byte what they were, `sha256(canonicalJson({
 * v, ...input }))`: digests pinned from the code before the member-by-member
 * serialisation (commit 37a3422), a property over arbitrary inputs against
 * that formula, and messages changed in place after they were keyed (their
 * remembered text must not be reused). Existing cache entries and the
 * committed replay data hitting is `deno task replay-check`.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  cacheKey,
  type CacheKeyInput,
  canonicalJson,
  roundCacheKey,
  roundCacheKeys,
} from "../../src/llm/cache_key.ts";
import { sha256hex } from "../../src/util/hash.ts";

const reference = (v: number, input: CacheKeyInput) => sha256hex(canonicalJson({ v, ...input }));

function assertKeys(input: CacheKeyInput, legacy: string, round: string): void {
  assert.equal(cacheKey(input), legacy);
  assert.equal(roundCacheKey(input), round);
  assert.deepEqual(roundCacheKeys(input), { legacy, round });
}

// [input, v:1 digest, v:2 digest], the digests written by commit 37a3422's code
const pinned: [CacheKeyInput, string, string][] = [
  [
    {
      endpoint: "",
      backend: "openai",
      model: "gpt-x",
      params: { params: {}, previousResponseId: null, prompt: null },
      tools: [],
      messages: [{ role: "user", content: "hi" }],
      currentMeta: undefined,
    },
    "6941b452a72e39f8ecd4e4808d89a9744748dacd1b4a2b2e15aa590f9a0f504b",
    "9273cfc7526f8db83fc4ed36ba3ffa0be60af2ee6a31492c68e82f9f07a8b972",
  ],
  [
    {
      endpoint: "loopback",
      backend: "responses",
      model: "m",
      params: {
        temperature: 0.2,
        params: { tool_choice: "auto" },
        previousResponseId: "resp_1",
        prompt: ["a", "b"],
        promptSettings: undefined,
      },
      tools: [{
        type: "function",
        function: {
          name: "ask",
          parameters: {
            type: "object",
            properties: { b: { type: "string" }, a: { enum: [1, 2] } },
          },
        },
      }],
      messages: [
        { role: "system", content: 'You are "Root".\nBe brief — ünïcödé ✓ \u0001' },
        { content: '{"name":"ask","arguments":{"z":1,"a":2}}', role: "function_call" },
        { role: "function_call_output", content: '{"content":"ok"}', id: "call_1" },
        { role: "user", content: [{ type: "text", text: "parts" }, { type: "image", url: "x" }] },
        { role: "assistant", content: null },
        { role: "tool", content: 42, name: undefined },
      ],
      currentMeta: {
        pt: 10,
        backend: "openai",
        inference_id: "abc",
        timestamp: "2026-12-03T09:00:00.000Z",
      },
    },
    "f83da6f7baa06604d1d35e63641fd7cec466f1225dcf566edd7f6a721a83bf2c",
    "1dce20ad8c1f5cf36d17a90ed673e25ebe96bf266f726f50904900788c75f3b2",
  ],
  [
    {
      endpoint: "e",
      backend: "anthropic",
      model: "claude",
      params: {
        params: { max_tokens: 100, nested: { y: [3, { q: 1, p: 2 }], x: true } },
        previousResponseId: null,
        prompt: null,
        promptSettings: { max_tool_chars: "10" },
      },
      tools: null,
      messages: [],
      currentMeta: null,
    },
    "12074f14d8b607bcc3761f2370335f1a0767cb0d83e32aa1e6d47b899df0c16e",
    "a3130be13bcbd69a4a7f4cd52080023053bc1463e649431174c2c9ea74a3fbd1",
  ],
];

Deno.test("keys equal the digests the earlier code wrote for the same requests", () => {
  for (const [input, legacy, round] of pinned) {
    assertKeys(input, legacy, round);
    assertKeys(input, legacy, round); // again: from the remembered message texts
  }
});

const json: fc.Arbitrary<unknown> = fc.jsonValue();
const anyValue = fc.oneof(json, fc.constant(undefined), fc.date({ noInvalidDate: true }));
const message = fc.oneof(
  fc.record({ role: fc.string(), content: fc.string({ unit: "binary" }) }),
  fc.record({ content: fc.string(), role: fc.string() }),
  fc.record({ role: fc.string(), content: anyValue }),
  fc.dictionary(fc.string(), anyValue).map((d) => ({ role: "user", content: "x", ...d })),
);
const input = fc.record({
  endpoint: fc.string(),
  backend: fc.string(),
  model: fc.string(),
  params: anyValue,
  tools: anyValue,
  messages: fc.array(message, { maxLength: 8 }),
  currentMeta: anyValue,
}) as fc.Arbitrary<CacheKeyInput>;

Deno.test("keys equal sha256(canonicalJson({v, ...input})) for arbitrary requests", () => {
  fc.assert(
    fc.property(input, (i) => {
      assertKeys(i, reference(1, i), reference(2, i));
      // the same message objects once more (remembered texts), in another history
      const again = { ...i, messages: [...i.messages].reverse() };
      assertKeys(again, reference(1, again), reference(2, again));
    }),
    { numRuns: 300 },
  );
});

Deno.test("a message changed in place after it was keyed gets its new text in the key", () => {
  const m: Record<string, unknown> = { role: "user", content: "first" };
  const base = {
    endpoint: "",
    backend: "openai",
    model: "m",
    params: {},
    tools: [],
    currentMeta: null,
  };
  const i = { ...base, messages: [m] } as unknown as CacheKeyInput;
  const before = roundCacheKey(i);
  assert.equal(before, reference(2, i));
  m.content = "second";
  assert.equal(roundCacheKey(i), reference(2, i));
  assert.notEqual(roundCacheKey(i), before);
  m.role = "assistant";
  assert.equal(roundCacheKey(i), reference(2, i));
  m.name = "extra field";
  assert.equal(roundCacheKey(i), reference(2, i));
  delete m.name;
  m.content = ["not", "a", "string"];
  assert.equal(roundCacheKey(i), reference(2, i));
  // sparse and odd histories write as JSON writes arrays
  const odd = { ...base, messages: [undefined, , m] } as unknown as CacheKeyInput;
  assert.equal(roundCacheKey(odd), reference(2, odd));
  // members JSON cannot write are left out, as JSON.stringify leaves them out
  const extra = { ...i, hook: () => 1, tag: Symbol("t"), gone: undefined } as CacheKeyInput;
  assert.equal(roundCacheKey(extra), roundCacheKey(i));
  assert.equal(cacheKey(extra), cacheKey(i));
  // an input with its own v: the spread's v wins
  const own = { ...base, messages: [], v: 7 } as unknown as CacheKeyInput;
  assert.equal(cacheKey(own), reference(1, own));
  assert.equal(cacheKey(own), roundCacheKey(own));
});
