/**
 * The local UTC offset at an instant as libc gives it for `TZ` (so as Ruby's
 * `Time#to_s` and `date +%z` have it), for the local times Scout's job files
 * hold. The runtime's `Date` is not enough (R163-1): Bun's dates are UTC
 * under a POSIX string (`UTC-14`, `CET-1CEST,M3.5.0,M10.5.0/3`) or a
 * `:path` (`:/usr/share/zoneinfo/Asia/Kolkata`, `:/etc/localtime`, common on
 * HPC nodes), Deno's under a `<+0545>-5:45` name or DST rules. So a set
 * `TZ` is read here as libc reads it: a leading `:` dropped; a path under a
 * `zoneinfo/` directory, or a link into one, names that zone; a zone name is
 * computed through `Intl`; else a POSIX string is worked out
 * ({@link parsePosixTz}). A `TZ` none of these reads (a zone file copied
 * elsewhere, a bad name) keeps the runtime's offset, and says so once.
 *
 * @module
 */
import { realpathSync } from "node:fs";
import { parsePosixTz, type PosixTz, posixTzOffset } from "./posix_tz.ts";
import { warnOnce } from "./warn_once.ts";

/** How a `TZ` value is read: a zone `Intl` knows, a POSIX string, or the runtime's clock. */
type Zone = { intl: Intl.DateTimeFormat } | { posix: PosixTz } | "runtime";

const zones = new Map<string, Zone>();

function intlZone(name: string): Zone | null {
  // Intl takes offsets (`+05:30`) for zones too, libc reads them as nothing
  if (/^[+-]/.test(name)) return null;
  try {
    return {
      intl: new Intl.DateTimeFormat("en-US", {
        timeZone: name,
        hourCycle: "h23",
        year: "numeric",
        month: "numeric",
        day: "numeric",
        hour: "numeric",
        minute: "numeric",
        second: "numeric",
      }),
    };
  } catch {
    return null;
  }
}

/** The zone a zone file's path names: what follows `zoneinfo/` in it or in where its links lead. */
function zoneFileName(path: string): string | null {
  const named = (p: string) => /\/zoneinfo\/(?:posix\/)?(.+)$/.exec(p)?.[1] ?? null;
  const given = named(path);
  if (given !== null && intlZone(given) !== null) return given;
  try {
    return named(realpathSync(path));
  } catch {
    return null;
  }
}

function readZone(tz: string): Zone {
  const name = tz.startsWith(":") ? tz.slice(1) : tz;
  const zoneName = name.startsWith("/") ? zoneFileName(name) : name;
  const zone = zoneName === null ? null : intlZone(zoneName);
  if (zone !== null) return zone;
  const posix = name.startsWith("/") ? null : parsePosixTz(name);
  return posix === null ? "runtime" : { posix };
}

function intlOffset(fmt: Intl.DateTimeFormat, ms: number): number {
  const p: Record<string, string> = {};
  for (const part of fmt.formatToParts(new Date(ms))) p[part.type] = part.value;
  const wall = new Date(0);
  wall.setUTCFullYear(Number(p.year), Number(p.month) - 1, Number(p.day));
  wall.setUTCHours(Number(p.hour) % 24, Number(p.minute), Number(p.second));
  return Math.round((wall.getTime() - Math.floor(ms / 1000) * 1000) / 1000);
}

/**
 * The UTC offset of local time at `date` under `tz`, as libc works it out.
 *
 * @param date the instant
 * @param tz the `TZ` to read (default the process's); unset or empty: the runtime's local time
 * @returns seconds east of UTC
 *
 * @example
 * ```ts
 * import { localOffset } from "./local_offset.ts";
 * localOffset(new Date(0), "UTC-14"); // 50400
 * localOffset(new Date(0), ":/usr/share/zoneinfo/Asia/Kolkata"); // 19800, where that file is
 * ```
 */
export function localOffset(date: Date, tz: string | undefined = process.env.TZ): number {
  const runtime = () => -date.getTimezoneOffset() * 60;
  if (tz === undefined || tz === "") return runtime();
  let zone = zones.get(tz);
  if (zone === undefined) zones.set(tz, zone = readZone(tz));
  if (zone === "runtime") {
    warnOnce(
      `TZ ${tz}`,
      `TZ="${tz}" is no zone name, zoneinfo path or POSIX TZ string this program reads: ` +
        "local times in job files take the runtime's offset, which may not be libc's",
    );
    return runtime();
  }
  return "intl" in zone
    ? intlOffset(zone.intl, date.getTime())
    : posixTzOffset(zone.posix, date.getTime());
}
