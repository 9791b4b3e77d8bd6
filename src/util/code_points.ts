/**
 * Lengths in Unicode code points, the "chars" of the specs
 * (`prompt-strategies.md`, `inference.md`: Ruby's `String#length`), counted
 * without building an array.
 *
 * @module
 */

/**
 * Number of Unicode code points in `s`, as `[...s].length` counts them: a
 * surrogate pair once, and a lone surrogate once too — it is still a code
 * point, and written as UTF-8 it becomes one U+FFFD, one character to Ruby.
 *
 * @param s any string
 * @returns its length in code points
 *
 * @example
 * ```ts
 * import { codePointLength } from "./code_points.ts";
 * codePointLength("a🌍"); // 2
 * codePointLength("a\ud800"); // 2
 * ```
 */
export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    // a high surrogate followed by a low one: one code point in two units
    if ((s.charCodeAt(i) & 0xfc00) === 0xd800 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n--;
      i++;
    }
  }
  return n;
}
