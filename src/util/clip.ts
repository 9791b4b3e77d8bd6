/**
 * Cutting text short for a message (`head…`, `head…tail`) without splitting
 * a surrogate pair: `s.slice(0, n)` can end on the first half of an emoji,
 * and that lone surrogate reaches files (written as U+FFFD), JSON (a lone
 * `\ud83d` escape strict parsers refuse) and terminals (R151-7).
 *
 * Lengths are UTF-16 units, as `s.length` and `s.slice` count them: text of
 * one-unit characters is cut exactly where `slice` cuts it; a cut that
 * would fall inside a pair falls before the pair instead (one unit less).
 *
 * @module
 */

function isHigh(c: number): boolean {
  return (c & 0xfc00) === 0xd800;
}

function isLow(c: number): boolean {
  return (c & 0xfc00) === 0xdc00;
}

/**
 * Whether offset `i` of `s` falls between the two halves of a surrogate pair.
 */
function insidePair(s: string, i: number): boolean {
  return i > 0 && i < s.length && isHigh(s.charCodeAt(i - 1)) && isLow(s.charCodeAt(i));
}

/**
 * The start of `s` of at most `max` UTF-16 units that does not end inside
 * a surrogate pair, then `mark` — or `s` itself when it is at most `max`
 * units. The result is at most `max` units plus the mark.
 *
 * @param s any text
 * @param max the most units of `s` kept (a negative `max` keeps none)
 * @param mark what marks the cut (default `…`)
 * @returns `s`, or its start and the mark
 *
 * @example
 * ```ts
 * import { clipEnd } from "./clip.ts";
 * clipEnd("abcdef", 3); // "abc…"
 * clipEnd("ab😀", 3); // "ab…" (not "ab\ud83d…")
 * clipEnd("abc", 3); // "abc"
 * ```
 */
export function clipEnd(s: string, max: number, mark = "…"): string {
  if (s.length <= max) return s;
  let end = Math.max(0, max);
  if (insidePair(s, end)) end--;
  return s.slice(0, end) + mark;
}

/**
 * `s` cut in the middle to `head` + `mark` + `tail`, where the head is at
 * most `headMax` UTF-16 units of its start and the tail at most `tailMax`
 * of its end, neither cut inside a surrogate pair — or `s` itself when it
 * is at most `headMax + tailMax` units.
 *
 * @param s any text
 * @param headMax the most units of the start kept
 * @param tailMax the most units of the end kept
 * @param mark what stands for the middle cut (default `…`)
 * @returns `s`, or its start, the mark and its end
 *
 * @example
 * ```ts
 * import { clipMiddle } from "./clip.ts";
 * clipMiddle("abcdefgh", 3, 2); // "abc…gh"
 * clipMiddle("😀😀😀😀", 3, 3); // "😀…😀"
 * ```
 */
export function clipMiddle(s: string, headMax: number, tailMax: number, mark = "…"): string {
  const h = Math.max(0, headMax);
  const t = Math.max(0, tailMax);
  if (s.length <= h + t) return s;
  let start = s.length - t;
  if (insidePair(s, start)) start++;
  return clipEnd(s, h, "") + mark + s.slice(start);
}
