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

/** Whether a surrogate pair starts at offset `i` of `s`. */
function isPairAt(s: string, i: number): boolean {
  return (s.charCodeAt(i) & 0xfc00) === 0xd800 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
}

/**
 * UTF-16 offset just after the first `count` code points of `s` (all of
 * `s` when it has fewer): `s.slice(0, offset)` is its first `count`
 * characters, never half of a pair. Counted as {@link codePointLength}
 * counts.
 *
 * @param s any string
 * @param count code points to keep from the start
 * @returns an offset into `s`
 *
 * @example
 * ```ts
 * import { offsetAfterCodePoints } from "./code_points.ts";
 * "a🌍b".slice(0, offsetAfterCodePoints("a🌍b", 2)); // "a🌍"
 * ```
 */
export function offsetAfterCodePoints(s: string, count: number): number {
  let i = 0;
  for (let k = 0; k < count && i < s.length; k++) i += isPairAt(s, i) ? 2 : 1;
  return i;
}

/**
 * UTF-16 offset where the last `count` code points of `s` start (0 when
 * it has fewer): `s.slice(offset)` is its last `count` characters.
 *
 * @param s any string
 * @param count code points to keep from the end
 * @returns an offset into `s`
 *
 * @example
 * ```ts
 * import { offsetOfLastCodePoints } from "./code_points.ts";
 * "a🌍b".slice(offsetOfLastCodePoints("a🌍b", 2)); // "🌍b"
 * ```
 */
export function offsetOfLastCodePoints(s: string, count: number): number {
  let i = s.length;
  for (let k = 0; k < count && i > 0; k++) i -= i >= 2 && isPairAt(s, i - 2) ? 2 : 1;
  return i;
}

/**
 * `s` with each lone surrogate replaced by U+FFFD (as writing it as UTF-8
 * would), checked first: a well-formed string is returned as it is. Text
 * from JSON (`"\ud800"` in a `.info` or a receipt) can hold one, and
 * `JSON.stringify` writes it as a lone `\ud800` escape that jq 1.6 refuses.
 *
 * @param s any string
 * @returns a well-formed string
 *
 * @example
 * ```ts
 * import { wellFormed } from "./code_points.ts";
 * wellFormed("a\ud800b"); // "a\ufffdb"
 * ```
 */
export function wellFormed(s: string): string {
  return s.isWellFormed() ? s : s.toWellFormed();
}

/**
 * {@link wellFormed} over a JSON-like value: every string in it, keys
 * included, made well-formed (a new value only where one changes).
 *
 * @param v a value
 * @returns the value with well-formed strings
 */
export function wellFormedDeep(v: unknown): unknown {
  if (typeof v === "string") return wellFormed(v);
  if (Array.isArray(v)) {
    const out = v.map(wellFormedDeep);
    return out.every((x, i) => x === v[i]) ? v : out;
  }
  if (v !== null && typeof v === "object") {
    const entries = Object.entries(v);
    const out = entries.map(([k, x]) => [wellFormed(k), wellFormedDeep(x)] as const);
    return out.every(([k, x], i) => k === entries[i]![0] && x === entries[i]![1])
      ? v
      : Object.fromEntries(out);
  }
  return v;
}
