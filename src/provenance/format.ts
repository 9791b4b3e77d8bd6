/**
 * Number and column formatting of the `prov` renderers (`provenance.md`
 * §10.3–§10.6): human token counts `H(n)`, flow short tokens, and the
 * printf-style padding of the Ruby command, with C's rounding of exact
 * binary ties.
 *
 * @module
 */
import type { TokenTotals } from "../chat/trace.ts";
import { codePointLength } from "../util/code_points.ts";

/** Exact `mantissa · 2^exponent` of a finite non-negative double. */
function decompose(x: number): { mant: bigint; exp: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  const frac = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  if (biased === 0) return { mant: frac, exp: -1074 };
  return { mant: frac | (1n << 52n), exp: biased - 1075 };
}

/**
 * Formats `x` with `digits` decimals, rounding the exact binary value half to
 * even — what C's `printf("%.Nf")` (and Ruby's `format`) do: 1.25 → `1.2`,
 * 1.35 → `1.4` (1.35 is slightly above in binary), 1.75 → `1.8`.
 *
 * @param x a finite number
 * @param digits decimals (0–20)
 * @returns the decimal text
 */
export function toFixedEven(x: number, digits: number): string {
  if (!Number.isFinite(x)) return String(x);
  // Only exact ties round differently from `toFixed` (which also rounds the
  // exact binary value, but ties away from zero). At a tie x·2·10^d is an odd
  // integer, and then the product below is computed exactly: when it is not
  // an integer there is no tie, and the fast `toFixed` is right.
  if (x > 0 && x < 1e21 && digits <= 20 && !Number.isInteger(x * 2 * 10 ** digits)) {
    return x.toFixed(digits); // (toFixed switches to exponents from 1e21)
  }
  const neg = x < 0 || Object.is(x, -0);
  const { mant, exp } = decompose(Math.abs(x));
  const num = mant * 10n ** BigInt(digits);
  let q: bigint;
  if (exp >= 0) {
    q = num << BigInt(exp);
  } else {
    const den = 1n << BigInt(-exp);
    q = num / den;
    const twice = (num % den) * 2n;
    if (twice > den || (twice === den && q % 2n === 1n)) q += 1n;
  }
  let s = q.toString();
  if (digits > 0) {
    s = s.padStart(digits + 1, "0");
    s = `${s.slice(0, -digits)}.${s.slice(-digits)}`;
  }
  return neg && /[1-9]/.test(s) ? `-${s}` : s;
}

const UNITS = ["", "K", "M", "B", "T"];

/**
 * `H(n)`: a token count for humans. While the value is at least 999.5 (and a
 * larger unit exists) it is divided by 1000; from 10 up it is rounded half
 * away from zero, below 10 it keeps one decimal (ties to even on the exact
 * binary value) without a trailing `.0`.
 *
 * @param n an integer count
 * @returns e.g. `918`, `1.2K`, `12K`, `1M`
 *
 * @example
 * ```ts
 * import { human } from "./format.ts";
 * [human(1250), human(1750), human(1499), human(999500)]; // ["1.2K", "1.8K", "1.5K", "1M"]
 * ```
 */
export function human(n: number): string {
  const sign = n < 0 ? "-" : "";
  let v = Math.abs(n);
  let u = 0;
  while (v >= 999.5 && u < UNITS.length - 1) {
    v /= 1000;
    u++;
  }
  let s: string;
  if (v >= 10) {
    s = String(Math.floor(v + 0.5));
  } else {
    s = toFixedEven(v, 1);
    if (s.endsWith(".0")) s = s.slice(0, -2);
  }
  return sign + s + UNITS[u];
}

/**
 * The token part of a tree line: `total=H(tt) prompt=H(pt) cont=H(ct)
 * cache=H(cct) reason=H(rt)`, each only when positive (`cwt` never shown).
 *
 * @param t token totals
 * @returns the text, empty when nothing is positive
 */
export function tokenText(t: TokenTotals): string {
  const parts: string[] = [];
  const add = (label: string, v: number) => v > 0 && parts.push(`${label}=${human(v)}`);
  add("total", t.tt);
  add("prompt", t.pt);
  add("cont", t.ct);
  add("cache", t.cct);
  add("reason", t.rt);
  return parts.join(" ");
}

/**
 * The flow's short token count: `%.1fM` from a million, `%.1fk` from a
 * thousand, else the integer.
 *
 * @param n a token count
 * @returns e.g. `918`, `1.2k`, `3.5M`
 */
export function shortTokens(n: number): string {
  if (n >= 1e6) return `${toFixedEven(n / 1e6, 1)}M`;
  if (n >= 1000) return `${toFixedEven(n / 1000, 1)}k`;
  return String(n);
}

/**
 * `%-Ns`: pads on the right to `n` characters (never truncates).
 *
 * @param s text
 * @param n width
 * @returns padded text
 */
export function padRight(s: string, n: number): string {
  const w = codePointLength(s);
  return w >= n ? s : s + " ".repeat(n - w);
}

/**
 * `%Ns`: pads on the left to `n` characters (never truncates).
 *
 * @param s text
 * @param n width
 * @returns padded text
 */
export function padLeft(s: string, n: number): string {
  const w = codePointLength(s);
  return w >= n ? s : " ".repeat(n - w) + s;
}

/**
 * A dollar amount as the `prov` views show it, without the `$`: four decimals
 * from a cent up (`0.0123`, `12.3457`); below a cent two significant figures,
 * so a few cheap tokens do not read as nothing (2.5e-6 → `0.0000025`,
 * 0.00034 → `0.00034`); zero is `0.0000`. Amounts too small for 20 decimals
 * take an exponent (`3.0e-30`). JSON keeps the exact number.
 *
 * @param x dollars (non-negative)
 * @returns the text
 */
export function dollarAmount(x: number): string {
  if (!(x > 0) || x >= 0.01) return x.toFixed(4);
  // rounded first: 0.00099996 is 0.0010 (two figures), not 0.00100
  const r = Number(x.toPrecision(2));
  if (r >= 0.01) return r.toFixed(4);
  const decimals = Math.max(4, 1 - Math.floor(Math.log10(r)));
  return decimals > 20 ? r.toPrecision(2) : r.toFixed(decimals);
}
