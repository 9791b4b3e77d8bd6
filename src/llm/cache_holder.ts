/**
 * This process's holder file in a cache directory, for the cache's per-key
 * locks (`cache_lock.ts`): `<dir>/.holders/<pid>@<host>`, holding
 * `<pid>@<host>`. A key's lock is a hard link to it (`<dir>/<key>.lock`): taken
 * with one `link` — atomic, failing with EEXIST when held, and without the new
 * inode an exclusive create needs (on this project's ext4 machine 0.1–0.4 ms of
 * kernel time each, on NFS a server round trip). Read through the lock, the
 * holder's text says who holds it, as a created lock file's did. The holder
 * files are removed when the process exits; those of dead processes on this
 * host are swept when a process makes its own.
 *
 * @module
 */
import { linkSync, mkdirSync, readdirSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { pidAlive } from "../util/process.ts";

/** Holder files made by this process, by cache directory (null: no links there). */
const holderFiles = new Map<string, string | null>();
let me: string | undefined;
let exitHook = false;

/** What a lock of this process holds: `<pid>@<host>`. */
export function holderText(): string {
  return me ??= `${process.pid}@${hostname()}`;
}

/** Removes a file; one already gone is no error (`rmSync` with `force` stats it twice first). */
export function unlinkQuiet(file: string): void {
  try {
    unlinkSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
}

function removeAtExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.on("exit", () => {
    for (const file of holderFiles.values()) {
      try {
        if (file) unlinkSync(file);
      } catch { /* gone already, or the directory with it */ }
    }
  });
}

/** Removes the holder files of dead processes of this host (crashes leave them). */
function sweepDead(holders: string): void {
  const host = hostname();
  for (const name of readdirSync(holders)) {
    const m = /^(\d+)@(.+)$/.exec(name);
    if (m && m[2] === host && Number(m[1]) !== process.pid && !pidAlive(Number(m[1]))) {
      try {
        unlinkSync(join(holders, name));
      } catch { /* another process swept it */ }
    }
  }
}

/**
 * Makes this process's holder file in cache directory `dir` (and sweeps dead
 * processes' holders).
 *
 * @param dir cache directory (it exists)
 * @param write how the holder's text is written (a test seam: a full disk)
 * @returns the holder file's path
 */
export function makeHolder(
  dir: string,
  write: (file: string, text: string) => void = writeFileSync,
): string {
  const holders = join(dir, ".holders");
  mkdirSync(holders, { recursive: true });
  const file = join(holders, holderText());
  // a file of this name is an earlier process's with this pid: locks linked to
  // it name this process, and are treated as leftovers (cache_lock.ts isStale)
  unlinkQuiet(file);
  write(file, holderText());
  removeAtExit();
  sweepDead(holders);
  return file;
}

/** Error codes of a file system without hard links (or out of them). */
const NO_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "EXDEV", "EMLINK", "ENOSYS"]);

/**
 * Takes the lock `file` of cache directory `dir` as a hard link to this
 * process's holder file.
 *
 * @param dir cache directory (it exists)
 * @param file the key's lock file
 * @returns true when taken, false when held by another, null when this file
 *   system has no hard links (the caller creates the lock file instead)
 */
export function linkLock(dir: string, file: string): boolean | null {
  for (let attempt = 0;; attempt++) {
    let holder = holderFiles.get(dir);
    if (holder === null) return null;
    if (holder === undefined) {
      try {
        holder = makeHolder(dir);
      } catch {
        holderFiles.set(dir, null); // e.g. `.holders` is not a directory: create locks instead
        return null;
      }
      holderFiles.set(dir, holder);
    }
    try {
      linkSync(holder, file);
      return true;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? "";
      if (code === "EEXIST") return false;
      if (code === "ENOENT" && attempt === 0) {
        holderFiles.delete(dir); // the holder (or its directory) was removed: make it again
        continue;
      }
      if (NO_LINKS.has(code) || code === "ENOENT") {
        holderFiles.set(dir, null);
        return null;
      }
      throw e;
    }
  }
}
