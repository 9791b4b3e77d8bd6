/**
 * Time formats of Scout's job files: Ruby's `Time#to_s` for `.info` dates
 * (`2026-12-02 07:55:28 +0000`, local time, numeric offset) and the lock-file
 * timestamp (`2026-12-02 07:55:28.123000`).
 *
 * @module
 */

import { localOffset } from "../util/local_offset.ts";

function pad(n: number, width = 2): string {
  return String(n).padStart(width, "0");
}

/**
 * `date`'s local wall clock as a Date whose UTC fields read it, and the
 * offset (seconds east): from {@link localOffset}, which reads `TZ` as libc
 * does where the runtime's own local time does not (R163-1).
 */
function wallClock(date: Date): [Date, number] {
  const off = localOffset(date);
  return [new Date(date.getTime() + off * 1000), off];
}

function wallText(w: Date): string {
  return `${w.getUTCFullYear()}-${pad(w.getUTCMonth() + 1)}-${pad(w.getUTCDate())} ` +
    `${pad(w.getUTCHours())}:${pad(w.getUTCMinutes())}:${pad(w.getUTCSeconds())}`;
}

/**
 * Formats a date like Ruby's `Time#to_s`: local time with a numeric offset.
 *
 * @param date the instant (default now)
 * @returns e.g. `2026-12-02 07:55:28 +0000`
 *
 * @example
 * ```ts
 * import { rubyTime } from "./time.ts";
 * rubyTime(new Date(0)).length; // 25
 * ```
 */
export function rubyTime(date: Date = new Date()): string {
  const [wall, off] = wallClock(date);
  const abs = Math.floor(Math.abs(off) / 60); // Ruby's %z drops an offset's seconds
  return `${wallText(wall)} ${off < 0 ? "-" : "+"}${pad(Math.floor(abs / 60))}${pad(abs % 60)}`;
}

/**
 * Parses a Ruby `Time#to_s` string (also accepts ISO-8601 and the lock-file
 * form). Returns null for anything else.
 *
 * @param text the stored time
 * @returns the instant, or null when unparseable
 */
export function parseRubyTime(text: unknown): Date | null {
  if (typeof text !== "string") return null;
  const m =
    /^(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(\.\d+)?\s*(?:([+-])(\d\d):?(\d\d)|Z|UTC)?$/
      .exec(text.trim());
  if (m === null) return null;
  const [, y, mo, d, h, mi, s, frac, sign, oh, om] = m;
  const ms = frac ? Math.round(Number(frac) * 1000) : 0;
  if (sign === undefined) {
    if (/Z|UTC$/.test(text.trim())) {
      return new Date(Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +s!, ms));
    }
    // local time, as lockTime writes it: the offset there is the one at the instant
    const asUtc = Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +s!, ms);
    const guess = asUtc - localOffset(new Date(asUtc)) * 1000;
    return new Date(asUtc - localOffset(new Date(guess)) * 1000);
  }
  const offsetMin = (sign === "-" ? -1 : 1) * (+oh! * 60 + +om!);
  return new Date(Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +s!, ms) - offsetMin * 60_000);
}

/**
 * The lock-file timestamp: local `YYYY-MM-DD HH:MM:SS.ffffff`.
 *
 * @param date the instant (default now)
 * @returns e.g. `2026-12-02 07:55:28.123000`
 */
export function lockTime(date: Date = new Date()): string {
  const [wall] = wallClock(date);
  return `${wallText(wall)}.${pad(wall.getUTCMilliseconds(), 3)}000`;
}
