/**
 * Ages and sizes as the store-cleaning commands read and print them
 * (`system clean --older`, `llm cache clean --older`). An age is Scout's
 * time span (`Misc.timespan`, scout-gear's `scout system clean -o`): amounts
 * with a unit — `s`/`sec`, `m`/`min`, `h`, `d`, `w`, `mo` (31 days), `y`
 * (365 days) — run together (`1d12h`), a bare number counting days, or a
 * clock `[[H:]M:]S`.
 *
 * [TS-FIX] Scout skips what it cannot read (`30days` raises, `1.5d` reads
 * as 1 + 5 days, `abc` as 0: every old job); here anything but those forms
 * is refused, and the caller makes that a usage error.
 *
 * @module
 */

/** Seconds per unit (Scout's table; `m` is minutes, `mo` months). */
const UNIT_SECONDS: Readonly<Record<string, number>> = {
  s: 1,
  sec: 1,
  m: 60,
  min: 60,
  h: 3_600,
  d: 86_400,
  w: 7 * 86_400,
  mo: 31 * 86_400,
  y: 365 * 86_400,
};

/**
 * One amount and its unit, the unit right after the number (Scout reads
 * `12 h` as 12 days); the longer unit names first (`mo` before `m`).
 */
const PART = /\s*(\d+)(sec|min|mo|s|m|h|d|w|y)?\s*/y;
const CLOCK = /^(\d+)(?::(\d+))?(?::(\d+))?$/;

/** What an age looks like, for error messages. */
export const AGE_FORMS =
  "e.g. 30d, 12h, 2w, 3mo, 1y, 1d12h, 90m or 0, the unit right after its number; " +
  "a bare number counts days";

/**
 * Why an age is refused, when Scout would read it as another age (R124-4):
 * a unit apart from its number, or a decimal amount.
 *
 * @param text the age as typed
 * @returns the reason, or null when there is nothing particular to say
 *
 * @example
 * ```ts
 * import { ageProblem } from "./age.ts";
 * ageProblem("12 h"); // "Scout reads a unit apart from its number as days (\"12 h\" is 12 days there): write 12h"
 * ```
 */
export function ageProblem(text: string): string | null {
  const apart = /(\d+)\s+(sec|min|mo|s|m|h|d|w|y)(?![a-z])/.exec(text);
  if (apart !== null) {
    return `Scout reads a unit apart from its number as days ("${apart[0]}" is ` +
      `${apart[1]} days there): write ${apart[1]}${apart[2]}`;
  }
  const decimal = /(\d+)[.,](\d+)/.exec(text);
  if (decimal !== null) {
    return `no decimal amounts: Scout reads "${decimal[0]}" as ${decimal[1]} and ${decimal[2]}, ` +
      "added; write whole amounts of a smaller unit (1d12h, 36h)";
  }
  return null;
}

/**
 * Reads an age.
 *
 * @param text the age as typed
 * @returns milliseconds, or null when `text` is no age
 *
 * @example
 * ```ts
 * import { parseAge } from "./age.ts";
 * parseAge("30d"); // 2592000000
 * parseAge("1d12h"); // 129600000
 * parseAge("30"); // 2592000000 (days)
 * parseAge("30days"); // null
 * ```
 */
export function parseAge(text: string): number | null {
  const s = text.trim();
  if (s === "") return null;
  if (s.includes(":")) {
    const m = CLOCK.exec(s);
    if (m === null) return null;
    // Scout reads the parts from the right: seconds, minutes, hours
    const parts = [m[1], m[2], m[3]].filter((p) => p !== undefined).map(Number).reverse();
    return safeMs((parts[0] ?? 0) + (parts[1] ?? 0) * 60 + (parts[2] ?? 0) * 3_600);
  }
  PART.lastIndex = 0;
  let seconds = 0;
  let m: RegExpExecArray | null;
  while (PART.lastIndex < s.length && (m = PART.exec(s)) !== null) {
    seconds += Number(m[1]) * UNIT_SECONDS[m[2] ?? "d"]!;
  }
  if (PART.lastIndex !== s.length) return null;
  return safeMs(seconds);
}

/**
 * Seconds in ms, or null past what an integer holds exactly: the clock form
 * too (R163-3: `99999999999999999999:0` was 6e21 s, and 400 nines infinite,
 * which `--json` printed as `null`, "no age given", yet the clean ran).
 */
function safeMs(seconds: number): number | null {
  return Number.isSafeInteger(seconds * 1000) ? seconds * 1000 : null;
}

/**
 * An age in its largest whole unit, for output (`45d`, `3h`, `12m`, `5s`).
 *
 * @param ms milliseconds
 * @returns the age
 *
 * @example
 * ```ts
 * import { formatAge } from "./age.ts";
 * formatAge(90 * 60_000); // "1h"
 * ```
 */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s >= 86_400) return `${Math.floor(s / 86_400)}d`;
  if (s >= 3_600) return `${Math.floor(s / 3_600)}h`;
  if (s >= 60) return `${Math.floor(s / 60)}m`;
  return `${s}s`;
}

/**
 * A byte count for people: `512 B`, `1.5 KiB`, `3.4 MiB`, `2.0 GiB`.
 *
 * @param n bytes
 * @returns the size
 *
 * @example
 * ```ts
 * import { formatBytes } from "./age.ts";
 * formatBytes(1536); // "1.5 KiB"
 * ```
 */
export function formatBytes(n: number): string {
  const units = ["KiB", "MiB", "GiB", "TiB"];
  if (n < 1024) return `${n} B`;
  let v = n;
  let unit = "B";
  for (const u of units) {
    if (v < 1024) break;
    v /= 1024;
    unit = u;
  }
  return `${v.toFixed(1)} ${unit}`;
}
