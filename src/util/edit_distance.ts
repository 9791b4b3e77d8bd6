/**
 * How far apart two names are, for "did you mean" suggestions (a task, an
 * input, a call option): the edits — insert, delete, change one character,
 * swap two neighbours — that turn one into the other (optimal string
 * alignment), and the names near one ({@link nearNames}). One implementation
 * for the workflow's, the endpoint's and the ask's suggestions.
 *
 * @module
 */
import { compareNames } from "./name_order.ts";

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

/**
 * Names close to `name` (edit distance ≤ max(2, a third of its length), or a
 * case-insensitive prefix), best first: the "did you mean" of a task, a
 * workflow, an endpoint.
 *
 * @param name what was asked for
 * @param candidates known names
 * @returns up to three suggestions
 *
 * @example
 * ```ts
 * import { nearNames } from "./edit_distance.ts";
 * nearNames("nnao", ["nano", "openai", "nano-big"]); // ["nano"]
 * ```
 */
export function nearNames(name: string, candidates: readonly string[]): string[] {
  const limit = Math.max(2, Math.floor(name.length / 3));
  return candidates
    .map((c) => ({ c, d: editDistance(name.toLowerCase(), c.toLowerCase()) }))
    .filter(({ c, d }) =>
      d <= limit || c.toLowerCase().startsWith(name.toLowerCase()) ||
      name.toLowerCase().startsWith(c.toLowerCase())
    )
    .sort((x, y) => x.d - y.d || compareNames(x.c, y.c))
    .slice(0, 3)
    .map(({ c }) => c);
}
