/**
 * The inference cache's entry files (`inference.md` §6): `<dir>/<key>.json`,
 * written whole to a temp file and renamed into place (atomic, not flushed: an
 * entry lost or torn by a crash reads as a miss), or written over the key's
 * created lock file and renamed (file systems without hard links); the
 * directory made once per process. The locking around them: `cache_lock.ts`.
 *
 * @module
 */
import { closeSync, ftruncateSync, open, openSync, renameSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { unlinkQuiet, writeAllSync } from "../util/fs.ts";
import { holderText, noteOpening } from "./cache_holder.ts";

/** Cache directories created by this process (made once, not per inference). */
const madeDirs = new Set<string>();
/** Cache directories this process found absent and made (their index is whole: `cache_index.ts`). */
const createdDirs = new Set<string>();
const utf8 = new TextEncoder();
let tmpSeq = 0;

/**
 * Makes a cache directory once per process.
 *
 * @param dir the directory
 */
export async function ensureCacheDir(dir: string): Promise<void> {
  if (madeDirs.has(dir)) return;
  if (await mkdir(dir, { recursive: true }) !== undefined) createdDirs.add(dir);
  madeDirs.add(dir);
}

/**
 * Whether this process made cache directory `dir` (it was absent):
 * every entry in it was then written since.
 *
 * @param dir the directory
 * @returns true when {@link ensureCacheDir} made it
 */
export function cacheDirMadeHere(dir: string): boolean {
  return createdDirs.has(dir);
}

/**
 * A fresh temp file name for `<key>.json` (this process's, never reused):
 * `<key>.json.tmp-<pid>@<host>-<n>`, named by its holder so that a dead
 * process's are swept with its holder file (`cache_holder.ts`) — by host too,
 * as a shared cache's hosts reuse each other's pids.
 *
 * @param dir cache directory
 * @param key cache key
 * @returns the path
 */
export function tmpPath(dir: string, key: string): string {
  return join(dir, `${key}.json.tmp-${holderText()}-${++tmpSeq}`);
}

/**
 * Writes the entry into the open temp file `fd` and renames it to
 * `<key>.json`; closes `fd` (the temp file removed on a failure).
 *
 * @param fd the temp file, open for writing
 * @param tmp its path
 * @param dir cache directory
 * @param key cache key
 * @param text the entry's text
 */
export function publish(fd: number, tmp: string, dir: string, key: string, text: string): void {
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
  writeEntrySync(dir, key, text);
}

/**
 * {@link writeEntryFile} in a directory made already.
 *
 * @param dir cache directory
 * @param key cache key
 * @param text the entry's text
 */
export function writeEntrySync(dir: string, key: string, text: string): void {
  const tmp = tmpPath(dir, key);
  let fd: number;
  try {
    fd = openSync(tmp, "w");
  } catch (e) {
    madeDirs.delete(dir); // made again next time, should it have gone away
    throw e;
  }
  publish(fd, tmp, dir, key, text);
}

/** A temp file opened in the background ({@link tempFile}). */
export interface TempFile {
  /** Its path. */
  path: string;
  /** Settles when the open has ended. */
  settled: Promise<void>;
  /** The descriptor, once: null while opening or when the open failed. */
  take(): number | null;
  /** Closes and removes it — now, or once open; if still opening, its path is removed now too. */
  drop(): void;
}

/**
 * Opens a temp file in the background (off the main thread where the runtime
 * does file work on a pool).
 *
 * @param path the temp file's path
 * @returns the file's handle
 */
export function tempFile(path: string): TempFile {
  let fd: number | null = null;
  let wanted = true;
  let done = false;
  let settle!: () => void;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  const ended = noteOpening(path); // still opening at the exit: left to the next process's sweep
  open(path, "w", (e, opened) => {
    done = true;
    ended();
    settle();
    if (e) return;
    if (wanted) fd = opened;
    else {
      closeSync(opened);
      unlinkQuiet(path);
    }
  });
  const take = (): number | null => {
    wanted = false;
    const got = fd;
    fd = null;
    return got;
  };
  return {
    path,
    settled,
    take,
    drop: () => {
      const got = take();
      if (got !== null) closeSync(got);
      // made but not yet reported (the process exits before its callback), or done
      if (got !== null || !done) unlinkQuiet(path);
    },
  };
}

/**
 * Writes `text` over the created lock file `fd`, closes it and renames the
 * lock to the entry (publish and release in one); the lock removed on a
 * failure.
 *
 * @param fd the lock file, open for writing
 * @param lock its path
 * @param dir cache directory
 * @param key cache key
 * @param text the entry's text
 */
export function publishOverLock(
  fd: number,
  lock: string,
  dir: string,
  key: string,
  text: string,
): void {
  try {
    try {
      // over the holder, cut only if the holder was longer: a truncation to
      // 0 makes ext4 flush the file on close (auto_da_alloc), ~0.1 ms a store
      const n = writeAllSync(fd, text);
      if (n < utf8.encode(holderText()).length) ftruncateSync(fd, n);
    } finally {
      closeSync(fd);
    }
    renameSync(lock, join(dir, `${key}.json`)); // publishes the entry, releases the lock
  } catch (e) {
    madeDirs.delete(dir); // made again next time, should it have gone away
    unlinkQuiet(lock);
    throw e;
  }
}
