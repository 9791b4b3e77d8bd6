/**
 * File names measured in bytes, as file systems measure them: Linux's
 * ext4, xfs, btrfs and tmpfs refuse a name (one path component) of more
 * than 255 bytes of UTF-8 (`ENAMETOOLONG`), whatever its length in
 * characters. Scout's naming rules count characters, so a name of
 * non-ASCII characters they accept can still be too long to create; these
 * helpers shorten such a name by bytes, cutting between code points only.
 *
 * @module
 */
import { md5hex } from "./hash.ts";

/** The most bytes a file name may have (`NAME_MAX` of Linux file systems). */
export const NAME_MAX = 255;

/** Bytes of code point `cp` in UTF-8 (a lone surrogate is written as U+FFFD: 3). */
function cpBytes(cp: number): number {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

/**
 * The length of `s` in UTF-8 bytes, as a file name: a lone surrogate counts
 * as the U+FFFD it is written as.
 *
 * @param s any string
 * @returns its UTF-8 length
 *
 * @example
 * ```ts
 * import { utf8Length } from "./name_bytes.ts";
 * utf8Length("a·漢😀"); // 1 + 2 + 3 + 4 = 10
 * ```
 */
export function utf8Length(s: string): number {
  let n = 0;
  for (const ch of s) n += cpBytes(ch.codePointAt(0)!);
  return n;
}

/**
 * The longest start of `s` that is at most `max` bytes in UTF-8, cut
 * between code points (never inside a UTF-8 sequence or a surrogate pair).
 *
 * @param s any string
 * @param max the most bytes
 * @returns `s` or a start of it
 *
 * @example
 * ```ts
 * import { clipUtf8 } from "./name_bytes.ts";
 * clipUtf8("漢字", 5); // "漢"
 * ```
 */
export function clipUtf8(s: string, max: number): string {
  if (s.length * 3 <= max) return s; // a UTF-16 unit is at most 3 bytes
  let bytes = 0;
  let end = 0;
  for (const ch of s) {
    bytes += cpBytes(ch.codePointAt(0)!);
    if (bytes > max) break;
    end += ch.length;
  }
  return s.slice(0, end);
}

/**
 * `s` when it is at most `max` bytes in UTF-8; otherwise its longest start
 * that leaves room for `sep` and 32 hex digits, then `sep` and the MD5 (hex)
 * of the rest that was cut, so names that differ only in what was cut stay
 * distinct. At most `max` bytes, unless `max` is under `sep` + 32.
 *
 * @param s the name
 * @param max the most bytes
 * @param sep what goes between the start kept and the digest (default none)
 * @returns the name, fitted
 *
 * @example
 * ```ts
 * import { fitBytes } from "./name_bytes.ts";
 * fitBytes("short", 40); // "short"
 * fitBytes("漢".repeat(20), 40); // "漢漢" + md5hex("漢".repeat(18))
 * ```
 */
export function fitBytes(s: string, max: number, sep = ""): string {
  if (utf8Length(s) <= max) return s;
  const head = clipUtf8(s, Math.max(0, max - 32 - utf8Length(sep)));
  return head + sep + md5hex(s.slice(head.length));
}
