/**
 * Small helpers for the report's typed-array columns (issue 16).
 *
 * @module
 */
import { TOKEN_KEYS } from "../chat/meta.ts";
import type { TokenTotals } from "../chat/trace.ts";

/**
 * The array itself when it holds `need` entries, else a copy half as long
 * again or more (new entries zero).
 *
 * @param a a typed array
 * @param need entries needed
 * @returns `a` or a longer copy
 */
export function grown<T extends Int32Array | Float64Array | Uint8Array>(a: T, need: number): T {
  if (a.length >= need) return a;
  const b = new (a.constructor as new (n: number) => T)(Math.max(need, Math.ceil(a.length * 1.5)));
  b.set(a);
  return b;
}

/**
 * The six token values at `at` as a record.
 *
 * @param values token values, six per record, in `TOKEN_KEYS` order
 * @param at where the record starts
 * @returns `{pt, ct, tt, cct, cwt, rt}`
 */
export function tokensAt(values: Float64Array, at: number): TokenTotals {
  return {
    pt: values[at]!,
    ct: values[at + 1]!,
    tt: values[at + 2]!,
    cct: values[at + 3]!,
    cwt: values[at + 4]!,
    rt: values[at + 5]!,
  };
}

/** Number of token keys (six). */
export const K = TOKEN_KEYS.length;
