/**
 * This process's holder file in a cache directory, for the cache's per-key
 * locks (`cache_lock.ts`): `<dir>/.holders/<pid>@<host>`, holding
 * `<pid>@<host>`. A key's lock is a hard link to it (`<dir>/<key>.lock`): taken
 * with one `link` — atomic, failing with EEXIST when held, and without the new
 * inode an exclusive create needs (on this project's ext4 machine 0.1–0.4 ms of
 * kernel time each, on NFS a server round trip). Read through the lock, the
 * holder's text says who holds it, as a created lock file's did. The holder
 * file's modification time is its locks' heartbeat (`cache_heartbeat.ts`).
 * The holder files are removed when the process exits; those of dead
 * processes — of this host, or of any host once without a heartbeat — are
 * swept when a process makes its own, with the entries' temp files they left.
 *
 * @module
 */
import {
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { unlinkQuiet } from "../util/fs.ts";
import { pidAlive } from "../util/process.ts";
import { beatFile, STALE_MS } from "./cache_heartbeat.ts";

/** Holder files made by this process, by cache directory (null: no links there). */
const holderFiles = new Map<string, string | null>();
let me: string | undefined;
let exitHook = false;

/** What a lock of this process holds: `<pid>@<host>`. */
export function holderText(): string {
  return me ??= `${process.pid}@${hostname()}`;
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

/**
 * Whether a holder file is a dead process's: of this host and gone, or
 * without a heartbeat (never this process's own).
 *
 * @param file the holder file
 * @param name its name, `<pid>@<host>`
 * @param host this host's name
 * @returns true when its process is dead
 */
export function deadHolder(file: string, name: string, host: string): boolean {
  const m = /^(\d+)@(.+)$/.exec(name);
  if (!m || name === holderText()) return false;
  if (m[2] === host && !pidAlive(Number(m[1]))) return true;
  const st = statSync(file, { throwIfNoEntry: false });
  return st !== undefined && Date.now() - st.mtimeMs > STALE_MS;
}

/**
 * Removes the holder files of dead processes (crashes leave them): of this
 * host, and of any host once without a heartbeat for `STALE_MS`.
 *
 * @returns the holders removed
 */
function sweepDead(holders: string): Set<string> {
  const host = hostname();
  const swept = new Set<string>();
  for (const name of readdirSync(holders)) {
    const file = join(holders, name);
    if (!deadHolder(file, name, host)) continue;
    try {
      unlinkSync(file);
      swept.add(name);
    } catch { /* another process swept it (and sweeps its temp files) */ }
  }
  return swept;
}

/**
 * Removes the entries' temp files of swept holders, named
 * `<key>.json.tmp-<pid>@<host>-<n>` (`cache_files.ts` tmpPath): a process
 * killed while its request was out leaves the one opened early, empty.
 */
function sweepTemps(dir: string, swept: Set<string>): void {
  for (const name of readdirSync(dir)) {
    const m = /\.json\.tmp-(.+)-\d+$/.exec(name);
    if (!m || !swept.has(m[1]!)) continue;
    try {
      unlinkSync(join(dir, name));
    } catch { /* another process swept it */ }
  }
}

/**
 * Makes this process's holder file in cache directory `dir` (and sweeps dead
 * processes' holders, with their temp files).
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
  // it name this process, and are treated as leftovers (cache_stale.ts)
  unlinkQuiet(file);
  try {
    write(file, holderText());
  } catch (e) {
    // made but not written (a full disk): not yet removed at exit, so now
    try {
      unlinkQuiet(file);
    } catch { /* the write's error is the one to report */ }
    throw e;
  }
  removeAtExit();
  beatFile(file); // its mtime is its locks' heartbeat
  const swept = sweepDead(holders);
  if (swept.size > 0) sweepTemps(dir, swept); // rare: a listing of the cache only then
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

/**
 * Whether `lock` is still a link to this process's holder file of `dir` (the
 * same inode): asked before a release only when the heartbeat has lapsed, as
 * a silent holder's lock may have been taken over meanwhile.
 *
 * @param dir cache directory
 * @param lock the key's lock file
 * @returns true when the lock is this process's
 */
export function holdsLink(dir: string, lock: string): boolean {
  const holder = holderFiles.get(dir);
  if (!holder) return false;
  try {
    const [a, b] = [statSync(holder), lstatSync(lock)];
    return a.ino === b.ino && a.dev === b.dev;
  } catch {
    return false;
  }
}
