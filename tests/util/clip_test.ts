/**
 * `clipEnd` and `clipMiddle`, the one way text is cut short for a message
 * (R151-7): never inside a surrogate pair, never longer than asked, and for
 * text of one-unit characters exactly what `slice` cut before.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { clipEnd, clipMiddle } from "../../src/util/clip.ts";

/** Strings that mix ASCII, BMP letters and astral characters (emoji). */
const mixed = fc.array(
  fc.oneof(
    fc.constantFrom("a", " ", "é", "漢", "😀", "𝄞", "👍🏽"),
    fc.string({ unit: "grapheme", maxLength: 3 }),
  ),
  { maxLength: 40 },
).map((parts) => parts.join(""));

Deno.test("property: clipEnd is well-formed, at most max units and the mark, and a start of the text", () => {
  fc.assert(
    fc.property(mixed, fc.integer({ min: -2, max: 60 }), (s, max) => {
      const out = clipEnd(s, max);
      assert.ok(out.isWellFormed(), JSON.stringify(out));
      if (s.length <= max) return assert.equal(out, s);
      assert.ok(out.endsWith("…"));
      const head = out.slice(0, -1);
      assert.ok(s.startsWith(head));
      assert.ok(head.length <= Math.max(0, max) && head.length >= max - 1);
    }),
    { numRuns: 2000 },
  );
});

Deno.test("property: clipMiddle is well-formed, at most head + tail units and the mark", () => {
  fc.assert(
    fc.property(mixed, fc.nat(30), fc.nat(30), (s, h, t) => {
      const out = clipMiddle(s, h, t);
      assert.ok(out.isWellFormed(), JSON.stringify(out));
      if (s.length <= h + t) return assert.equal(out, s);
      const at = clipEnd(s, h, "").length;
      assert.ok(at <= h && at >= h - 1);
      assert.equal(out.slice(0, at), s.slice(0, at));
      const tail = out.slice(at + 1);
      assert.equal(out[at], "…");
      assert.ok(s.endsWith(tail) && tail.length <= t && tail.length >= t - 1);
    }),
    { numRuns: 2000 },
  );
});

Deno.test("property: for one-unit text both cut exactly where slice cuts", () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 50 }), fc.nat(60), fc.nat(20), (s, max, t) => {
      assert.equal(clipEnd(s, max), s.length > max ? s.slice(0, max) + "…" : s);
      const middle = s.length > max + t ? s.slice(0, max) + "…" + s.slice(s.length - t) : s;
      assert.equal(clipMiddle(s, max, t), middle);
    }),
  );
});

Deno.test("clipEnd and clipMiddle step back before a pair they would split", () => {
  assert.equal(clipEnd("a".repeat(199) + "😀…", 200), "a".repeat(199) + "…");
  assert.equal(clipEnd("ab😀", 3, ""), "ab");
  assert.equal(clipEnd("ab😀c", 4), "ab😀…");
  assert.equal(clipMiddle("😀".repeat(10), 3, 3), "😀…😀");
  assert.equal(clipMiddle("😀".repeat(10), 4, 4), "😀😀…😀😀");
});
