/**
 * A short exclusive lock around a synchronous read-modify-write of a shared
 * file (a knowledge base's registry): `<file>.lock`, created with `O_EXCL`,
 * holding `<pid>@<host>`. A lock whose holder is a dead process on this host,
 * or one untouched for longer than a write could take (an unreadable holder,
 * another host), is taken over. Waiting polls synchronously (`Atomics.wait`),
 * so it works in sync code paths.
 *
 * @module
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync } from "node:fs";
import { hostname } from "node:os";
import { ScoutError } from "../errors.ts";
import { writeAllSync } from "./fs.ts";
import { pidAlive } from "./process.ts";

/** A lock nobody has touched for this long is stale whoever holds it. */
const STALE_MS = 30_000;
/** How long a caller waits for a live holder before giving up. */
const WAIT_MS = 60_000;

const pause = new Int32Array(new SharedArrayBuffer(4));

function sleepSync(ms: number): void {
  Atomics.wait(pause, 0, 0, ms);
}

/** Whether the lock file may be taken over: a dead holder on this host, or too old. */
function isStale(lock: string): boolean {
  let text: string;
  let mtimeMs: number;
  try {
    text = readFileSync(lock, "utf8");
    mtimeMs = statSync(lock).mtimeMs;
  } catch {
    return false; // gone already: try again
  }
  const m = /^(\d+)@(.+)$/.exec(text.trim());
  if (m && m[2] === hostname()) {
    const pid = Number(m[1]);
    return pid === process.pid || !pidAlive(pid); // this process never nests the lock
  }
  return Date.now() - mtimeMs > STALE_MS;
}

/** One attempt: true when this process now holds the lock. */
function tryCreate(lock: string): boolean {
  let fd: number;
  try {
    fd = openSync(lock, "wx");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw new ScoutError("io", `Cannot create the lock "${lock}": ${(e as Error).message}`, {
      file: lock,
      cause: e,
    });
  }
  try {
    writeAllSync(fd, `${process.pid}@${hostname()}`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Runs `fn` while holding `<file>.lock` (the file's directory must exist).
 *
 * @param file the file read and rewritten under the lock
 * @param fn the read-modify-write
 * @param waitMs how long to wait for a live holder (default 60 s)
 * @returns what `fn` returns
 * @throws ScoutError `io` when the lock cannot be made or stays held by a live process
 *
 * @example
 * ```ts
 * import { withFileLockSync } from "./file_lock.ts";
 * withFileLockSync("/tmp/registry", () => 1); // 1
 * ```
 */
export function withFileLockSync<T>(file: string, fn: () => T, waitMs = WAIT_MS): T {
  const lock = `${file}.lock`;
  const deadline = Date.now() + waitMs;
  let delay = 5;
  while (!tryCreate(lock)) {
    if (isStale(lock)) {
      try {
        unlinkSync(lock);
      } catch { /* another waiter took it over first */ }
      continue;
    }
    if (Date.now() > deadline) {
      throw new ScoutError("io", `The lock "${lock}" is held by another process`, { file: lock });
    }
    sleepSync(delay);
    delay = Math.min(delay * 2, 100);
  }
  try {
    return fn();
  } finally {
    try {
      unlinkSync(lock);
    } catch { /* removed as stale by another process */ }
  }
}
