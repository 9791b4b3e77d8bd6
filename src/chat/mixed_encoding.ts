/**
 * A chat file in two encodings: UTF-16 or UTF-32 text (by its byte-order
 * mark) to which a scout-ai from before R133-1 appended UTF-8 — it read the
 * wide text as U+FFFD-riddled UTF-8 and added its turn after it (R136-3).
 * `iconv` cannot convert such a file whole: the wide part has to be
 * converted alone, and the UTF-8 part kept as it is. This finds where the
 * UTF-8 part starts, looking only at the end of the file.
 *
 * @module
 */
import type { WideBom } from "../util/utf8_bytes.ts";
import { isHeaderLine } from "./text.ts";

const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lossy = new TextDecoder("utf-8", { ignoreBOM: true });
const [LF, CR] = [0x0a, 0x0d];

/** Offset of the first line feed in `bytes[from, …)` that a role header line follows, or -1. */
function headerBreak(bytes: Uint8Array, from: number): number {
  for (let lf = bytes.indexOf(LF, from); lf !== -1; lf = bytes.indexOf(LF, lf + 1)) {
    const end = bytes.indexOf(LF, lf + 1);
    if (isHeaderLine(lossy.decode(bytes.subarray(lf + 1, end === -1 ? bytes.length : end)))) {
      return lf;
    }
  }
  return -1;
}

/**
 * The byte offset where UTF-8 text appended to a UTF-16/UTF-32 chat starts,
 * or null when the file's end is not such text.
 *
 * The wide text has a NUL byte in every code unit below U+0100 (its
 * newlines, its ASCII), UTF-8 text none, so the appended text is after the
 * last NUL. An append writes line breaks, then a role header (`assistant:`),
 * after the old text stripped of its trailing whitespace and NULs: the
 * UTF-8 part starts with the line breaks before the first header line after
 * the last NUL, and must be well-formed UTF-8 from there. The wide part may
 * thus end inside a code unit (`6F` of `6F 00 0D 00 0A 00`, "o\r\n" in
 * UTF-16LE): the bytes stripped were NULs and spaces.
 *
 * The end of a file that is wide text alone is none of that: it ends in a
 * NUL (a newline, any ASCII) or in code units whose bytes would have to
 * spell, in UTF-8, a line break and a header (`\n`, `[a-z0-9_]+`, `:`). The
 * scan goes back to the last NUL only, so a wide file costs a few bytes' look.
 *
 * @param bytes the file's bytes
 * @param wide the byte-order mark they start with
 * @returns the offset (the length of the wide part, mark included), or null
 *
 * @example
 * ```ts
 * import { utf8TailStart } from "./mixed_encoding.ts";
 * const wide = Uint8Array.of(0xff, 0xfe, 0x68, 0, 0x0a, 0); // "h\n" in UTF-16LE
 * const tail = new TextEncoder().encode("\nassistant:\n\nhello\n");
 * const mixed = new Uint8Array([...wide, ...tail]);
 * utf8TailStart(mixed, { encoding: "UTF-16", mark: "FF FE" }); // 6
 * utf8TailStart(wide, { encoding: "UTF-16", mark: "FF FE" }); // null
 * ```
 */
export function utf8TailStart(bytes: Uint8Array, wide: WideBom): number | null {
  let nul = bytes.length - 1;
  while (nul >= 0 && bytes[nul] !== 0) nul--;
  const after = Math.max(nul + 1, wide.encoding === "UTF-16" ? 2 : 4);
  let start = headerBreak(bytes, after);
  if (start === -1) return null;
  while (start > after && (bytes[start - 1] === LF || bytes[start - 1] === CR)) start--;
  try {
    fatal.decode(bytes.subarray(start));
  } catch {
    return null;
  }
  return start;
}
