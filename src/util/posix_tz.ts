/**
 * POSIX `TZ` strings (tzset(3)): `std offset [dst [offset] [,start[/time],end[/time]]]`,
 * e.g. `UTC-14`, `<+0545>-5:45`, `CET-1CEST,M3.5.0,M10.5.0/3`, and the UTC
 * offset glibc gives one at an instant. Bun's JavaScriptCore reads none of
 * them (its dates are UTC under every such `TZ`), Deno's V8 not the ones with
 * a `<…>` name or DST rules (R163-1); libc, hence Ruby and `date`, reads all.
 *
 * @module
 */

/** When DST starts or ends in a year: the day by one of tzset(3)'s three forms, and the time. */
export type PosixTzRule =
  /** `Jn`: day 1…365, February 29 never counted. */
  | { kind: "julian"; day: number; time: number }
  /** `n`: day 0…365, February 29 counted. */
  | { kind: "day"; day: number; time: number }
  /** `Mm.w.d`: weekday d (0 = Sunday) of week w (5 = the last) of month m. */
  | { kind: "month"; month: number; week: number; weekday: number; time: number };

/** A parsed POSIX `TZ` string; offsets in seconds east of UTC, rule times in seconds. */
export interface PosixTz {
  /** Standard time's offset. */
  std: number;
  /** Daylight time's offset and when it starts and ends (in local time), if any. */
  dst?: { offset: number; start: PosixTzRule; end: PosixTzRule };
}

const NAME = /^(?:<[A-Za-z0-9+-]{3,}>|[A-Za-z]{3,})/;
const CLOCK = /^([+-]?)(\d{1,3})(?::(\d{1,2}))?(?::(\d{1,2}))?/;

/** `[+-]hh[:mm[:ss]]` at the start of `s` as seconds (`maxHours` bounds hh), and the rest. */
function clock(s: string, maxHours: number): [number, string] | null {
  const m = CLOCK.exec(s);
  if (m === null) return null;
  const [all, sign, h, mi = "0", se = "0"] = m;
  if (+h! > maxHours || +mi > 59 || +se > 59) return null;
  const secs = +h! * 3600 + +mi * 60 + +se;
  return [sign === "-" ? -secs : secs, s.slice(all.length)];
}

function rule(s: string): [PosixTzRule, string] | null {
  const m = /^(?:J(\d{1,3})|(\d{1,3})|M(\d{1,2})\.(\d)\.(\d))/.exec(s);
  if (m === null) return null;
  let rest = s.slice(m[0].length);
  let time = 7200;
  if (rest.startsWith("/")) {
    const t = clock(rest.slice(1), 167);
    if (t === null) return null;
    [time, rest] = t;
  }
  const [, j, n, mo, w, d] = m;
  if (j !== undefined) {
    return +j >= 1 && +j <= 365 ? [{ kind: "julian", day: +j, time }, rest] : null;
  }
  if (n !== undefined) return +n <= 365 ? [{ kind: "day", day: +n, time }, rest] : null;
  const ok = +mo! >= 1 && +mo! <= 12 && +w! >= 1 && +w! <= 5 && +d! <= 6;
  return ok ? [{ kind: "month", month: +mo!, week: +w!, weekday: +d!, time }, rest] : null;
}

/**
 * Parses a POSIX `TZ` string (without a leading `:`).
 *
 * @param text the value of `TZ`
 * @returns the zone, or null when `text` is not one (a zone name like
 *   `Europe/Berlin`), or names DST with no rules: glibc then takes the
 *   changes of zoneinfo's `posixrules` (New York's) and shifts them by the
 *   given offsets in a way of its own, not worth copying here
 *
 * @example
 * ```ts
 * import { parsePosixTz } from "./posix_tz.ts";
 * parsePosixTz("UTC-14"); // { std: 50400 }
 * parsePosixTz("Europe/Berlin"); // null
 * ```
 */
export function parsePosixTz(text: string): PosixTz | null {
  const std = NAME.exec(text);
  const stdOff = std && clock(text.slice(std[0].length), 24);
  if (stdOff === null) return null;
  let rest = stdOff[1];
  const zone: PosixTz = { std: -stdOff[0] };
  if (rest === "") return zone;
  const dst = NAME.exec(rest);
  if (dst === null) return null;
  rest = rest.slice(dst[0].length);
  let offset = zone.std + 3600;
  if (rest !== "" && !rest.startsWith(",")) {
    const o = clock(rest, 24);
    if (o === null) return null;
    [offset, rest] = [-o[0], o[1]];
  }
  const start = rest.startsWith(",") ? rule(rest.slice(1)) : null;
  const end = start !== null && start[1].startsWith(",") ? rule(start[1].slice(1)) : null;
  if (end === null || end[1] !== "") return null;
  return { ...zone, dst: { offset, start: start![0], end: end[0] } };
}

const DAY = 86_400_000;

/** The instant (ms) `r` names in `year`, its time read as UTC. */
function ruleTime(r: PosixTzRule, year: number): number {
  const jan1 = Date.UTC(year, 0, 1);
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  if (r.kind === "julian") {
    return jan1 + (r.day - 1 + (leap && r.day >= 60 ? 1 : 0)) * DAY + r.time * 1000;
  }
  if (r.kind === "day") return jan1 + r.day * DAY + r.time * 1000;
  const first = new Date(Date.UTC(year, r.month - 1, 1)).getUTCDay();
  const length = new Date(Date.UTC(year, r.month, 0)).getUTCDate();
  let day = 1 + ((r.weekday - first + 7) % 7) + (r.week - 1) * 7;
  while (day > length) day -= 7;
  return Date.UTC(year, r.month - 1, day) + r.time * 1000;
}

/**
 * The offset `zone` has at an instant, as glibc's `__tz_compute` works it
 * out: the rules of the instant's UTC year, the start read in standard time
 * and the end in daylight time; a start after the end is a southern zone.
 *
 * @param zone the parsed zone
 * @param ms the instant (ms since the epoch)
 * @returns seconds east of UTC
 *
 * @example
 * ```ts
 * import { parsePosixTz, posixTzOffset } from "./posix_tz.ts";
 * const cet = parsePosixTz("CET-1CEST,M3.5.0,M10.5.0/3")!;
 * posixTzOffset(cet, Date.UTC(2026, 6, 1)); // 7200
 * ```
 */
export function posixTzOffset(zone: PosixTz, ms: number): number {
  const dst = zone.dst;
  if (dst === undefined) return zone.std;
  const year = new Date(ms).getUTCFullYear();
  const start = ruleTime(dst.start, year) - zone.std * 1000;
  const end = ruleTime(dst.end, year) - dst.offset * 1000;
  const inDst = start > end ? ms < end || ms >= start : ms >= start && ms < end;
  return inDst ? dst.offset : zone.std;
}
