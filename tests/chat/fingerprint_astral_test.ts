/**
 * The chat fingerprints (`printBrief`'s, Ruby `Log.fingerprint`, and
 * `messageIndex`'s preview) count characters as Ruby's `String#length`
 * does, in code points, so a cut next to an emoji or another astral
 * character keeps it whole or leaves it out, never half of its surrogate
 * pair (R151-7): a lone surrogate is written as U+FFFD and as a `\ud83d`
 * escape strict JSON parsers refuse. ASCII and other BMP text are cut as
 * before.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { fingerprint as briefFingerprint, printBrief } from "../../src/chat/print_brief.ts";
import { fingerprint as lineageFingerprint, messageIndex } from "../../src/chat/lineage.ts";
import { md5hex, sha256hex } from "../../src/util/hash.ts";

const E = "😀"; // two UTF-16 units, one character to Ruby

/** Ruby `Log.truncate_string(s, 150)` over an array of characters. */
function rubyTruncate(text: string): string {
  const s = text.replaceAll("\n", "\\n");
  const cs = [...s];
  if (cs.length <= 150) return s;
  const middle = `<...${cs.length} - ${md5hex(s).slice(0, 5)}...>`;
  const half = Math.floor((150 - middle.length) / 2);
  return cs.slice(0, half - 1).join("") + middle + cs.slice(-half).join("");
}

/** The preview of `messageIndex`: 100 characters, the marker, 30 characters. */
function preview(s: string): string {
  const cs = [...s];
  if (cs.length <= 150) return s;
  return cs.slice(0, 100).join("") + `<...${cs.length} - ${sha256hex(s).slice(0, 5)}...>` +
    cs.slice(-30).join("");
}

/** The cut as it was, in UTF-16 units: what ASCII and BMP text must still get. */
function unitTruncate(text: string): string {
  const s = text.replaceAll("\n", "\\n");
  if (s.length <= 150) return s;
  const middle = `<...${s.length} - ${md5hex(s).slice(0, 5)}...>`;
  const half = Math.floor((150 - middle.length) / 2);
  return s.slice(0, half - 1) + middle + s.slice(-half);
}

Deno.test("printBrief fingerprint: an emoji at the head or the tail cut stays whole", () => {
  // 264 characters: the marker is 19 long, so 64 characters of head and 65 of tail
  const atHead = "a".repeat(63) + E + "b".repeat(200);
  const f = briefFingerprint(atHead);
  assert.ok(f.isWellFormed(), JSON.stringify(f)); // no lone surrogate
  assert.equal(
    f,
    "a".repeat(63) + E + `<...264 - ${md5hex(atHead).slice(0, 5)}...>` + "b".repeat(65),
  );
  const atTail = "a".repeat(199) + E + "b".repeat(64);
  const g = briefFingerprint(atTail);
  assert.ok(g.isWellFormed(), JSON.stringify(g));
  assert.equal(
    g,
    "a".repeat(64) + `<...264 - ${md5hex(atTail).slice(0, 5)}...>` + E + "b".repeat(64),
  );
  const out = printBrief([{ role: "user", content: atHead }, {
    role: "assistant",
    content: atTail,
  }]);
  assert.ok(out.isWellFormed(), JSON.stringify(out));
  assert.equal(out, `\nuser: ${f}\n\nassistant: ${g}`);
});

Deno.test("messageIndex fingerprint: an emoji at the head or the tail cut stays whole", () => {
  const atHead = "a".repeat(99) + E + "b".repeat(100);
  const f = lineageFingerprint(atHead);
  assert.ok(f.isWellFormed(), JSON.stringify(f));
  assert.equal(
    f,
    "a".repeat(99) + E + `<...200 - ${sha256hex(atHead).slice(0, 5)}...>` + "b".repeat(30),
  );
  const atTail = "a".repeat(170) + E + "b".repeat(29);
  const g = lineageFingerprint(atTail);
  assert.ok(g.isWellFormed(), JSON.stringify(g));
  assert.equal(
    g,
    "a".repeat(100) + `<...200 - ${sha256hex(atTail).slice(0, 5)}...>` + E + "b".repeat(29),
  );
  const idx = messageIndex([{ role: "user", content: atHead }, { role: "user", content: atTail }]);
  assert.deepEqual(idx.map((e) => e.fingerprint), [f, g]);
  assert.ok(JSON.stringify(idx).isWellFormed());
  // 150 characters of emoji are 300 units, and not cut: Ruby's length is 150
  assert.equal(lineageFingerprint(E.repeat(150)), E.repeat(150));
  assert.equal(briefFingerprint(E.repeat(150)), E.repeat(150));
});

Deno.test("property: the fingerprints count code points as Ruby does; ASCII and BMP cut as before", () => {
  const unit = fc.constantFrom("a", "b", "é", "日", "\n", E, "🌍");
  const bmp = fc.constantFrom("a", "b", "é", "日", "\n");
  fc.assert(
    fc.property(fc.string({ unit, minLength: 120, maxLength: 320 }), (s) => {
      const f = briefFingerprint(s);
      assert.equal(f, rubyTruncate(s));
      assert.ok(f.isWellFormed());
      assert.equal(lineageFingerprint(s), preview(s));
    }),
    { numRuns: 500 },
  );
  fc.assert(
    fc.property(fc.string({ unit: bmp, minLength: 120, maxLength: 320 }), (s) => {
      assert.equal(briefFingerprint(s), unitTruncate(s));
    }),
    { numRuns: 300 },
  );
});
