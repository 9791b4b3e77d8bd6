/**
 * This process's holder file in a cache directory, for the cache's per-key
 * locks (`cache_lock.ts`): `<dir>/.holders/<pid>@<host>`, holding
 * `<pid>@<host>`. A key's lock is a hard link to it (`<dir>/<key>.lock`): taken
 * with one `link` — atomic, failing with EEXIST when held, and without the new
 * inode an exclusive create needs (on this project's ext4 machine 0.1–0.4 ms of
 * kernel time each, on NFS a server round trip). Read through the lock, the
 * holder's text says who holds it, as a created lock file's did. The holder
 * file's modification time is its locks' heartbeat (`cache_heartbeat.ts`).
 * The holder files are removed when the process exits (one whose directory
 * has a temp file still opening is left); those of dead processes — of this
 * host, or of any host once without a heartbeat — are swept when a process
 * makes its own, with the entries' temp files they left.
 *
 * @module
 */
import {
  closeSync,
  constants,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  realpathSync,
  statSync,
  unlinkSync,
} from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { ScoutError } from "../errors.ts";
import { unlinkQuiet, writeAllSync } from "../util/fs.ts";
import { storePart } from "../util/owned_links.ts";
import { inRealDir, pathIn, type PinnedDir } from "../util/pinned_dir.ts";
import { pidAlive } from "../util/process.ts";
import { beatFile, STALE_MS } from "./cache_heartbeat.ts";
import { beyondSkew } from "../util/lock_watch.ts";
import { thisHolder } from "../util/holder.ts";

/** Holder files made by this process, by cache directory (null: no links there). */
const holderFiles = new Map<string, string | null>();
let exitHook = false;
/** Entries' temp files being opened in the background (`cache_files.ts` tempFile). */
const opening = new Set<string>();

/**
 * Notes an entry's temp file being opened in the background, until the
 * returned function is called (its open's callback). At the process's exit
 * with one still opening, the holder file of its directory is left: the open,
 * on another thread, may create the file after the exit removed its path, and
 * the next process there sweeps it with the holder, as a dead process's (R161).
 *
 * @param path the temp file's path
 * @returns call when the open has ended
 */
export function noteOpening(path: string): () => void {
  opening.add(path);
  return () => opening.delete(path);
}

/** Whether a temp file of cache directory `dir` is still being opened. */
function openingIn(dir: string): boolean {
  for (const path of opening) if (resolve(dirname(path)) === resolve(dir)) return true;
  return false;
}

/** What a lock of this process holds: `<pid>@<host>` (`util/holder.ts`). */
export function holderText(): string {
  return thisHolder();
}

function removeAtExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.on("exit", () => {
    for (const [dir, file] of holderFiles) {
      if (openingIn(dir)) continue; // left for the next process's sweep (above)
      try {
        // by name in its directory, checked: never through a link swapped in for it (R125)
        if (file) inRealDir(dirname(file), (d) => unlinkSync(pathIn(d, basename(file))));
      } catch { /* gone already, or the directory with it */ }
    }
  });
}

/**
 * Whether a holder file is a dead process's: of this host and gone, or
 * without a heartbeat for `STALE_MS`; of another host, whose heartbeat is
 * dated by its own clock, once dated beyond any plausible skew
 * (`util/lock_watch.ts`, R139-2). Never this process's own.
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
  if (st === undefined) return false;
  // another host beats on its own clock: its file is judged dead only beyond any skew (R139-2)
  if (beyondSkew(st.mtimeMs, STALE_MS)) return true;
  return m[2] === host && Date.now() - st.mtimeMs > STALE_MS;
}

/**
 * Removes the holder files of dead processes (crashes leave them): of this
 * host, and once without a heartbeat ({@link deadHolder}). By name in
 * the holders' directory, entered and checked ({@link inRealDir}).
 *
 * @param holders the holders' directory
 * @returns the holders removed
 */
function sweepDead(holders: PinnedDir): Set<string> {
  const host = hostname();
  const swept = new Set<string>();
  for (const name of readdirSync(pathIn(holders, "."))) {
    if (!deadHolder(pathIn(holders, name), name, host)) continue;
    try {
      unlinkSync(pathIn(holders, name));
      swept.add(name);
    } catch { /* another process swept it (and sweeps its temp files) */ }
  }
  return swept;
}

/**
 * Removes the entries' temp files of swept holders, named
 * `<key>.json.tmp-<pid>@<host>-<n>` (`cache_files.ts` tmpPath): a process
 * killed while its request was out leaves the one opened early, empty. By
 * name in the cache directory, entered and checked ({@link inRealDir}).
 */
function sweepTemps(base: PinnedDir, swept: Set<string>): void {
  for (const name of readdirSync(pathIn(base, "."))) {
    const m = /\.json\.tmp-(.+)-\d+$/.exec(name);
    if (!m || !swept.has(m[1]!)) continue;
    try {
      unlinkSync(pathIn(base, name));
    } catch { /* another process swept it */ }
  }
}

/**
 * The real path of the holders' directory of cache directory `dir`, made if
 * missing. [TS-FIX] R125: `.holders` is in a directory the store's group may
 * write; a symbolic link another member put in its place is not followed —
 * followed, it made this process create its holder file in, and sweep files
 * named like holders (`<digits>@…`) from, a directory of that member's
 * choosing, such as one of this user's own (`util/owned_links.ts`).
 *
 * @param dir cache directory (made if missing)
 * @returns the real paths of the cache directory and of its holders' directory
 * @throws ScoutError `io` when `.holders` is another user's link; the file
 *   system's error
 */
function holdersDir(dir: string): { base: string; holders: string } {
  // the cache directory as spelled, made again when removed while the process runs (an ask
  // uses it so); `.holders` in it is the part another member may have put a link in
  mkdirSync(dir, { recursive: true });
  const base = realpathSync(dir);
  try {
    mkdirSync(join(base, ".holders"));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
  const part = storePart(base, [".holders"]);
  if ("real" in part) return { base, holders: part.real };
  const file = join(base, ".holders");
  throw new ScoutError(
    "io",
    "link" in part
      ? `Not following ${part.link}: a symbolic link made by another user (uid ${part.owner})`
      : `Cannot make ${file}: it went away`,
    { file },
  );
}

/** Creating a holder file: exclusively, never through a link (nor opening a FIFO). */
const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * Creates the holder file `file` (named in the holders' directory entered
 * and checked, {@link pathIn}) and writes the holder's text into it. A file
 * of this name is an earlier process's with this pid (locks linked to it name
 * this process, and are treated as leftovers: `cache_stale.ts`), or one a
 * member planted: removed by name (a link's target never touched), then the
 * holder created exclusively — a link, FIFO or file put back in between makes
 * the create fail (EEXIST), never one written, truncated or waited on.
 */
function createHolder(file: string, write: (fd: number, text: string) => void): void {
  unlinkQuiet(file);
  const fd = openSync(file, CREATE, 0o666);
  try {
    write(fd, holderText());
  } catch (e) {
    // made but not written (a full disk): not yet removed at exit, so now
    try {
      unlinkQuiet(file);
    } catch { /* the write's error is the one to report */ }
    throw e;
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes this process's holder file in cache directory `dir` (and sweeps dead
 * processes' holders, with their temp files), by name in the directories
 * entered and checked (`util/pinned_dir.ts`, R125).
 *
 * @param dir cache directory (made if missing)
 * @param write how the holder's text is written to its descriptor (a test seam: a full disk)
 * @returns the holder file's path
 * @throws ScoutError `io` when `.holders` is another user's link; the file system's error
 */
export function makeHolder(
  dir: string,
  write: (fd: number, text: string) => void = writeAllSync,
): string {
  const { base, holders } = holdersDir(dir);
  const name = holderText();
  inRealDir(holders, (d) => createHolder(pathIn(d, name), write));
  const file = join(holders, name);
  removeAtExit();
  beatFile(file); // its mtime is its locks' heartbeat
  const swept = inRealDir(holders, sweepDead);
  if (swept.size > 0) inRealDir(base, (d) => sweepTemps(d, swept)); // rare: a listing of the cache only then
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
