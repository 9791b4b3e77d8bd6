/**
 * The truncation primitive of the context strategies
 * (`prompt-strategies.md` §3): keep a head and a tail of a long string around
 * a marker naming its length and an MD5 prefix, so the model can tell a
 * truncated value from a short one and two truncated values apart.
 *
 * Lengths are Unicode code points, as in the Ruby original; the scan is linear
 * and never materialises a code-point array, so a 10 MB tool output costs
 * one pass for the length, one MD5 and two short slices.
 *
 * @module
 */
import { ScoutError } from "../errors.ts";
import { md5hex } from "../util/hash.ts";
import {
  codePointLength,
  offsetAfterCodePoints,
  offsetOfLastCodePoints,
} from "../util/code_points.ts";

/** Smallest `max` for which the head/tail arithmetic is meaningful. */
export const MIN_SHORTEN_MAX = 40;

/** Number of Unicode code points in a string (public here as `prompt`'s `codePointLength`). */
export { codePointLength };

/**
 * Shortens `s` to about `max` code points (`prompt-strategies.md` §3): the
 * head keeps `h − 1` code points and the tail `h`, where
 * `h = floor((max − marker.length) / 2)` and the marker is
 * `<...L - md5[0,5]...>` (L = original length in code points, MD5 over the
 * UTF-8 bytes). If the result is shorter than the input it is prefixed with
 * `Truncated (L): `. Strings of at most `max` code points come back unchanged.
 *
 * Reproduced quirk: just above `max` the result is longer than the input
 * (401 chars at 400 → 415 chars).
 *
 * @param s the string
 * @param max target size in code points (default 200; at least 40)
 * @returns `s` itself, or its shortened form
 * @throws ScoutError `invalid_input` when `max` is below 40 or not an integer
 *
 * @example
 * ```ts
 * import { shortenString } from "./shorten_string.ts";
 * const s = shortenString("abcdefghij".repeat(30), 200);
 * s.startsWith("Truncated (300): abcdefghij"); // true
 * s.length; // 215
 * ```
 */
export function shortenString(s: string, max = 200): string {
  if (!Number.isInteger(max) || max < MIN_SHORTEN_MAX) {
    throw new ScoutError(
      "invalid_input",
      `Cannot shorten to ${max} characters: the minimum is ${MIN_SHORTEN_MAX}`,
    );
  }
  if (s.length <= max) return s; // UTF-16 length ≥ code points
  const total = codePointLength(s);
  if (total <= max) return s;
  const marker = `<...${total} - ${md5hex(s).slice(0, 5)}...>`;
  const h = Math.floor((max - marker.length) / 2);
  const head = s.slice(0, offsetAfterCodePoints(s, h - 1));
  const tail = s.slice(offsetOfLastCodePoints(s, h));
  const core = head + marker + tail;
  return h - 1 + marker.length + h < total ? `Truncated (${total}): ${core}` : core;
}
