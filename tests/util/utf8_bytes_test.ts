/**
 * Text that keeps a file's bytes (`src/util/utf8_bytes.ts`): any bytes
 * decode and encode back to themselves; valid UTF-8 decodes as the standard
 * decoder does; a byte-order mark is split off.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { decodeEscaped, encodeEscaped, splitBom, wideBom } from "../../src/util/utf8_bytes.ts";

/** A deterministic pseudo-random generator (xorshift), so a failure repeats. */
function bytesFrom(seed: number, n: number): Uint8Array {
  let x = seed;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    // mostly high bytes and UTF-8 lead bytes: the invalid and edge cases
    out[i] = (x >>> 0) % 7 === 0 ? 0x61 : 0x80 + ((x >>> 8) & 0x7f);
  }
  return out;
}

Deno.test("decodeEscaped/encodeEscaped: any bytes come back as they were", () => {
  for (let seed = 1; seed <= 400; seed++) {
    const bytes = bytesFrom(seed, 1 + (seed % 40));
    assert.deepEqual(encodeEscaped(decodeEscaped(bytes).text), bytes, `seed ${seed}`);
  }
  const edge = [
    [0xed, 0xa0, 0x80], // an encoded surrogate: not UTF-8
    [0xc0, 0xaf], // overlong
    [0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
    [0xe2, 0x82], // cut short
    [0x63, 0x61, 0x66, 0xe9, 0x0a], // Latin-1 "café"
    [0xf0, 0x9f, 0x98, 0x80, 0xe9], // an astral character, then an escaped byte
    [0xef, 0xbb, 0xbf, 0xe9], // a mark inside stays U+FEFF
  ];
  for (const e of edge) {
    const bytes = Uint8Array.from(e);
    const { text, escaped } = decodeEscaped(bytes);
    assert.equal(escaped, true, e.join(" "));
    assert.deepEqual(encodeEscaped(text), bytes, e.join(" "));
  }
  assert.equal(decodeEscaped(Uint8Array.of(0x63, 0xe9)).text, "c\udce9");
});

Deno.test("decodeEscaped: valid UTF-8 reads as the standard decoder reads it, nothing escaped", () => {
  const text = "plain, café, 🌍, \u{10FFFF}, \uFEFF inside";
  const { text: back, escaped } = decodeEscaped(new TextEncoder().encode(text));
  assert.equal(back, text);
  assert.equal(escaped, false);
});

Deno.test("splitBom: a leading mark is split off; none, or a lone start of one, is not", () => {
  const { bom, body } = splitBom(Uint8Array.of(0xef, 0xbb, 0xbf, 0x61));
  assert.deepEqual([...bom], [0xef, 0xbb, 0xbf]);
  assert.deepEqual([...body], [0x61]);
  assert.equal(splitBom(Uint8Array.of(0xef, 0xbb)).bom.length, 0);
  assert.equal(splitBom(Uint8Array.of(0x61)).body.length, 1);
});

Deno.test("wideBom: the UTF-16 and UTF-32 marks, and no UTF-8 text (R133-1)", () => {
  const of = (...b: number[]) => wideBom(Uint8Array.from(b));
  assert.deepEqual(of(0xff, 0xfe, 0x73, 0x00), { encoding: "UTF-16", mark: "FF FE" });
  assert.deepEqual(of(0xff, 0xfe), { encoding: "UTF-16", mark: "FF FE" });
  assert.deepEqual(of(0xfe, 0xff, 0x00, 0x73), { encoding: "UTF-16", mark: "FE FF" });
  assert.deepEqual(of(0xff, 0xfe, 0x00, 0x00), { encoding: "UTF-32", mark: "FF FE 00 00" });
  assert.deepEqual(of(0x00, 0x00, 0xfe, 0xff), { encoding: "UTF-32", mark: "00 00 FE FF" });
  for (
    const b of [[], [0xff], [0xfe], [0xef, 0xbb, 0xbf, 0x61], [0x00, 0x00, 0xfe], [0x73, 0xff]]
  ) {
    assert.equal(of(...b), null, b.join(" "));
  }
  // a mark can start no UTF-8 text: none is refused that reads as it was written
  fc.assert(fc.property(fc.string({ unit: "binary" }), (s) => {
    assert.equal(wideBom(new TextEncoder().encode(s)), null);
  }));
});
