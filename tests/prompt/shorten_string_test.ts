import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { codePointLength, shortenString } from "../../src/prompt/shorten_string.ts";
import { isScoutError } from "../../src/errors.ts";

const md5 = (s: string) => createHash("md5").update(s).digest("hex");

Deno.test("PS-1: shortenString of 300 ASCII chars at 200", () => {
  const s = "abcdefghij".repeat(30);
  const got = shortenString(s, 200);
  assert.equal(md5(s).slice(0, 8), "4718ed95");
  assert.equal(
    got,
    "Truncated (300): " + "abcdefghij".repeat(8) + "abcdefghi" + "<...300 - 4718e...>" +
      "abcdefghij".repeat(9),
  );
  assert.equal(got.length, 215);
});

Deno.test("PS-2: multi-byte chars count as one; md5 over UTF-8 bytes", () => {
  const s = "é".repeat(300);
  const got = shortenString(s, 200);
  assert.equal(md5(s).slice(0, 8), "4bf78d5b");
  assert.equal(got, "Truncated (300): " + "é".repeat(89) + "<...300 - 4bf78...>" + "é".repeat(90));
  assert.equal(Array.from(got).length, 215);
});

Deno.test("PS-3: boundaries and the just-above-max quirk", () => {
  const z = shortenString("z".repeat(401), 400);
  assert.equal(z.length, 415);
  assert.ok(z.startsWith("Truncated (401): "));
  const q200 = "q".repeat(200);
  assert.equal(shortenString(q200, 200), q200);
  assert.ok(shortenString("q".repeat(201), 200).startsWith("Truncated (201): "));
  assert.equal(shortenString("w".repeat(1000), 200).length, 217);
  assert.equal(shortenString("short"), "short"); // default max 200
});

Deno.test("astral code points are never split and count once", () => {
  const s = "😀".repeat(300); // 600 UTF-16 units, 300 code points
  assert.equal(codePointLength(s), 300);
  const got = shortenString(s, 200);
  const marker = `<...300 - ${md5(s).slice(0, 5)}...>`;
  assert.equal(got, "Truncated (300): " + "😀".repeat(89) + marker + "😀".repeat(90));
  // 150 emoji = 300 UTF-16 units but only 150 code points: unchanged at 200
  assert.equal(shortenString("😀".repeat(150), 200), "😀".repeat(150));
});

Deno.test("5-digit lengths shrink the head and tail by one", () => {
  const s = "y".repeat(12345);
  const got = shortenString(s, 400);
  const marker = `<...12345 - ${md5(s).slice(0, 5)}...>`;
  const h = Math.floor((400 - marker.length) / 2);
  assert.equal(h, 189);
  assert.equal(got, `Truncated (12345): ${"y".repeat(h - 1)}${marker}${"y".repeat(h)}`);
});

Deno.test("a 10 MB string is shortened without materialising it", () => {
  const s = "0123456789".repeat(1_000_000);
  const got = shortenString(s, 400);
  assert.ok(got.startsWith("Truncated (10000000): 0123456789"));
  assert.ok(got.length < 450);
});

Deno.test("a max below 40 is rejected with a typed error", () => {
  assert.throws(() => shortenString("x".repeat(100), 39), (e) => isScoutError(e, "invalid_input"));
  assert.throws(() => shortenString("x", 1.5), (e) => isScoutError(e, "invalid_input"));
});

Deno.test("codePointLength counts lone surrogates once", () => {
  assert.equal(codePointLength("a\ud800b"), 3);
  assert.equal(codePointLength("\udc00\ud83d\ude00"), 2);
  assert.equal(codePointLength(""), 0);
});
