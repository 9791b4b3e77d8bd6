/**
 * Persist locks shared with Scout (`workflow.md` §3.4): a job runs inside an
 * exclusive lock file so two processes (ours or Scout's) never compute it at
 * once. Same path and content as Scout; acquired atomically with an `O_EXCL`
 * create (Scout links a temp file; both exclude each other); refreshed every 2 s
 * from a worker thread (`util/lock_refresher.ts`), so a body that blocks the
 * main thread keeps its lock (R89-1); a lock of this host older than 30 s,
 * or held by a dead pid here, is stale and removed (a waiter also takes over
 * one it saw unchanged for 30 s, whatever its date: R125-5); another host's,
 * refreshed on its own clock, only so, or once dated beyond any plausible
 * clock skew (`util/lock_watch.ts`, R139-1); waiters poll with
 * backoff, and tell a wait past {@link LONG_WAIT_MS}. A FIFO, device or socket
 * in a lock's place is never read nor waited on (R125-4). A holder removes
 * only its own lock: one another process took over is theirs.
 *
 * @module
 */
import { closeSync, fstatSync, statSync, unlinkSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { ScoutError } from "../errors.ts";
import { cannotText } from "../util/errno_text.ts";
import { unlinkQuiet } from "../util/fs.ts";
import { notALockError } from "../util/not_a_lock.ts";
import { createWithText } from "../util/exclusive_create.ts";
import { lockPathFor } from "./store.ts";
import { lockTime } from "./time.ts";
import {
  type JudgedLock,
  judgeLockSync,
  type LockId,
  type StaleTest,
  takeOver,
} from "../util/stale_takeover.ts";
import { notRegularKind, readRegularTextSync } from "../util/regular_file.ts";
import { thisHost } from "./state.ts";
import { keepFresh } from "../util/lock_refresher.ts";
import { lockStale, lockWatch } from "../util/lock_watch.ts";

const REFRESH_MS = 2_000;
const lockDirs = new Set<string>();
const STALE_MS = 30_000;

/**
 * The age (ms) past which a lock not refreshed is stale: Scout's
 * `Lockfile.max_age` (30 s), or `SCOUT_LOCK_MAX_AGE` seconds when set (a
 * test's seam: a holder blocked longer than that without it taking 30 s).
 *
 * @param env environment to read (default `process.env`)
 * @returns the stale age in ms
 */
export function lockMaxAgeMs(env: Record<string, string | undefined> = process.env): number {
  const secs = Number(env.SCOUT_LOCK_MAX_AGE);
  return env.SCOUT_LOCK_MAX_AGE !== undefined && Number.isFinite(secs) && secs > 0
    ? secs * 1000
    : STALE_MS;
}

/** How often a holder touches its lock: every 2 s, or often enough for a shorter stale age. */
function refreshMs(): number {
  return Math.min(REFRESH_MS, lockMaxAgeMs() / 3);
}

/** A held lock. Release it exactly once (sync variant for signal handlers). */
export interface HeldLock {
  /** Lock file path. */
  path: string;
  /** Stops the refresh timer and removes the lock file. */
  release(): void;
}

/** Options of {@link acquireLock}. */
export interface LockOptions {
  /** Give up after this many ms (default: wait as long as the holder lives). */
  timeoutMs?: number;
  /** Called once when the lock is busy and we start waiting. */
  onWait?: (holder: string) => void;
  /**
   * Called once when the wait has lasted {@link LONG_WAIT_MS}, with the lock
   * file and its holder's text: for one plain line on stderr, terminal or not.
   */
  onLongWait?: (lock: string, holder: string) => void;
}

/** A wait on another holder this long is told (`LockOptions.onLongWait`). */
export const LONG_WAIT_MS = 3_000;

/** Resolves after `ms` milliseconds (a lock wait's pause). */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function parseHolder(text: string): { host?: string; pid?: number } {
  const host = /^host: (.*)$/m.exec(text)?.[1];
  const pid = /^pid: (\d+)$/m.exec(text)?.[1];
  return {
    ...(host !== undefined ? { host } : {}),
    ...(pid !== undefined ? { pid: Number(pid) } : {}),
  };
}

/**
 * Whether an existing lock file is stale at a glance: of this host and older
 * than 30 s (not refreshed) or held by a dead pid; of any host, dated beyond
 * any plausible clock skew (`util/lock_watch.ts`). Another host's lock
 * otherwise needs a waiter's watch ({@link acquireLockFile}).
 *
 * @param path lock file
 * @returns true when it may be removed
 */
export function isStaleLock(path: string): boolean {
  let st;
  try {
    st = statSync(path);
  } catch {
    return false;
  }
  let text;
  try {
    text = readRegularTextSync(path); // a FIFO is never read: it could block (R125-4)
  } catch {
    return Date.now() - st.mtimeMs > lockMaxAgeMs(); // unreadable: no holder to go by
  }
  return staleHolder(text, st);
}

/**
 * Whether a lock's text is a persist lock's: Scout's and ours hold `host:`
 * and `pid:` lines (`workflow.md` §3.4); an empty one is ours being created
 * (an `O_EXCL` create, then its text), or left so by a crash in between.
 *
 * @param text the lock file's text
 * @returns true when it is a persist lock's
 */
export function persistLockText(text: string): boolean {
  if (text === "") return true;
  const { host, pid } = parseHolder(text);
  return host !== undefined && pid !== undefined;
}

/** The sweep's rule: a persist lock's text ({@link persistLockText}), and stale. */
function sweepable(text: string, id: Pick<LockId, "ino" | "mtimeMs">): boolean {
  return persistLockText(text) && staleHolder(text, id);
}

/**
 * Removes lock file `path` if it is stale ({@link isStaleLock}) and its text
 * a persist lock's ({@link persistLockText}; [TS-FIX] R125-2: a file that is
 * no lock of ours nor Scout's is never removed by a sweep): judged and taken
 * over as a waiter does (`util/stale_takeover.ts`), so a lock another
 * process took meanwhile is never the one removed.
 *
 * @param path lock file
 * @param dryRun judge only
 * @returns true when it was stale and is gone (would go, in a dry run)
 */
export function sweepStaleLock(path: string, dryRun = false): boolean {
  let judged: JudgedLock | null;
  try {
    judged = judgeLockSync(path, sweepable);
  } catch (e) {
    if (notRegularKind(e) !== null) return false; // swapped for a FIFO…: no lock (R125-4)
    throw e;
  }
  if (judged === null || !judged.stale) return false;
  return dryRun || takeOver(path, judged);
}

/**
 * The staleness rule on a lock already read, at a glance. A lock of this host
 * (or naming none) is stale once not refreshed for 30 s, or when its holder is
 * dead here, or its date is further ahead than any clock (a `touch -d`). Age wins over a live holder on this host, as in Scout
 * (`Lockfile#validlock?` judges by age only): a holder's lock goes unrefreshed
 * only when its process is frozen, and a pid seen alive may be another
 * process's after a crash (pids are reused), whose lock would then never go.
 * [TS-FIX] R139-1: another host's holder refreshes its lock on its own clock —
 * one a minute behind ours makes its live lock look a minute old, and Scout's
 * rule ran its job twice — so its age by our clock says nothing until it is
 * beyond any plausible skew (`util/lock_watch.ts`); short of that a waiter
 * watches it ({@link watchedStale}).
 */
function staleHolder(text: string, id: Pick<LockId, "ino" | "mtimeMs">): boolean {
  return lockStale(parseHolder(text), id, lockMaxAgeMs()); // the shared rule (R151-1)
}

/**
 * The staleness rule of one waiter: {@link staleHolder}, or — [TS-FIX] R125-5,
 * R139-1 — a lock this waiter has seen unchanged (same inode and modification
 * time) for the stale age. A live holder refreshes its lock every few seconds
 * whatever its clock says, so its modification time keeps changing, while a
 * dead, planted or frozen one's does not: a lock dated in the future (another
 * member's `touch -d`, or a node whose clock is ahead) has a negative age, and
 * Scout's `Lockfile` waits on it for ever; another host's lock, dated by its
 * clock, is judged so whatever its date. Judged by what the waiter saw, on its
 * own clock; the sweep, which looks once, leaves such a lock unless its date
 * is beyond any plausible skew.
 *
 * @returns the waiter's rule (it remembers the lock it last saw)
 */
export function watchedStale(): StaleTest {
  const watch = lockWatch();
  return (text, id) => lockStale(parseHolder(text), id, lockMaxAgeMs(), { watch });
}

/**
 * A waiter's judgement of lock `path` ({@link judgeLockSync}). [TS-FIX]
 * R125-4: a FIFO, device or socket in the lock's place (another member's
 * `mkfifo`) is never read — reading a FIFO blocks for ever — and is no lock
 * whose holder could be waited for or judged stale: refused at once, naming
 * it, and left where it is (not ours to remove). So is a symbolic link or a
 * directory there (R142: a dangling link was waited on for ever, a directory
 * failed naming no file; `util/not_a_lock.ts`).
 *
 * @throws ScoutError `io` naming the lock file
 */
export function judgePersist(path: string, isStale: StaleTest): JudgedLock | null {
  try {
    return judgeLockSync(path, isStale);
  } catch (e) {
    throw notALockError(path, e) ?? e;
  }
}

/**
 * Creates the lock file with our content, exclusively (`O_EXCL`: atomic on
 * local filesystems; the spec allows it next to Scout's `link()`).
 *
 * @returns the created file's inode, or null when another holds the lock
 */
function tryCreate(path: string, content: string): number | null {
  // the lock directory may have been removed meanwhile: made again
  const fd = createWithText(path, content, true);
  if (fd === null) return null;
  try {
    return fstatSync(fd).ino;
  } catch (e) {
    unlinkQuiet(path);
    throw new ScoutError("io", cannotText("write the lock", path, e), { file: path, cause: e });
  } finally {
    closeSync(fd);
  }
}

/** Whether lock file `path` is still the one we created: same inode, our text. */
function stillOurs(path: string, content: string, ino: number): boolean {
  try {
    return statSync(path).ino === ino && readRegularTextSync(path) === content;
  } catch {
    return false; // gone
  }
}

/**
 * Acquires the persist lock of a job, waiting while another live process holds it.
 *
 * @param jobPath absolute result path
 * @param lockDir lock directory (`$SCOUT_HOME/tmp/persist_locks`)
 * @param opts timeout and a wait callback
 * @returns the held lock
 * @throws ScoutError `lock_timeout`
 */
export async function acquireLock(
  jobPath: string,
  lockDir: string,
  opts: LockOptions = {},
): Promise<HeldLock> {
  if (!lockDirs.has(lockDir)) {
    await mkdir(lockDir, { recursive: true });
    lockDirs.add(lockDir);
  }
  return await acquireLockFile(lockPathFor(jobPath, lockDir), opts);
}

/**
 * What a wait on lock `path` tells, once each: that it waits (`onWait`), and
 * that it still does after {@link LONG_WAIT_MS} (`onLongWait`), naming the
 * holder the lock file names.
 *
 * @param path the lock file waited on
 * @param opts the wait's callbacks
 * @param started when the wait began (ms)
 * @returns called with the lock as judged at each turn of the wait
 */
export function waitTeller(
  path: string,
  opts: Pick<LockOptions, "onWait" | "onLongWait">,
  started: number,
): (judged: JudgedLock) => void {
  let told = 0; // 1: the wait told; 2: the long wait too
  return (judged) => {
    const holder = judged.text.replaceAll("\n", " ").trim();
    if (told === 0) {
      told = 1;
      opts.onWait?.(holder);
    }
    if (told === 1 && Date.now() - started >= LONG_WAIT_MS) {
      told = 2;
      opts.onLongWait?.(path, holder);
    }
  };
}

/**
 * Acquires the lock file `path` (its directory must exist) with the persist
 * lock's rules: `O_EXCL` create, Scout's holder lines, refreshed every 2 s, a
 * stale one (dead holder here, or not refreshed for 30 s) taken over.
 *
 * @param path the lock file
 * @param opts timeout and a wait callback
 * @returns the held lock
 * @throws ScoutError `lock_timeout`
 */
export async function acquireLockFile(path: string, opts: LockOptions = {}): Promise<HeldLock> {
  const content =
    `host: ${thisHost()}\npid: ${process.pid}\nppid: ${process.ppid}\ntime: ${lockTime()}\n`;
  const started = Date.now();
  const isStale = watchedStale();
  const tell = waitTeller(path, opts, started);
  let delay = 5;
  let ino: number | null;
  while ((ino = tryCreate(path, content)) === null) {
    // only the lock judged stale is removed, one taker at a time: two waiters
    // on a dead holder's lock never both remove one (util/stale_takeover.ts)
    const judged = judgePersist(path, isStale);
    if (judged === null || (judged.stale && takeOver(path, judged))) continue;
    tell(judged);
    if (opts.timeoutMs !== undefined && Date.now() - started > opts.timeoutMs) {
      throw new ScoutError("lock_timeout", `Timed out waiting for lock "${path}"`, { file: path });
    }
    await sleep(delay);
    delay = Math.min(250, Math.ceil(delay * 1.5));
  }
  return heldLock(path, content, ino);
}

/**
 * Takes lock file `path` (its directory must exist) without the event loop,
 * for a signal path about to exit: a stale lock is taken over, and one this
 * very process holds (an asynchronous save the signal cut short, which will
 * never finish) is taken as it is; one another live process holds is waited
 * for up to `waitMs` (the thread sleeps), then given up. Not refreshed: for
 * a write of milliseconds.
 *
 * @param path the lock file
 * @param waitMs how long another holder is waited for
 * @returns the held lock, or null when another process still holds it
 */
export function takeLockFileSync(path: string, waitMs: number): HeldLock | null {
  const content =
    `host: ${thisHost()}\npid: ${process.pid}\nppid: ${process.ppid}\ntime: ${lockTime()}\n`;
  const until = Date.now() + waitMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const isStale = watchedStale();
  while (tryCreate(path, content) === null) {
    const judged = judgePersist(path, isStale);
    if (judged === null || (judged.stale && takeOver(path, judged))) continue;
    if (heldHere(path)) break;
    if (Date.now() >= until) return null;
    Atomics.wait(pause, 0, 0, 20);
  }
  return { path, release: () => unlinkQuiet(path) };
}

/** Whether lock file `path` names this process as its holder. */
function heldHere(path: string): boolean {
  try {
    const { host, pid } = parseHolder(readRegularTextSync(path));
    return host === thisHost() && pid === process.pid;
  } catch {
    return false;
  }
}

/** The lock we created at `path` (inode `ino`), refreshed from another thread until released. */
function heldLock(path: string, content: string, ino: number): HeldLock {
  // a worker thread touches it: a body blocking this thread must not let it go stale (R89-1)
  const stopRefresh = keepFresh(path, content, refreshMs());
  let released = false;
  return {
    path,
    release() {
      if (released) return;
      released = true;
      stopRefresh();
      // a lock another process took over (ours went stale) is theirs to remove (R89-1)
      if (!stillOurs(path, content, ino)) return;
      try {
        unlinkSync(path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      }
    },
  };
}
