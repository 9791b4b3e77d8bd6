/**
 * The inference cache's per-key lock and entry files (`inference.md` §6):
 * identical concurrent rounds run once — in this process through a map of
 * running keys, across processes through `<dir>/<key>.lock`, whose text is
 * its holder, `<pid>@<host>`. The lock is a hard link to this process's holder
 * file (`cache_holder.ts`); while the round's request is in flight the entry's
 * temp file is created in the background, so no file is created on the round's
 * path; the store writes the entry there, renames it to `<key>.json` (the
 * atomic publish) and removes the lock. On a file system without hard links
 * the lock is created exclusively instead, holding the holder's text, and the
 * entry is written over it and renamed into place. A lock whose holder is a
 * dead process on this host (or this process, which never waits on a key it
 * holds: a lock naming it is an earlier process's with the same pid), or whose
 * text is no holder and that has not been written to for 5 s (a crash
 * mid-store), is taken over.
 *
 * @module
 */
import { closeSync, ftruncateSync, open, openSync, renameSync } from "node:fs";
import { mkdir, readFile, stat } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { ScoutError } from "../errors.ts";
import { writeAllSync } from "../util/fs.ts";
import { alive, holderText, linkLock, unlinkQuiet } from "./cache_holder.ts";

/** Cache directories created by this process (made once, not per inference). */
const madeDirs = new Set<string>();
const inProcess = new Map<string, Promise<unknown>>();
const utf8 = new TextEncoder();
let tmpSeq = 0;

/**
 * Makes a cache directory once per process.
 *
 * @param dir the directory
 */
export async function ensureCacheDir(dir: string): Promise<void> {
  if (madeDirs.has(dir)) return;
  await mkdir(dir, { recursive: true });
  madeDirs.add(dir);
}

function tmpPath(dir: string, key: string): string {
  return join(dir, `${key}.json.tmp-${process.pid}-${++tmpSeq}`);
}

/** Writes the entry into the open temp file `fd` and renames it to `<key>.json`; closes `fd`. */
function publish(fd: number, tmp: string, dir: string, key: string, text: string): void {
  try {
    try {
      writeAllSync(fd, text);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, join(dir, `${key}.json`));
  } catch (e) {
    try {
      unlinkQuiet(tmp);
    } catch { /* the write's error is the one to report */ }
    madeDirs.delete(dir); // made again next time, should it have gone away
    throw e;
  }
}

/**
 * Writes `<dir>/<key>.json` atomically through a temp file (temp + rename, not
 * flushed: an entry lost or torn by a crash reads as a miss). For a store
 * without the key's lock.
 *
 * @param dir cache directory
 * @param key cache key
 * @param text the entry's text
 */
export async function writeEntryFile(dir: string, key: string, text: string): Promise<void> {
  await ensureCacheDir(dir);
  const tmp = tmpPath(dir, key);
  publish(openSync(tmp, "w"), tmp, dir, key, text);
}

/** Whether a lock file another holder left may be taken over. */
async function isStale(file: string): Promise<boolean> {
  const holder = await readFile(file, "utf8").catch(() => null);
  if (holder === null) return false; // gone already: just try again
  const m = /^(\d+)@(.+)$/.exec(holder);
  if (m) {
    // this process never waits on a key it holds (the in-process map): a lock
    // naming it is a leftover of an earlier process that had its pid
    const pid = Number(m[1]);
    return m[2] === hostname() && (pid === process.pid || !alive(pid));
  }
  // no holder (being created, being stored, or a crash in between): stale once untouched for 5 s
  const age = await stat(file).then((s) => Date.now() - s.mtimeMs).catch(() => 0);
  return age > 5_000;
}

/** Creates the lock file exclusively with its holder; the open descriptor, or null when held. */
async function tryCreate(file: string): Promise<number | null> {
  let fd: number;
  try {
    fd = openSync(file, "wx");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return null;
    if (code === "ENOENT") {
      // the directory went away since this process made it
      await mkdir(dirname(file), { recursive: true });
      return await tryCreate(file);
    }
    throw new ScoutError("io", `Cannot create cache lock "${file}": ${(e as Error).message}`, {
      file,
      cause: e,
    });
  }
  try {
    writeAllSync(fd, holderText());
  } catch (e) {
    closeSync(fd);
    unlinkQuiet(file);
    throw e;
  }
  return fd;
}

/** A held lock: a link to the holder file, or (no hard links) a created file kept open. */
type Held = { fd: null } | { fd: number };

/** One attempt at the lock: held, or null when another holds it. */
async function tryLock(dir: string, file: string): Promise<Held | null> {
  const linked = linkLock(dir, file);
  if (linked === true) return { fd: null };
  if (linked === false) return null;
  const fd = await tryCreate(file);
  return fd === null ? null : { fd };
}

async function acquire(
  dir: string,
  file: string,
  opts: { waitMs: number; sleep: (ms: number) => Promise<void> },
): Promise<Held | null> {
  const deadline = Date.now() + opts.waitMs;
  for (;;) {
    const held = await tryLock(dir, file);
    if (held !== null) return held;
    if (await isStale(file)) {
      unlinkQuiet(file);
      continue;
    }
    if (Date.now() > deadline) return null;
    await opts.sleep(50);
  }
}

/** Opens a temp file in the background (the I/O pool); null when that failed. */
function openLater(tmp: string): Promise<number | null> {
  return new Promise((resolve) => open(tmp, "w", (e, fd) => resolve(e ? null : fd)));
}

type Commit = (text: string) => Promise<void>;

/** Runs `fn` under a linked lock: the entry's temp file is made while `fn` runs. */
async function underLink<T>(
  dir: string,
  key: string,
  lock: string,
  fn: (commit: Commit) => Promise<T>,
): Promise<T> {
  const tmp = tmpPath(dir, key);
  let pending: Promise<number | null> | null = openLater(tmp);
  let committed = false;
  const commit = async (text: string): Promise<void> => {
    if (committed || pending === null) return await writeEntryFile(dir, key, text);
    const fd = await pending;
    pending = null;
    if (fd === null) await writeEntryFile(dir, key, text);
    else publish(fd, tmp, dir, key, text);
    committed = true;
    unlinkQuiet(lock); // published: release
  };
  try {
    return await fn(commit);
  } finally {
    if (pending !== null) {
      const fd = await pending;
      if (fd !== null) {
        closeSync(fd);
        unlinkQuiet(tmp);
      }
    }
    if (!committed) unlinkQuiet(lock);
  }
}

/** Runs `fn` under a created lock file: the entry is written over it and renamed into place. */
async function underFile<T>(
  dir: string,
  key: string,
  lock: string,
  held: number,
  fn: (commit: Commit) => Promise<T>,
): Promise<T> {
  let fd: number | null = held;
  let committed = false;
  const commit = async (text: string): Promise<void> => {
    if (fd === null || committed) return await writeEntryFile(dir, key, text);
    try {
      try {
        // over the holder, cut only if the holder was longer: a truncation to
        // 0 makes ext4 flush the file on close (auto_da_alloc), ~0.1 ms a store
        const n = writeAllSync(fd, text);
        if (n < utf8.encode(holderText()).length) ftruncateSync(fd, n);
      } finally {
        closeSync(fd);
        fd = null;
      }
      renameSync(lock, join(dir, `${key}.json`)); // publishes the entry, releases the lock
      committed = true;
    } catch (e) {
      madeDirs.delete(dir); // made again next time, should it have gone away
      throw e;
    }
  };
  try {
    return await fn(commit);
  } finally {
    if (fd !== null) closeSync(fd);
    if (!committed) unlinkQuiet(lock);
  }
}

/** Runs `fn` holding the file lock (or unlocked after `waitMs`), then releases it. */
async function holding<T>(
  dir: string,
  key: string,
  fn: (commit: Commit) => Promise<T>,
  waitMs: number,
): Promise<T> {
  await ensureCacheDir(dir);
  const lock = join(dir, `${key}.lock`);
  const held = await acquire(dir, lock, {
    waitMs,
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  });
  if (held === null) return await fn((text) => writeEntryFile(dir, key, text));
  if (held.fd === null) return await underLink(dir, key, lock, fn);
  return await underFile(dir, key, lock, held.fd, fn);
}
/**
 * Runs `fn` holding the lock of `key`: concurrent identical rounds in this
 * process share one run; other processes wait on the lock file (a stale lock
 * is taken over; after `waitMs` the work runs unlocked). `fn`'s `commit`
 * stores the key's entry atomically — through the lock file when held.
 *
 * @param dir cache directory
 * @param key cache key
 * @param fn the work (typically: re-check the cache, ask, commit)
 * @param opts how long to wait for another process
 * @returns what `fn` returned
 */
export async function withKeyLock<T>(
  dir: string,
  key: string,
  fn: (commit: (text: string) => Promise<void>) => Promise<T>,
  opts: { waitMs?: number } = {},
): Promise<T> {
  const running = inProcess.get(key);
  if (running) {
    await running.catch(() => {});
    return withKeyLock(dir, key, fn, opts);
  }
  const work = holding(dir, key, fn, opts.waitMs ?? 600_000);
  inProcess.set(key, work);
  try {
    return await work;
  } finally {
    if (inProcess.get(key) === work) inProcess.delete(key);
  }
}
