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
export function grown<T extends Int32Array | Float64Array | Uint8Array | Uint32Array>(
  a: T,
  need: number,
): T {
  if (a.length >= need) return a;
  return resized(a, Math.max(need, Math.ceil(a.length * 1.5)));
}

/**
 * `a`'s entries in an array of length `n` (cut, or extended with zeros),
 * moved with `ArrayBuffer.prototype.transfer`: the old memory is given back
 * at once instead of waiting as garbage for a collection. `a` is detached
 * afterwards: a column must not be held anywhere else.
 */
function resized<T extends Int32Array | Float64Array | Uint8Array | Uint32Array>(
  a: T,
  n: number,
): T {
  const make = a.constructor as new (b: ArrayBuffer) => T;
  return new make((a.buffer as ArrayBuffer).transfer(n * a.BYTES_PER_ELEMENT));
}

/**
 * The first `n` entries of `a` in an array of exactly that length (a column
 * is grown ahead of need; once complete it keeps only what it holds), or
 * all of them and zeros after when `n` is longer.
 *
 * @param a a typed array (detached when its length changes: see {@link grown})
 * @param n entries wanted
 * @returns `a` when it is that long already, else the same entries, moved
 */
export function fitted<T extends Int32Array | Float64Array | Uint8Array | Uint32Array>(
  a: T,
  n: number,
): T {
  return a.length === n ? a : resized(a, n);
}

/**
 * Sorts `xs` ascending in place and moves its distinct values to the front.
 *
 * @param xs numbers (a JS array or 32-bit integers)
 * @returns how many distinct values now lead `xs`
 */
export function sortDistinct(xs: number[] | Int32Array): number {
  if (xs instanceof Int32Array) xs.sort();
  else xs.sort((a, b) => a - b);
  let n = 0;
  for (let i = 0; i < xs.length; i++) if (n === 0 || xs[i] !== xs[n - 1]) xs[n++] = xs[i]!;
  return n;
}

/** Token values, six per record: 32-bit when every value fits (the usual case), else doubles. */
export type TokenColumn = Float64Array | Int32Array;

/**
 * The first `n` token values of `a` in half the memory when each is a
 * 32-bit integer (token counts always are, in practice), else as doubles.
 *
 * @param a token values, as grown
 * @param n values in use
 * @returns a column of exactly `n` values
 */
export function compactTokens(a: Float64Array, n: number): TokenColumn {
  for (let i = 0; i < n; i++) if ((a[i]! | 0) !== a[i]) return fitted(a, n);
  return Int32Array.from(a.subarray(0, n));
}

/**
 * Writes the six token values of `t` at `at`. A column starts as 32-bit
 * integers (token counts, in practice); the first value that is not one
 * turns it into doubles, for good.
 *
 * @param col token values, six per record
 * @param at where the record starts
 * @param t the values
 * @returns `col`, or its copy as doubles (the caller keeps what is returned)
 */
export function putTokens(col: TokenColumn, at: number, t: TokenTotals): TokenColumn {
  if (col instanceof Int32Array) {
    for (let i = 0; i < K; i++) {
      const v = t[TOKEN_KEYS[i]!];
      if ((v | 0) !== v) {
        col = Float64Array.from(col);
        break;
      }
    }
  }
  for (let i = 0; i < K; i++) col[at + i] = t[TOKEN_KEYS[i]!];
  return col;
}

/**
 * The six token values at `at` as a record.
 *
 * @param values token values, six per record, in `TOKEN_KEYS` order
 * @param at where the record starts
 * @returns `{pt, ct, tt, cct, cwt, rt}`
 */
export function tokensAt(values: TokenColumn, at: number): TokenTotals {
  return {
    pt: values[at]!,
    ct: values[at + 1]!,
    tt: values[at + 2]!,
    cct: values[at + 3]!,
    cwt: values[at + 4]!,
    rt: values[at + 5]!,
  };
}

/**
 * Whether an ascending list holds `x` (binary search).
 *
 * @param sorted ascending numbers
 * @param x the number looked for
 * @returns true when `x` is in `sorted`
 */
export function sortedHas(sorted: ArrayLike<number>, x: number): boolean {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length && sorted[lo] === x;
}

/** Number of token keys (six). */
export const K = TOKEN_KEYS.length;

/** Where `tt` is among an event's `K` token values. */
export const TT = TOKEN_KEYS.indexOf("tt");
