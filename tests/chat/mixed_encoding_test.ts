/**
 * `utf8TailStart`: where the UTF-8 that a scout-ai from before R133-1
 * appended to a UTF-16/UTF-32 chat starts (R136-3) — found for each of the
 * four marks, whatever the wide text ends with; never for a file that is
 * wide text alone, whatever it ends with (a newline, ASCII, Latin-1, CJK
 * whose code units hold no NUL, a line-feed byte, an emoji).
 */
import assert from "node:assert/strict";
import { utf8TailStart } from "../../src/chat/mixed_encoding.ts";
import { wideBom } from "../../src/util/utf8_bytes.ts";
import { olderAppend, wideBytes, type WideForm } from "../support/wide_text.ts";

const FORMS: WideForm[] = ["16le", "16be", "32le", "32be"];

function start(bytes: Uint8Array): number | null {
  return utf8TailStart(bytes, wideBom(bytes)!);
}

/** Wide bytes (mark included, whole code units) as text. */
function decodeWide(bytes: Uint8Array, form: WideForm): string {
  const width = form.startsWith("16") ? 2 : 4;
  const units: number[] = [];
  for (let at = width; at + width <= bytes.length; at += width) {
    let u = 0;
    for (let k = 0; k < width; k++) {
      u += bytes[at + k]! * 2 ** (8 * (form.endsWith("le") ? k : width - 1 - k));
    }
    units.push(u);
  }
  return width === 2 ? String.fromCharCode(...units) : String.fromCodePoint(...units);
}

const TURN = "\n\nassistant:\n\nthe ánswer\n";

Deno.test("utf8TailStart: finds where an older scout-ai's UTF-8 turn starts, for each mark", () => {
  const chats = ["user:\r\n\r\nhéllo\r\n", "user:\n\nhello", "user:\n\n上\n", "user: x é\n"];
  for (const form of FORMS) {
    for (const chat of chats) {
      const mixed = olderAppend(wideBytes(chat, form));
      const at = start(mixed);
      const what = `${form} ${JSON.stringify(chat)}`;
      // the append wrote the turn after the text stripped of its trailing whitespace and NULs
      assert.equal(at, mixed.length - new TextEncoder().encode(TURN).length, what);
      // the wide part, its last unit's stripped NULs given back, and the UTF-8 part as it is
      const unit = form.startsWith("16") ? 2 : 4;
      const head = new Uint8Array(Math.ceil(at / unit) * unit);
      head.set(mixed.subarray(0, at));
      const tail = new TextDecoder().decode(mixed.subarray(at));
      // (a last code unit whose stripped byte was no NUL cannot come back: 上 U+4E0A, big-endian
      // …4E 0A, lost its 0A, and comes back as 一 U+4E00; where the UTF-8 starts is right all the same)
      const want = form.endsWith("be") ? chat.trimEnd().replace(/上$/, "一") : chat.trimEnd();
      assert.equal(decodeWide(head, form) + tail, want + TURN, what);
    }
  }
});

Deno.test("utf8TailStart: never for wide text alone, whatever it ends with", () => {
  const endings = [
    "user:\r\n\r\nhello\r\n", // a newline: NUL last (LE) or next to last (BE)
    "user:\n\nhello", // ASCII
    "user:\n\nhéllo é", // Latin-1
    "user:\n\n中文上", // CJK, no NUL in their units; 上 (U+4E0A) holds a line-feed byte
    "user:\n\n上上上上", // only line-feed bytes and N
    "user:\n\nx \u{1F600}", // a surrogate pair
    "中文\n上a:\n", // header-like text, in wide units: NULs
    "", // the mark alone
  ];
  for (const form of FORMS) {
    for (const chat of endings) {
      assert.equal(start(wideBytes(chat, form)), null, `${form} ${JSON.stringify(chat)}`);
    }
  }
});

Deno.test("utf8TailStart: appended text that is not UTF-8, or has no role header, is not told", () => {
  const wide = wideBytes("user:\n\nhello\n", "16le");
  const notUtf8 = Uint8Array.of(0x0a, 0x61, 0x3a, 0x0a, 0xe9, 0x0a); // "\na:\n\xe9\n"
  assert.equal(start(new Uint8Array([...wide, ...notUtf8])), null);
  const noHeader = new TextEncoder().encode("\njust text\n");
  assert.equal(start(new Uint8Array([...wide, ...noHeader])), null);
  const header = new TextEncoder().encode("\nuser: more\n");
  assert.equal(start(new Uint8Array([...wide, ...header])), wide.length);
});
