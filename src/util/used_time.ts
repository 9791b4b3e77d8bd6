/**
 * When a file was last used, by its times, for the ages of `system clean`
 * and `llm cache clean` (R163-2). A time ahead of this host's clock by more
 * than any plausible skew ({@link beyondSkew}, the locks' rule: more than
 * {@link MAX_SKEW_MS}) is no clock's reading — a `touch -d`, a bogus date —
 * so it does not count: the file's change time (ctime) stands for it, which
 * the kernel or file server sets whenever the times are set and no
 * `utimes` can move. Until then such a date made a job or an entry look
 * used a moment ago until that date, and both cleans kept it silently.
 * Within the skew a date ahead still counts, as a time written by another
 * host's clock: the grace minute and `--older` hold as they did.
 *
 * When the change time too is beyond the skew ahead (the file server's
 * clock is), the age is unknown: the file is kept, never taken for old, and
 * the clean says why ({@link futureReason}).
 *
 * @module
 */
import { formatAge } from "./age.ts";
import { beyondSkew, MAX_SKEW_MS } from "./lock_watch.ts";

/** Some times of one file and its change time (ms since the epoch). */
export interface FileTimes {
  /** Its modification, access… times as the clean reads them. */
  times: readonly number[];
  /** Its change time (ctime). */
  ctimeMs: number;
}

/** When files were last used, as a clean counts it. */
export interface UsedTime {
  /** The newest time, each one dated beyond the skew ahead replaced by its file's change time. */
  ms: number;
  /** The newest time dated beyond the skew ahead, or null when there is none. */
  futureMs: number | null;
}

/**
 * Whether a time is ahead of `now` by more than any plausible skew between
 * hosts' clocks ({@link beyondSkew}).
 *
 * @param ms the time
 * @param now this host's time
 * @returns true when no clock could have written it
 *
 * @example
 * ```ts
 * import { datedAhead } from "./used_time.ts";
 * datedAhead(Date.now() + 3_600_000, Date.now()); // true
 * datedAhead(Date.now() + 60_000, Date.now()); // false: a clock a minute ahead
 * ```
 */
export function datedAhead(ms: number, now: number): boolean {
  return beyondSkew(ms, Infinity, now);
}

/**
 * When files were last used: the newest of their times, a time dated
 * beyond the skew ahead replaced by its file's change time.
 *
 * @param files each file's times
 * @param now this host's time
 * @returns the time, and the date ahead that was not counted
 *
 * @example
 * ```ts
 * import { lastUsed } from "./used_time.ts";
 * const now = Date.parse("2025-01-02T00:00:00Z");
 * const ctimeMs = now - 60_000;
 * lastUsed([{ times: [Date.parse("2030-01-01T00:00:00Z")], ctimeMs }], now);
 * // { ms: ctimeMs, futureMs: 1893456000000 }
 * ```
 */
export function lastUsed(files: readonly FileTimes[], now: number): UsedTime {
  let ms = 0;
  let futureMs: number | null = null;
  for (const f of files) {
    for (const t of f.times) {
      const ahead = datedAhead(t, now);
      if (ahead) futureMs = Math.max(futureMs ?? t, t);
      ms = Math.max(ms, ahead ? f.ctimeMs : t);
    }
  }
  return { ms, futureMs };
}

/**
 * Why a file dated in the future stays, for a clean's "kept" list.
 *
 * @param used when it was last used ({@link lastUsed}; `futureMs` set)
 * @param now this host's time
 * @returns the reason
 *
 * @example
 * ```ts
 * import { futureReason } from "./used_time.ts";
 * const now = Date.parse("2025-01-02T00:00:00Z");
 * futureReason({ ms: now - 5_000, futureMs: Date.parse("2030-01-01T00:00:00Z") }, now);
 * // "dated in the future (2030-01-01T00:00:00.000Z, more than 10m ahead of this host's clock):
 * //  its age counts from its last change, 5s ago"
 * ```
 */
export function futureReason(used: UsedTime, now: number): string {
  const when = new Date(used.futureMs ?? used.ms);
  const date = Number.isNaN(when.getTime()) ? `${used.futureMs} ms` : when.toISOString();
  const head = `dated in the future (${date}, more than ${
    formatAge(MAX_SKEW_MS)
  } ahead of this host's clock)`;
  return datedAhead(used.ms, now)
    ? `${head}, its last change too: its age is unknown`
    : `${head}: its age counts from its last change, ${formatAge(now - used.ms)} ago`;
}
