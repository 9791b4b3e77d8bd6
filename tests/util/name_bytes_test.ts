/**
 * File names measured in UTF-8 bytes (R102-7): lengths, cuts between code
 * points only, and names fitted with the md5 of what was cut.
 */
import assert from "node:assert/strict";
import { clipUtf8, fitBytes, NAME_MAX, utf8Length } from "../../src/util/name_bytes.ts";
import { md5hex } from "../../src/util/hash.ts";

const E = "\u{1F600}"; // 😀: 4 bytes, two UTF-16 units

Deno.test("utf8Length counts bytes as a file system does", () => {
  assert.equal(NAME_MAX, 255);
  for (const s of ["", "abc", "·", "é漢", E, "a·漢" + E, "x\u{10FFFF}"]) {
    assert.equal(utf8Length(s), new TextEncoder().encode(s).length, JSON.stringify(s));
  }
  assert.equal(utf8Length("a\ud800b"), 5); // a lone surrogate is written as U+FFFD
});

Deno.test("clipUtf8 cuts between code points, never inside a sequence or a surrogate pair", () => {
  assert.equal(clipUtf8("abc", 3), "abc");
  assert.equal(clipUtf8("abc", 2), "ab");
  assert.equal(clipUtf8("漢字", 5), "漢");
  assert.equal(clipUtf8("漢字", 6), "漢字");
  assert.equal(clipUtf8("漢字", 2), "");
  for (let max = 0; max <= 12; max++) {
    const got = clipUtf8("a" + E + E + "é", max);
    assert.ok(got.isWellFormed(), `max ${max}: ${JSON.stringify(got)}`);
    assert.ok(utf8Length(got) <= max && utf8Length(got) > max - 4, `max ${max}`);
  }
});

Deno.test("fitBytes keeps a name that fits and shortens one that does not, with the md5 of the cut", () => {
  assert.equal(fitBytes("漢".repeat(10), 30), "漢".repeat(10));
  const long = "漢".repeat(20);
  assert.equal(fitBytes(long, 40), "漢漢" + md5hex("漢".repeat(18)));
  assert.equal(fitBytes(long, 38, "--"), "漢--" + md5hex("漢".repeat(19)));
  // names that differ only in what was cut stay distinct; each fits
  const a = fitBytes(E.repeat(60) + "a", 100);
  const b = fitBytes(E.repeat(60) + "b", 100);
  assert.notEqual(a, b);
  for (const s of [a, b]) assert.ok(utf8Length(s) <= 100 && s.isWellFormed());
  assert.ok(a.startsWith(E.repeat(17)) && !a.startsWith(E.repeat(18)));
});
