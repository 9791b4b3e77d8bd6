/**
 * Text that keeps a file's bytes: a byte-order mark set aside, and bytes that
 * are not UTF-8 carried through a string edit as lone surrogates
 * U+DC80–U+DCFF (the "surrogateescape" of Python), so that rewriting a file
 * whose old part is unchanged gives back that part byte for byte. Valid UTF-8
 * never decodes to a lone surrogate, so the escapes cannot be confused with
 * text.
 *
 * @module
 */

const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const utf8 = new TextEncoder();

/**
 * Splits a leading UTF-8 byte-order mark off `bytes`.
 *
 * @param bytes a file's bytes
 * @returns the mark (empty when none) and the bytes after it
 */
export function splitBom(bytes: Uint8Array): { bom: Uint8Array; body: Uint8Array } {
  const has = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return has
    ? { bom: bytes.subarray(0, 3), body: bytes.subarray(3) }
    : { bom: new Uint8Array(0), body: bytes };
}

/** A byte-order mark that says a text is not UTF-8: what it says and its bytes. */
export interface WideBom {
  /** `UTF-16` or `UTF-32`. */
  encoding: "UTF-16" | "UTF-32";
  /** The mark as hex bytes, e.g. `FF FE`. */
  mark: string;
}

/**
 * The UTF-16 or UTF-32 byte-order mark `bytes` start with, if any: `FF FE` /
 * `FE FF` (UTF-16), `FF FE 00 00` / `00 00 FE FF` (UTF-32). None of them can
 * start UTF-8 (`FE`, `FF` are no UTF-8 byte; UTF-8 puts no `FE` after two
 * NULs), so a text that starts with one is never UTF-8.
 *
 * @param bytes a file's bytes
 * @returns the mark, or null
 *
 * @example
 * ```ts
 * import { wideBom } from "./utf8_bytes.ts";
 * wideBom(Uint8Array.of(0xff, 0xfe, 0x73, 0x00)); // { encoding: "UTF-16", mark: "FF FE" }
 * ```
 */
export function wideBom(bytes: Uint8Array): WideBom | null {
  const [a, b, c, d] = bytes;
  if (a === 0xff && b === 0xfe) {
    return c === 0 && d === 0
      ? { encoding: "UTF-32", mark: "FF FE 00 00" }
      : { encoding: "UTF-16", mark: "FF FE" };
  }
  if (a === 0xfe && b === 0xff) return { encoding: "UTF-16", mark: "FE FF" };
  if (a === 0 && b === 0 && c === 0xfe && d === 0xff) {
    return { encoding: "UTF-32", mark: "00 00 FE FF" };
  }
  return null;
}

/**
 * Length of the well-formed UTF-8 sequence at `i` (1–4), or 0 when the byte
 * there starts none (the Unicode table of well-formed sequences: no overlong
 * forms, no surrogates, nothing past U+10FFFF).
 */
function sequenceAt(b: Uint8Array, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  let n: number;
  let lo = 0x80;
  let hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) n = 2;
  else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c === 0xe0) lo = 0xa0;
    if (c === 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c === 0xf0) lo = 0x90;
    if (c === 0xf4) hi = 0x8f;
  } else return 0;
  if (i + n > b.length || b[i + 1]! < lo || b[i + 1]! > hi) return 0;
  for (let k = 2; k < n; k++) if ((b[i + k]! & 0xc0) !== 0x80) return 0;
  return n;
}

/**
 * Decodes UTF-8 without losing a byte: each byte that is not part of a
 * well-formed sequence becomes the lone surrogate U+DC00 + byte; a
 * byte-order mark is kept as U+FEFF (split it off first with
 * {@link splitBom}). {@link encodeEscaped} gives the bytes back.
 *
 * @param bytes raw bytes
 * @returns the text, and `escaped: true` when some byte was escaped
 *
 * @example
 * ```ts
 * import { decodeEscaped } from "./utf8_bytes.ts";
 * decodeEscaped(Uint8Array.of(0x63, 0xe9)); // { text: "c\udce9", escaped: true }
 * ```
 */
export function decodeEscaped(bytes: Uint8Array): { text: string; escaped: boolean } {
  try {
    return { text: fatal.decode(bytes), escaped: false };
  } catch { /* escaped below */ }
  let text = "";
  let run = 0; // start of the well-formed run being read
  for (let i = 0; i < bytes.length;) {
    const n = sequenceAt(bytes, i);
    if (n > 0) {
      i += n;
      continue;
    }
    text += fatal.decode(bytes.subarray(run, i)) + String.fromCharCode(0xdc00 + bytes[i]!);
    run = ++i;
  }
  return { text: text + fatal.decode(bytes.subarray(run)), escaped: true };
}

/** A lone low surrogate U+DC80–U+DCFF: an escaped byte. */
const ESCAPE = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/g;

/**
 * Encodes text as UTF-8, giving each escape of {@link decodeEscaped} back as
 * its byte.
 *
 * @param text text, possibly with escaped bytes
 * @returns the bytes
 */
export function encodeEscaped(text: string): Uint8Array {
  const parts: Uint8Array[] = [];
  let from = 0;
  for (const m of text.matchAll(ESCAPE)) {
    parts.push(utf8.encode(text.slice(from, m.index)), Uint8Array.of(m[0].charCodeAt(0) & 0xff));
    from = m.index + 1;
  }
  if (parts.length === 0) return utf8.encode(text);
  parts.push(utf8.encode(text.slice(from)));
  return concatBytes(parts);
}

/**
 * The bytes of `parts`, one after the other.
 *
 * @param parts byte arrays
 * @returns one array
 */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
