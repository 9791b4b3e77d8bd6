/**
 * Taking an inference cache key's lock (`cache_lock.ts`): one attempt — a
 * hard link to this process's holder file (`cache_holder.ts`), or, where
 * there are no hard links, a file created exclusively holding the holder's
 * text — and the wait on another holder: a stale lock taken over
 * (`cache_stale.ts`), a long wait and one given up told, the ask's signal
 * ending it, and a path that can be no lock refused (`util/not_a_lock.ts`).
 *
 * @module
 */
import { closeSync, openSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { ScoutError } from "../errors.ts";
import { cannotText } from "../util/errno_text.ts";
import { unlinkQuiet, writeAllSync } from "../util/fs.ts";
import { holderText, linkLock } from "./cache_holder.ts";
import { holderOf, judgeLock, type LockStep, takeOver } from "./cache_stale.ts";
import { type LockWatch, lockWatch } from "../util/lock_watch.ts";
import { notALockError } from "../util/not_a_lock.ts";
/**
 * Creates a lock file exclusively, holding this process's holder text (where
 * there are no hard links); its open descriptor, or null when it exists.
 *
 * @param file the lock file
 * @returns the descriptor, or null when another holds it
 * @throws the file system's error (its directory missing: ENOENT)
 */
export function createLockFile(file: string): number | null {
  let fd: number;
  try {
    fd = openSync(file, "wx");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return null;
    throw e;
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

/** Creates the lock file exclusively with its holder; the open descriptor, or null when held. */
async function tryCreate(file: string): Promise<number | null> {
  try {
    return createLockFile(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") {
      // the directory went away since this process made it
      await mkdir(dirname(file), { recursive: true });
      return await tryCreate(file);
    }
    throw new ScoutError("io", cannotText("create the cache lock", file, e), { file, cause: e });
  }
}

/** A held lock: a link to the holder file, or (no hard links) a created file kept open. */
export type Held = { fd: null } | { fd: number };

/** One attempt at the lock: held, or null when another holds it. */
async function tryLock(dir: string, file: string): Promise<Held | null> {
  const linked = linkLock(dir, file);
  if (linked === true) return { fd: null };
  if (linked === false) return null;
  const fd = await tryCreate(file);
  return fd === null ? null : { fd };
}

/** How a waiter waits for a lock ({@link acquire}). */
export interface WaitOptions {
  /** How long to wait for a live holder before running unlocked. */
  waitMs: number;
  /** Sleeps between attempts. */
  sleep: (ms: number) => Promise<void>;
  /** Tells the user of a wait (once it is long) and of one given up. */
  warn?: ((message: string) => void) | undefined;
  /** How long a wait is before it is told (default 3 s). */
  warnAfterMs?: number | undefined;
  /** Test seam: a competing process's moves between two steps. */
  step?: LockStep;
  /** Ends the wait (the ask's signal: SIGINT/SIGTERM), throwing its reason. */
  signal?: AbortSignal | undefined;
}

/** Tells the user of a wait: once when it is long, and when it is given up (the clock starts now). */
function waitTeller(file: string, opts: WaitOptions): (text: string | undefined) => boolean {
  const start = Date.now();
  let told = false;
  let by = "";
  return (text) => {
    if (text !== undefined && holderOf(text)) by = ` held by ${text}`;
    const waited = Date.now() - start;
    if (!told && waited >= (opts.warnAfterMs ?? 3_000)) {
      told = true;
      opts.warn?.(`Waiting for another process's identical inference (lock "${file}"${by})…`);
    }
    if (waited <= opts.waitMs) return false;
    const s = Math.round(waited / 1000);
    opts.warn?.(
      `Gave up waiting for lock "${file}"${by} after ${s} s: running the inference without it`,
    );
    return true;
  };
}

/** {@link judgeLock}, a path that can be no lock refused naming it (`util/not_a_lock.ts`, R142-1). */
async function judged(file: string, step: LockStep | undefined, watch: LockWatch) {
  try {
    return await judgeLock(file, step, watch);
  } catch (e) {
    throw notALockError(file, e) ?? e;
  }
}

/**
 * Takes the lock `file` of cache directory `dir`, waiting on a live holder
 * and taking over a stale lock; after `waitMs` gives up. [TS-FIX] R142-1:
 * the ask's signal ends the wait (a SIGTERM was ignored until the wait's
 * end, 10 min), and a symbolic link or directory at the lock's path is
 * refused at once, naming it (a dangling link was waited on the whole time).
 *
 * @param dir cache directory (it exists)
 * @param file the key's lock file
 * @param opts how long to wait and how to tell it, how to sleep between attempts, a test seam
 * @returns the held lock, or null when the wait gave up
 * @throws the signal's reason when it aborts the wait; ScoutError `io` for no lock
 */
export async function acquire(dir: string, file: string, opts: WaitOptions): Promise<Held | null> {
  let over: ReturnType<typeof waitTeller> | undefined;
  const watch = lockWatch(); // another host's lock: judged by whether it beats while watched
  for (;;) {
    opts.signal?.throwIfAborted();
    const held = await tryLock(dir, file);
    if (held !== null) return held;
    over ??= waitTeller(file, opts);
    const lock = await judged(file, opts.step, watch);
    if (lock?.stale) {
      if (opts.step) await opts.step("judged");
      if (takeOver(file, lock)) continue;
    }
    if (over(lock?.text)) return null;
    await opts.sleep(50);
  }
}
