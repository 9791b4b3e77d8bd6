/**
 * `codePointLength`: the one count of "chars" (code points) every layer uses —
 * a surrogate pair once, a lone surrogate once, as `[...s]` splits a string.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  codePointLength,
  offsetAfterCodePoints,
  offsetOfLastCodePoints,
} from "../../src/util/code_points.ts";
import { codePointLength as promptCodePointLength } from "../../src/prompt/mod.ts";

Deno.test("codePointLength: pairs count once, lone high and lone low surrogates once each", () => {
  assert.equal(codePointLength(""), 0);
  assert.equal(codePointLength("abc"), 3);
  assert.equal(codePointLength("🌍日é"), 3);
  assert.equal(codePointLength("a\ud800"), 2); // lone high at the end
  assert.equal(codePointLength("\ud800a"), 2); // lone high before a non-surrogate
  assert.equal(codePointLength("\udc00a"), 2); // lone low
  assert.equal(codePointLength("\ud800\ud800\udc00\udc00"), 3); // high, pair, low
  assert.equal(codePointLength("\udc00\ud800"), 2); // low then high: no pair
  assert.equal(promptCodePointLength, codePointLength, "prompt/ re-exports the one helper");
});

Deno.test("property: codePointLength is [...s].length, on strings full of surrogates", () => {
  const unit = fc.constantFrom("a", "é", "\ud800", "\udbff", "\udc00", "\udfff", "🌍");
  fc.assert(
    fc.property(fc.string({ unit, maxLength: 30 }), fc.string({ unit: "binary" }), (s, t) => {
      assert.equal(codePointLength(s), [...s].length);
      assert.equal(codePointLength(t), [...t].length);
    }),
    { numRuns: 3000 },
  );
});

Deno.test("property: offsetAfterCodePoints / offsetOfLastCodePoints cut where [...s] cuts", () => {
  const unit = fc.constantFrom("a", "é", "\ud800", "\udc00", "🌍");
  fc.assert(
    fc.property(fc.string({ unit, maxLength: 30 }), fc.nat(35), (s, k) => {
      const cs = [...s];
      assert.equal(s.slice(0, offsetAfterCodePoints(s, k)), cs.slice(0, k).join(""));
      assert.equal(s.slice(offsetOfLastCodePoints(s, k)), k === 0 ? "" : cs.slice(-k).join(""));
    }),
    { numRuns: 2000 },
  );
});
