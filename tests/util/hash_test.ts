/**
 * `hashUpdate` feeds a string's UTF-8 through a reused buffer: the digests
 * must be those of `update(s, "utf8")` for every string — lone surrogates
 * (U+FFFD), astral characters, strings that grow the buffer, strings past its
 * cap — and the buffer's reuse must not leak one string into the next.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { hashPieces, hashUpdate, md5hex, sha256hex } from "../../src/util/hash.ts";

const reference = (algo: string, s: string) => createHash(algo).update(s, "utf8").digest("hex");

Deno.test("hashUpdate: the digest of update(s, 'utf8') for every kind of string", () => {
  const strings = [
    "",
    "plain ascii",
    "é — ü ✓",
    "astral 😀 and a lone high \ud800 and a lone low \udc00 end",
    "\ud83d", // a lone surrogate at the very end
    "x".repeat(70_000), // grows the 64 KiB buffer
    "é".repeat(50_000) + "😀".repeat(1_000),
    "y".repeat(1_500_000), // past the 4 MiB cap: encoded on its own
    "short after long", // the reused buffer holds the long text's bytes past this one's
  ];
  for (const s of strings) {
    assert.equal(sha256hex(s), reference("sha256", s), `sha256 of ${s.slice(0, 20)}…`);
    assert.equal(md5hex(s), reference("md5", s), `md5 of ${s.slice(0, 20)}…`);
  }
  const h = hashUpdate(hashUpdate(createHash("sha256"), "two "), "parts 😀");
  assert.equal(h.digest("hex"), reference("sha256", "two parts 😀"));
});

Deno.test("hashUpdate: bytes are hashed as they are", () => {
  const bytes = new Uint8Array([0, 255, 0xc3, 0xa9]);
  assert.equal(sha256hex(bytes), createHash("sha256").update(bytes).digest("hex"));
});

Deno.test("hashPieces: the digest of the pieces joined, strings and bytes side by side", () => {
  const enc = new TextEncoder();
  const cases: (string | Uint8Array)[][] = [
    [],
    ["{", enc.encode('"a":1'), ",", enc.encode("é😀"), "]"],
    ["two ", "strings ", "in a row \ud800", enc.encode("then bytes"), "", ","],
    [enc.encode("x".repeat(100_000)), "—".repeat(30_000)], // grows the buffer mid-way
    ["z".repeat(1_500_000), enc.encode("past the cap")],
  ];
  for (const pieces of cases) {
    const joined = pieces.map((p) => typeof p === "string" ? p : new TextDecoder().decode(p)).join(
      "",
    );
    const got = hashPieces(createHash("sha256"), pieces).digest("hex");
    assert.equal(got, reference("sha256", joined), `${pieces.length} pieces`);
  }
});
