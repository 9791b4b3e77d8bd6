/**
 * Judging a lock whose holder's clock is not this host's (R139). A holder
 * refreshes its lock's modification time with its own clock; on a store
 * shared by several hosts, a holder whose clock is behind ours makes its live
 * lock look old, and one ahead makes a dead one look fresh for as long as it
 * is ahead. So a lock of another host is judged by what this waiter sees: a
 * live holder's refreshes change the lock's modification time, whatever date
 * they write, and a lock seen unchanged for the stale age has no live holder
 * ({@link lockWatch}). Only a date no plausible clock could have written —
 * more than {@link MAX_SKEW_MS} past the stale age, or more than that ahead
 * of ours — is judged at a glance ({@link beyondSkew}): a lock dead for long,
 * or dated by hand (`touch -d`), costs no watch, and a sweep that looks once
 * can remove it. The persist locks (`workflow/lock.ts`), the inference
 * cache's key locks and holder files (`llm/cache_stale.ts`,
 * `llm/cache_holder.ts`) and the shared file lock (`file_lock.ts`) use it;
 * design-notes, "Locks across hosts with skewed clocks". The whole rule, this
 * host's side too, is {@link lockStale}: the persist locks, the cache's key
 * locks and the file lock judge by it (R151-1: the file lock had its own
 * this-host rule, pid only, and waited out a reused pid's lock for ever).
 *
 * @module
 */
import { holderHost } from "./holder.ts";
import { pidAlive } from "./process.ts";
import type { LockId } from "./stale_takeover.ts";

/**
 * How far the clocks of hosts sharing a store are taken to disagree at most:
 * 10 minutes, twice the 5 minutes Kerberos tolerates (a host further off
 * cannot authenticate to a `sec=krb5` share); hosts kept by NTP agree within
 * milliseconds, and one that lost it drifts by seconds a day.
 */
export const MAX_SKEW_MS = 600_000;

/**
 * Whether a lock's modification time, read on this host's clock, cannot be
 * a live holder's refresh under any plausible skew: older than `staleMs` +
 * {@link MAX_SKEW_MS}, or ahead of now by more than {@link MAX_SKEW_MS}.
 *
 * @param mtimeMs the lock's modification time (ms since the epoch)
 * @param staleMs the lock's stale age (how long a live holder may leave it untouched)
 * @param now this host's time
 * @returns true when the lock is stale whatever its holder's clock
 *
 * @example
 * ```ts
 * import { beyondSkew } from "./lock_watch.ts";
 * beyondSkew(Date.now() - 3_600_000, 30_000); // true: an hour old
 * beyondSkew(Date.now() - 60_000, 30_000); // false: a clock a minute behind
 * ```
 */
export function beyondSkew(mtimeMs: number, staleMs: number, now: number = Date.now()): boolean {
  const age = now - mtimeMs;
  return age > staleMs + MAX_SKEW_MS || -age > MAX_SKEW_MS;
}

/**
 * One waiter's watch of a lock: true once it has seen the same file (inode)
 * with the same modification time for longer than `staleMs`, on its own clock.
 */
export type LockWatch = (id: Pick<LockId, "ino" | "mtimeMs">, staleMs: number) => boolean;

/**
 * A new watch, for one waiter: it remembers the lock it last saw and since when.
 *
 * @param clock this host's clock (a test's seam)
 * @returns the watch
 */
export function lockWatch(clock: () => number = Date.now): LockWatch {
  let seen: { ino: number; mtimeMs: number; since: number } | null = null;
  return (id, staleMs) => {
    const now = clock();
    if (seen === null || seen.ino !== id.ino || seen.mtimeMs !== id.mtimeMs) {
      seen = { ino: id.ino, mtimeMs: id.mtimeMs, since: now };
      return false;
    }
    return now - seen.since > staleMs;
  };
}

/**
 * The staleness of another host's lock: at a glance when its date is beyond
 * any plausible skew ({@link beyondSkew}), else when `watch` has seen it
 * unchanged for `staleMs` (without a watch — a sweep that looks once — never).
 *
 * @param id the lock's file
 * @param staleMs its stale age
 * @param watch the waiter's watch, if it waits
 * @returns true when it may be taken over
 */
export function staleElsewhere(
  id: Pick<LockId, "ino" | "mtimeMs">,
  staleMs: number,
  watch?: LockWatch,
): boolean {
  return beyondSkew(id.mtimeMs, staleMs) || (watch?.(id, staleMs) ?? false);
}

/** Who a lock names (`<pid>@<host>`, or a persist lock's `host:`/`pid:` lines): either may be missing. */
export interface LockHolder {
  /** The holder's process id. */
  pid?: number;
  /** The holder's host. */
  host?: string;
}

/** How {@link lockStale} judges: the waiter's watch, and this process's own locks. */
export interface StaleOptions {
  /** The waiter's watch; none: a sweep's look, at a glance. */
  watch?: LockWatch;
  /**
   * Whether a lock naming this process is stale: true for a holder that
   * never waits on a lock it holds (it is an earlier process's with our pid).
   */
  ownIsStale?: boolean;
}

/**
 * Whether a lock may be taken over. Another host's: {@link staleElsewhere}.
 * This host's, or one naming no host, judged on our own clock: untouched for
 * `staleMs` (a live holder refreshes it well within that; a pid seen alive
 * may be an unrelated process's after a crash or a reboot, pids being
 * reused), dated beyond any skew ({@link beyondSkew}: a `touch -d` ahead),
 * seen unchanged by `watch` for `staleMs`, or naming a dead pid here.
 *
 * @param holder who the lock names
 * @param id the lock's file
 * @param staleMs its stale age
 * @param opts the waiter's watch; whether this process's own lock is stale
 * @returns true when it may be taken over
 *
 * @example
 * ```ts
 * import { lockStale } from "./lock_watch.ts";
 * // pid 1 lives, but nobody touched its lock for two days
 * lockStale({ pid: 1, host: "n1" }, { ino: 1, mtimeMs: Date.now() - 2 * 86_400_000 }, 30_000);
 * ```
 */
export function lockStale(
  holder: LockHolder,
  id: Pick<LockId, "ino" | "mtimeMs">,
  staleMs: number,
  opts: StaleOptions = {},
): boolean {
  const { host, pid } = holder;
  if (host !== undefined && host !== holderHost()) return staleElsewhere(id, staleMs, opts.watch);
  if (Date.now() - id.mtimeMs > staleMs || beyondSkew(id.mtimeMs, staleMs)) return true;
  if (host !== undefined && pid !== undefined) {
    if (pid === process.pid ? opts.ownIsStale === true : !pidAlive(pid)) return true;
  }
  return opts.watch?.(id, staleMs) ?? false;
}
