/**
 * How far apart two names are, for "did you mean" suggestions (a task, an
 * input, a call option): the edits — insert, delete, change one character,
 * swap two neighbours — that turn one into the other (optimal string
 * alignment). One implementation for the workflow's and the ask's
 * suggestions.
 *
 * @module
 */

/**
 * Edits (insert, delete, change, swap two neighbours) from `a` to `b`.
 *
 * @param a a name
 * @param b another
 * @returns the number of edits
 *
 * @example
 * ```ts
 * import { editDistance } from "./edit_distance.ts";
 * [editDistance("singal", "signal"), editDistance("strem", "stream"), editDistance("a", "a")];
 * // [1, 1, 0]
 * ```
 */
export function editDistance(a: string, b: string): number {
  const n = b.length;
  let before: number[] = []; // row i - 2
  let prev = Array.from({ length: n + 1 }, (_, j) => j); // row i - 1
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= n; j++) {
      let best = Math.min(
        prev[j]! + 1,
        cur[j - 1]! + 1,
        prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, before[j - 2]! + 1);
      }
      cur[j] = best;
    }
    before = prev;
    prev = cur;
  }
  return prev[n]!;
}
