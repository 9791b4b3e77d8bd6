/**
 * The byte order of strings: how paths are sorted wherever the order is
 * part of an output (provenance's listings, a job's log chats).
 *
 * @module
 */

/**
 * Compares strings in code-point order, which is the byte order of their
 * UTF-8 encodings (plain `<` compares UTF-16 units and misorders astral
 * characters against U+E000–U+FFFF).
 *
 * @param a a string
 * @param b another
 * @returns negative, zero or positive
 *
 * @example
 * ```ts
 * import { compareBytes } from "./byte_order.ts";
 * ["\u{1F600}", "\uE000"].sort(compareBytes); // ["\uE000", "\u{1F600}"]
 * ```
 */
export function compareBytes(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}
