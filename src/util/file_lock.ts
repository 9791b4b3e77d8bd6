/**
 * An exclusive lock around synchronous work on a shared file: short, around
 * a read-modify-write (a knowledge base's registry), or long, around a build
 * (a database's index, R112-6) — then refreshed from the refresher thread
 * while held (`lock_refresher.ts`). `<file>.lock`, created with `O_EXCL`,
 * holding `<pid>@<host>`. A lock whose holder is a dead process on this host,
 * or one untouched for longer than a hold goes without a refresh (of this
 * host, by our clock, R151-1; another host's as seen by a waiter, whatever
 * its date by our clock, R139: `lock_watch.ts`), is taken over — only the file judged stale, one taker at a
 * time (`stale_takeover.ts`), so of two waiters that judged the same dead lock
 * the second never removes the lock the first then took (R78-1). Waiting polls
 * synchronously (`Atomics.wait`), so it works in sync code paths.
 *
 * @module
 */
import { closeSync, unlinkSync } from "node:fs";
import { ScoutError } from "../errors.ts";
import { createWithText } from "./exclusive_create.ts";
import { keepFresh } from "./lock_refresher.ts";
import { thisHolder } from "./holder.ts";
import {
  holderOf,
  judgeLockSync,
  type LockId,
  type StaleTest,
  takeOver,
} from "./stale_takeover.ts";
import { notALockError } from "./not_a_lock.ts";
import { lockStale, type LockWatch, lockWatch } from "./lock_watch.ts";

/** A lock nobody has touched for this long is stale whoever holds it. */
const STALE_MS = 30_000;
/** How long a caller waits for a live holder before giving up. */
const WAIT_MS = 60_000;
/** How often a long hold touches its lock: well within {@link STALE_MS}. */
const REFRESH_MS = 5_000;

const pause = new Int32Array(new SharedArrayBuffer(4));

function sleepSync(ms: number): void {
  Atomics.wait(pause, 0, 0, ms);
}

/**
 * Whether a lock may be taken over (`lock_watch.ts`'s one rule): of this host
 * (or naming no holder), once untouched for 30 s — a long hold is refreshed
 * every 5 s, a short one ends in milliseconds — or when its pid is dead (a
 * lock naming this process: an earlier one's, as this process never nests
 * the lock); another host's once `watch` saw it unchanged for 30 s, or dated
 * beyond any clock skew (its holder touches it on its own clock, R139).
 * [TS-FIX] R151-1: a this-host lock was judged by its pid only, so a crashed
 * holder's lock whose pid was reused (a reboot) blocked every user for ever.
 */
function isStale(text: string, id: LockId, staleMs: number, watch?: LockWatch): boolean {
  const m = holderOf(text.trim());
  const holder = m ? { pid: Number(m[1]), host: m[2] } : {};
  return lockStale(holder, id, staleMs, { ownIsStale: true, ...(watch ? { watch } : {}) });
}

/**
 * A test seam: called at the named points of a contended wait (`read`: the
 * lock's text read; `judged`: the lock judged stale, before it is taken
 * over), where a test plays what a competing process does in between.
 */
export type FileLockStep = (at: "read" | "judged") => void;

/** One attempt: true when this process now holds the lock. */
function tryCreate(lock: string, holder: string): boolean {
  const fd = createWithText(lock, holder);
  if (fd === null) return false;
  closeSync(fd);
  return true;
}

/**
 * {@link judgeLockSync}, a path that can be no lock — a symbolic link (a
 * dangling one was waited on for the whole wait, R142-1), a directory, a
 * FIFO… — refused naming it (`not_a_lock.ts`).
 */
function judgeNamed(lock: string, stale: StaleTest, step: FileLockStep | undefined) {
  try {
    return judgeLockSync(lock, stale, step && (() => step("read")));
  } catch (e) {
    throw notALockError(lock, e) ?? e;
  }
}

/** How {@link acquireFileLockSync} waits and holds. */
export interface FileLockOptions {
  /** How long to wait for a live holder (default 60 s). */
  waitMs?: number;
  /** Test seam. */
  step?: FileLockStep;
  /**
   * A long hold (a build of seconds or minutes): the lock is touched every
   * 5 s from the refresher thread, so that no waiter, of another host
   * either, judges it stale while its holder lives.
   */
  long?: boolean;
  /**
   * Test seam: the stale age (default 30 s), of the locks this waiter judges
   * and of its own long hold (then touched every sixth of it, 5 s by default).
   */
  staleMs?: number;
}

/**
 * Takes `<file>.lock` (the file's directory must exist), waiting for a live
 * holder and taking over a stale one.
 *
 * @param file the file the lock guards
 * @param opts how to wait and hold
 * @returns the release function (idempotent), or null when a live holder
 *   kept the lock for all of `waitMs`
 * @throws ScoutError `io` when the lock cannot be made (the cause: the file system's
 *   error), or its path is no lock (a symbolic link, a directory…)
 *
 * @example
 * ```ts
 * import { acquireFileLockSync } from "./file_lock.ts";
 * const release = acquireFileLockSync("/tmp/index.idx", { long: true });
 * release?.();
 * ```
 */
export function acquireFileLockSync(
  file: string,
  opts: FileLockOptions = {},
): (() => void) | null {
  const { waitMs = WAIT_MS, step, long = false, staleMs = STALE_MS } = opts;
  const lock = `${file}.lock`;
  const holder = thisHolder();
  const deadline = Date.now() + waitMs;
  let delay = 5;
  const watch = lockWatch();
  const stale = (text: string, id: LockId) => isStale(text, id, staleMs, watch);
  while (!tryCreate(lock, holder)) {
    const judged = judgeNamed(lock, stale, step);
    if (judged?.stale) {
      step?.("judged");
      if (takeOver(lock, judged)) continue; // removed, or another's by now: try at once
    }
    if (Date.now() > deadline) return null;
    sleepSync(delay);
    delay = Math.min(delay * 2, 100);
  }
  const stopRefresh = long ? keepFresh(lock, holder, Math.min(REFRESH_MS, staleMs / 6)) : null;
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    stopRefresh?.();
    try {
      unlinkSync(lock);
    } catch { /* removed as stale by another process */ }
  };
}

/**
 * Removes `<file>.lock` when it is stale at a glance (of this host or no
 * holder: a dead holder, or untouched for 30 s; another host's dated beyond
 * any clock skew): what a killed holder left, swept by a later user of
 * the file that takes no lock. Best effort: a lock that cannot be judged or
 * removed is left.
 *
 * @param file the file the lock guards
 */
export function removeStaleLockSync(file: string): void {
  const lock = `${file}.lock`;
  try {
    const judged = judgeLockSync(lock, (text, id) => isStale(text, id, STALE_MS));
    if (judged?.stale) takeOver(lock, judged);
  } catch { /* unreadable, or a directory that refuses the takeover gate: not ours to sweep */ }
}

/**
 * Runs `fn` while holding `<file>.lock` (the file's directory must exist).
 *
 * @param file the file read and rewritten under the lock
 * @param fn the read-modify-write
 * @param waitMs how long to wait for a live holder (default 60 s)
 * @param step test seam
 * @returns what `fn` returns
 * @throws ScoutError `io` when the lock cannot be made or stays held by a live process
 *
 * @example
 * ```ts
 * import { withFileLockSync } from "./file_lock.ts";
 * withFileLockSync("/tmp/registry", () => 1); // 1
 * ```
 */
export function withFileLockSync<T>(
  file: string,
  fn: () => T,
  waitMs = WAIT_MS,
  step?: FileLockStep,
): T {
  const release = acquireFileLockSync(file, step ? { waitMs, step } : { waitMs });
  if (release === null) {
    const lock = `${file}.lock`;
    throw new ScoutError("io", `The lock "${lock}" is held by another process`, { file: lock });
  }
  try {
    return fn();
  } finally {
    release();
  }
}
