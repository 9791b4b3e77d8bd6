/**
 * The inference cache's per-key lock and entry files (`inference.md` §6):
 * identical concurrent rounds run once — in this process through a map of
 * running keys, across processes through `<dir>/<key>.lock`, created
 * exclusively and holding `<pid>@<host>`. The holder stores the entry by
 * writing it into its lock file and renaming that to `<key>.json`: one file
 * created per stored entry (not a lock plus a temp file), and the rename is
 * both the atomic publish and the release. A lock whose holder is a dead
 * process on this host, or whose content is no holder and that has not been
 * written to for 5 s (a crash mid-store), is taken over.
 *
 * @module
 */
import { closeSync, ftruncateSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { mkdir, readFile, stat } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { ScoutError } from "../errors.ts";

/** Cache directories created by this process (made once, not per inference). */
const madeDirs = new Set<string>();
const inProcess = new Map<string, Promise<unknown>>();
const utf8 = new TextEncoder();
let tmpSeq = 0;
let me: string | undefined;

/** What a lock file of this process holds: `<pid>@<host>`. */
function holder(): string {
  return me ??= `${process.pid}@${hostname()}`;
}

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

/** Removes a file; one already gone is no error (`rmSync` with `force` stats it twice first). */
function unlinkQuiet(file: string): void {
  try {
    unlinkSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
}

/** Writes `text` from the file's start; the number of bytes written. */
function writeAll(fd: number, text: string): number {
  const buf = utf8.encode(text);
  for (let at = 0; at < buf.length;) at += writeSync(fd, buf, at, buf.length - at, at);
  return buf.length;
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
  const path = join(dir, `${key}.json`);
  const tmp = `${path}.tmp-${process.pid}-${++tmpSeq}`;
  try {
    await ensureCacheDir(dir);
    const fd = openSync(tmp, "w");
    try {
      writeAll(fd, text);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    try {
      unlinkQuiet(tmp);
    } catch { /* the write's error is the one to report */ }
    madeDirs.delete(dir); // made again next time, should it have gone away
    throw e;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether a lock file another holder left may be taken over. */
async function isStale(file: string): Promise<boolean> {
  const holder = await readFile(file, "utf8").catch(() => null);
  if (holder === null) return false; // gone already: just try again
  const m = /^(\d+)@(.+)$/.exec(holder);
  if (m) return m[2] === hostname() && !alive(Number(m[1]));
  // no holder (being created, being stored, or a crash in between): stale once untouched for 5 s
  const age = await stat(file).then((s) => Date.now() - s.mtimeMs).catch(() => 0);
  return age > 5_000;
}

/** Creates the lock file exclusively with its holder; the open descriptor, or null when held. */
async function tryCreate(file: string, me: string): Promise<number | null> {
  let fd: number;
  try {
    fd = openSync(file, "wx");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return null;
    if (code === "ENOENT") {
      // the directory went away since this process made it
      await mkdir(dirname(file), { recursive: true });
      return await tryCreate(file, me);
    }
    throw new ScoutError("io", `Cannot create cache lock "${file}": ${(e as Error).message}`, {
      file,
      cause: e,
    });
  }
  try {
    writeAll(fd, me);
  } catch (e) {
    closeSync(fd);
    unlinkQuiet(file);
    throw e;
  }
  return fd;
}

async function acquire(
  file: string,
  opts: { waitMs: number; sleep: (ms: number) => Promise<void> },
): Promise<number | null> {
  const me = holder();
  const deadline = Date.now() + opts.waitMs;
  for (;;) {
    const fd = await tryCreate(file, me);
    if (fd !== null) return fd;
    if (await isStale(file)) {
      unlinkQuiet(file);
      continue;
    }
    if (Date.now() > deadline) return null;
    await opts.sleep(50);
  }
}

/** Runs `fn` holding the file lock (or unlocked after `waitMs`), then releases it. */
async function holding<T>(
  dir: string,
  key: string,
  fn: (commit: (text: string) => Promise<void>) => Promise<T>,
  waitMs: number,
): Promise<T> {
  await ensureCacheDir(dir);
  const file = join(dir, `${key}.lock`);
  let fd = await acquire(file, {
    waitMs,
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  });
  let committed = false;
  const commit = async (text: string): Promise<void> => {
    if (fd === null || committed) return await writeEntryFile(dir, key, text);
    try {
      try {
        // over the holder, cut only if the holder was longer: a truncation to
        // 0 makes ext4 flush the file on close (auto_da_alloc), ~0.1 ms a store
        const n = writeAll(fd, text);
        if (n < utf8.encode(holder()).length) ftruncateSync(fd, n);
      } finally {
        closeSync(fd);
        fd = null;
      }
      renameSync(file, join(dir, `${key}.json`)); // publishes the entry, releases the lock
      committed = true;
    } catch (e) {
      madeDirs.delete(dir); // made again next time, should it have gone away
      throw e;
    }
  };
  const held = fd !== null;
  try {
    return await fn(commit);
  } finally {
    if (fd !== null) closeSync(fd);
    if (held && !committed) unlinkQuiet(file);
  }
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
