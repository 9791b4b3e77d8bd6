/**
 * One order for names a listing prints (workflows, agents, tasks, groups):
 * the English collation, fixed. `localeCompare` without a locale follows
 * `LANG` under Deno and is always `en-US` under Bun, so the source and the
 * binary listed the same names in different orders under another locale
 * (`sv_SE`: Alpha, Zeta, Äpfel against Alpha, Äpfel, Zeta; review R102-13).
 *
 * @module
 */

const collator = new Intl.Collator("en-US");

/**
 * Compares two names in the fixed English collation.
 *
 * @param a a name
 * @param b another
 * @returns negative, 0 or positive, as `localeCompare`
 */
export function compareNames(a: string, b: string): number {
  return collator.compare(a, b);
}
