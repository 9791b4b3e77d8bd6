/**
 * Small statistics shared by the benchmarks.
 *
 * @module
 */

/**
 * Median of a list (the mean of the two middle values for an even count).
 *
 * @param xs numbers
 * @returns the median (NaN for an empty list)
 */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
