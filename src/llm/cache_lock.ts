/**
 * The inference cache's per-key lock and entry files (`inference.md` §6):
 * identical concurrent rounds run once — in this process through a map of
 * running keys, across processes through `<dir>/<key>.lock`, whose text is
 * its holder, `<pid>@<host>`. The lock is a hard link to this process's holder
 * file (`cache_holder.ts`); the store writes the entry to a temp file, renames
 * it to `<key>.json` (the atomic publish) and removes the lock. On a file
 * system without hard links the lock is created exclusively instead, holding
 * the holder's text, and the entry is written over it and renamed into place.
 * A store under the lock is written behind: queued for the next turn of the
 * event loop (or the process's exit), so a reply's caller goes on — sends its
 * next request — first; the key stays locked, in this process and across
 * processes, until the entry is published (`write_behind.ts`:
 * `settleCacheWrites` awaits every queued store). A stale lock — its holder a
 * dead process on this host, or without a heartbeat for 5 min (any host:
 * `cache_heartbeat.ts`; another host's as seen by the waiter, R139-2), or its text no holder and untouched for 5 s (a crash
 * mid-store) — is taken over: only the lock judged stale, one taker at a time
 * (`cache_stale.ts`). A long wait on a live holder is told to the user (the
 * caller's `warn`), and so is one given up.
 *
 * @module
 */
import { closeSync, fstatSync, lstatSync } from "node:fs";
import process from "node:process";
import { join } from "node:path";
import { ScoutError } from "../errors.ts";
import { errnoReason } from "../util/errno_text.ts";
import { unlinkQuiet } from "../util/fs.ts";
import { refusedByFileSystem } from "../util/fs_refused.ts";
import {
  ensureCacheDir,
  publish,
  publishOverLock,
  tempFile,
  tmpPath,
  writeEntryFile,
  writeEntrySync,
} from "./cache_files.ts";
import { holdsLink } from "./cache_holder.ts";
import { beatFd, heartbeatLapsed } from "./cache_heartbeat.ts";
import { acquire, type Held } from "./cache_acquire.ts";
import { type Job, later } from "./write_behind.ts";

export { acquire, createLockFile, type Held, type WaitOptions } from "./cache_acquire.ts";

const inProcess = new Map<string, Promise<void>>();

/**
 * Locks held by rounds that have stored nothing yet, each with what it does
 * at the process's exit (`process.exit`: a closed stdout, a library caller):
 * a round whose answer is in ({@link Keep}) stores it, as the stores it had
 * queued are published; a round still out releases the lock and the entry
 * file opened early (R161-1), its answer never whole.
 */
const abandonAtExit = new Set<() => void>();
let releaseAtExit = false;

function onExitRelease(abandon: () => void): void {
  abandonAtExit.add(abandon);
  if (releaseAtExit) return;
  releaseAtExit = true;
  process.on("exit", () => {
    for (const release of abandonAtExit) {
      try {
        release();
      } catch { /* exiting: what cannot be removed is a dead holder's, swept later */ }
    }
    abandonAtExit.clear();
  });
}

type Commit = (text: string) => Promise<void>;

/**
 * Names the entry a round will commit, once its answer is in (paid for) but
 * the round is not over: should the process exit before the commit, the exit
 * stores it rather than throw the answer away. A later call replaces it. The
 * text is made only at that exit: a round that commits (nearly every one)
 * serialises its entry once, at the commit.
 */
export type Keep = (text: () => string) => void;

/**
 * Whether a linked lock's entry file is opened in the background while the
 * round's request is out. Under Deno the open runs off the main thread, which
 * also drives the HTTP client: the file's creation leaves the round's path.
 * Under Bun, whose HTTP client has a thread of its own, the main thread idles
 * while a request is out, and the store written behind creates the file then
 * for less than the background open's dispatch costs (design-notes, "Inference
 * cache cost on the agents bench", fifth pass).
 */
const OPEN_EARLY = typeof process.versions.bun !== "string";

/** Removes a linked lock and frees the key in this process. */
function unlinkLock(lock: string, freed: () => void, ours: () => boolean): void {
  try {
    // a holder silent for minutes may have lost its lock: never remove the new holder's
    if (!heartbeatLapsed() || ours()) unlinkQuiet(lock);
  } finally {
    freed();
  }
}

/** Whether a created lock file is still the one held open (same inode), else another's. */
function heldIsLock(fd: number, lock: string): boolean {
  try {
    const [a, b] = [fstatSync(fd), lstatSync(lock)];
    return a.ino === b.ino && a.dev === b.dev;
  } catch {
    return false;
  }
}

/**
 * Runs `fn` under a held lock: its first commit queues `how.store(text)`
 * behind (which publishes the entry and releases the lock), a later one writes
 * directly; `how.end(committed)` runs once `fn` has (releasing the lock if
 * nothing was committed). At the process's exit before a commit, what `fn`
 * kept is stored (by the same store), else the lock is released.
 */
async function underLock<T>(
  dir: string,
  key: string,
  fn: (commit: Commit, keep: Keep) => Promise<T>,
  how: {
    store: (text: string) => Job;
    end: (committed: boolean) => Promise<void> | void;
    /** Releases the lock at once, nothing stored (the process exits). */
    abandon: () => void;
    /** What a store needs first (the entry's file being opened early). */
    after?: Promise<unknown>;
  },
): Promise<T> {
  let committed = false;
  let kept: (() => string) | null = null;
  const abandon = () => {
    if (committed) return;
    if (kept === null) return how.abandon();
    committed = true;
    how.store(kept())(true);
  };
  onExitRelease(abandon);
  const commit = (text: string): Promise<void> => {
    if (committed) return writeEntryFile(dir, key, text);
    committed = true;
    abandonAtExit.delete(abandon); // queued: the exit publishes it
    return later(how.store(text), how.after);
  };
  try {
    return await fn(commit, (text) => void (kept = text));
  } finally {
    try {
      await how.end(committed);
    } finally {
      abandonAtExit.delete(abandon);
    }
  }
}

/**
 * Runs `fn` under a linked lock; its first commit is written behind (through
 * a temp file, opened early where {@link OPEN_EARLY}), then the lock removed.
 */
function underLink<T>(
  dir: string,
  key: string,
  lock: string,
  fn: (commit: Commit, keep: Keep) => Promise<T>,
  freed: () => void,
): Promise<T> {
  const early = OPEN_EARLY ? tempFile(tmpPath(dir, key)) : null;
  const ours = () => holdsLink(dir, lock);
  const release = () => {
    early?.drop();
    unlinkLock(lock, freed, ours);
  };
  return underLock(dir, key, fn, {
    abandon: release,
    // a store waits for its file's open; at the process's exit it writes its own if still opening
    after: early?.settled,
    store: (text) => () => {
      try {
        const fd = early?.take() ?? null;
        if (fd !== null) publish(fd, early!.path, dir, key, text);
        else {
          early?.drop();
          writeEntrySync(dir, key, text);
        }
      } finally {
        unlinkLock(lock, freed, ours); // published (or failed): release
      }
    },
    end: async (committed) => {
      // the file's open has ended once the round returns (long since, after a
      // request): a store still queued at the process's exit then finds it, and
      // no open can create the file after the exit's store made its own
      if (early) await early.settled;
      if (!committed) release();
    },
  });
}

/** Runs `fn` under a created lock file: the entry is written over it (behind) and renamed into place. */
function underFile<T>(
  dir: string,
  key: string,
  lock: string,
  held: number,
  fn: (commit: Commit, keep: Keep) => Promise<T>,
  freed: () => void,
): Promise<T> {
  const release = () => {
    beatFd(held, false);
    const ours = !heartbeatLapsed() || heldIsLock(held, lock);
    closeSync(held);
    unlinkLock(lock, freed, () => ours);
  };
  return underLock(dir, key, fn, {
    abandon: release,
    store: (text) => () => {
      try {
        beatFd(held, false);
        // taken over while silent: the path is another's lock now; write it through a temp file
        if (heartbeatLapsed() && !heldIsLock(held, lock)) {
          closeSync(held);
          writeEntrySync(dir, key, text);
        } else publishOverLock(held, lock, dir, key, text);
      } finally {
        freed();
      }
    },
    end: (committed) => {
      if (!committed) release();
    },
  });
}

/**
 * A failure to make the cache directory or take a lock in it, as
 * `cache_unavailable` when the file system refuses the directory (read-only,
 * no permission, full): the ask can go on without the cache.
 */
function unusable(dir: string, e: unknown): unknown {
  const errno = refusedByFileSystem(e);
  if (errno === null) return e;
  return new ScoutError(
    "cache_unavailable",
    `The inference cache at "${dir}" cannot store answers: ${errnoReason(errno)}`,
    { file: dir, cause: e },
  );
}

/** How {@link withKeyLock} waits for another process. */
export interface KeyLockOptions {
  /** How long to wait for a live holder before running unlocked (default 10 min). */
  waitMs?: number;
  /** Tells the user of a long wait (once) and of one given up. */
  warn?: (message: string) => void;
  /** How long a wait is before it is told (default 3 s). */
  warnAfterMs?: number;
  /** Ends a wait on another process (the ask's signal), throwing its reason. */
  signal?: AbortSignal | undefined;
}

/** Runs `fn` holding the file lock (or unlocked after `waitMs`), then releases it. */
async function holding<T>(
  dir: string,
  key: string,
  fn: (commit: Commit, keep: Keep) => Promise<T>,
  opts: KeyLockOptions,
  freed: () => void,
): Promise<T> {
  const lock = join(dir, `${key}.lock`);
  let held: Held | null;
  try {
    await ensureCacheDir(dir);
    held = await acquire(dir, lock, {
      waitMs: opts.waitMs ?? 600_000,
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      warn: opts.warn,
      warnAfterMs: opts.warnAfterMs,
      signal: opts.signal,
    });
  } catch (e) {
    freed();
    throw unusable(dir, e);
  }
  if (held === null) {
    try {
      // unlocked, nothing is written behind: a commit is written before the round goes on
      return await fn((text) => writeEntryFile(dir, key, text), () => {});
    } finally {
      freed();
    }
  }
  if (held.fd === null) return await underLink(dir, key, lock, fn, freed);
  beatFd(held.fd, true); // a created lock has a heartbeat of its own
  return await underFile(dir, key, lock, held.fd, fn, freed);
}

/**
 * Runs `fn` holding the lock of `key`: concurrent identical rounds in this
 * process share one run; other processes wait on the lock file (a stale lock
 * is taken over; after `waitMs` the work runs unlocked). `fn`'s `commit`
 * stores the key's entry atomically — through the lock file when held, and
 * then written behind: its promise settles once the entry is published, and
 * the key stays locked until then, whether or not `fn` waited for it. `fn`'s
 * `keep` names the entry before its commit ({@link Keep}): the process's exit
 * in between stores it.
 *
 * @param dir cache directory
 * @param key cache key
 * @param fn the work (typically: re-check the cache, ask, commit)
 * @param opts how long to wait for another process, and how to tell the user of a long wait
 * @returns what `fn` returned
 */
export async function withKeyLock<T>(
  dir: string,
  key: string,
  fn: (commit: (text: string) => Promise<void>, keep: Keep) => Promise<T>,
  opts: KeyLockOptions = {},
): Promise<T> {
  const running = inProcess.get(key);
  if (running) {
    await running;
    return withKeyLock(dir, key, fn, opts);
  }
  // the key is this process's until its lock is released: after the store, when written behind
  let free!: () => void;
  const freedAt = new Promise<void>((resolve) => (free = resolve));
  inProcess.set(key, freedAt);
  let held = true;
  const freed = () => {
    if (!held) return;
    held = false;
    if (inProcess.get(key) === freedAt) inProcess.delete(key);
    free();
  };
  return await holding(dir, key, fn, opts, freed);
}
