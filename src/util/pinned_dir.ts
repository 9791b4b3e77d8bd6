/**
 * Removing files of a shared directory without following a symbolic link
 * another user swaps in (R125). A clean removes by name in a directory it
 * has checked; a path string would be resolved again at the removal, and a
 * co-user who can write the store could by then have put a link to the
 * cleaner's own files in place of a checked directory.
 *
 * Node has no `openat`/`unlinkat`. On Linux `/proc/self/fd` stands for them:
 * {@link inRealDir} opens the directory (`O_DIRECTORY | O_NOFOLLOW`: a link
 * in its last component is refused) and checks, by the kernel's name of the
 * open descriptor (`readlink /proc/self/fd/N`: the directory's path, links
 * resolved), that it is the real directory expected; its entries are then
 * named `/proc/self/fd/N/<name>` ({@link pathIn}). The kernel resolves that
 * magic link to the open directory itself, not by walking its path again, so
 * whatever is renamed after the open changes nothing of where the names are
 * looked up; `lstat`, `unlink` and `rmdir` never follow a link in the last
 * component, and {@link removeHere} enters a directory below by opening it
 * the same way and checking it is the directory seen (device and inode). The
 * process's working directory is never changed: other threads of the
 * process (`deno test --parallel` runs test files as threads of one process,
 * a library user may run workers) are not affected (R145-4).
 *
 * Where `/proc/self/fd` cannot be used — not Linux, or Deno without
 * `--allow-all` (it keeps `/proc` paths for that) — the process's working
 * directory stands for the descriptor, as before R145-4: entered with
 * `chdir`, checked by the kernel's `getcwd`, restored after; the same
 * guarantee, but the working directory is the process's, so that fallback is
 * safe only while no other thread of the process uses it meanwhile.
 *
 * @module
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmdirSync,
  type Stats,
  unlinkSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { ScoutError } from "../errors.ts";

/**
 * A directory entered and checked ({@link inRealDir}): its entries are named
 * by {@link pathIn}. Valid only while the function given the handle runs.
 */
export interface PinnedDir {
  /** The directory's real path, as checked (for messages and the paths reported). */
  readonly real: string;
  /** Its open descriptor, named through `/proc/self/fd`; null: the working directory (fallback). */
  readonly fd: number | null;
}

const PROC_FD = "/proc/self/fd";
/** Opening a directory: never a link in the last component (ENOTDIR, or ELOOP), never a FIFO. */
const DIR_OPEN = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** A path through `/proc/self/fd` in a message: the descriptor's number, not one it begins. */
const FD_PATH = /\/proc\/self\/fd\/(\d+)(?!\d)/g;

let procFd: boolean | undefined;

/** Whether `/proc/self/fd/N` names this process's open directory here (Linux, and permitted). */
function procFdUsable(): boolean {
  if (procFd !== undefined) return procFd;
  procFd = false;
  if (process.platform !== "linux") return false;
  try {
    const fd = openSync("/", DIR_OPEN);
    try {
      procFd = readlinkSync(`${PROC_FD}/${fd}`) === "/";
    } finally {
      closeSync(fd);
    }
  } catch { /* no /proc, or Deno without --allow-all: the working directory instead */ }
  return procFd;
}

/**
 * The path of entry `name` of directory `dir`, resolved in that directory
 * whatever its path has become since it was checked (`.`: the directory).
 *
 * @param dir the directory, as {@link inRealDir} gave it
 * @param name a bare name (no `/`), or `.`
 * @returns a path for the file system's calls, valid while `dir` is
 */
export function pathIn(dir: PinnedDir, name: string): string {
  if (dir.fd === null) return name;
  return name === "." ? `${PROC_FD}/${dir.fd}` : `${PROC_FD}/${dir.fd}/${name}`;
}

/** The error for a directory that is no longer the one checked. */
function refused(real: string, now: string): ScoutError {
  return new ScoutError(
    "io",
    `Refused to remove files in ${real}: it is now ${now} (a symbolic link put in its place?)`,
    { file: real },
  );
}

/** What `path` is now, for {@link refused}: its real path, or what is known of it. */
function nowAt(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return "a symbolic link";
  }
}

/**
 * Runs `fn` with `realDir` entered and checked to be that directory, reached
 * through no symbolic link: `fn` names what it touches there by
 * {@link pathIn}. `fn` must be synchronous (the directory is closed, or the
 * working directory restored, when it returns).
 *
 * @param realDir the directory's real path (no link in it)
 * @param fn what to do there
 * @returns what `fn` returns
 * @throws ScoutError `io` when `realDir` is no longer that directory (a
 *   component swapped for a link): nothing was done; the file system's
 *   error when it cannot be opened
 */
export function inRealDir<T>(realDir: string, fn: (dir: PinnedDir) => T): T {
  if (!procFdUsable()) return inCwd(realDir, fn);
  const fd = openDir(realDir, realDir);
  try {
    const now = readlinkSync(`${PROC_FD}/${fd}`);
    if (now !== realDir) throw refused(realDir, now);
    return named(realDir, fd, () => fn({ real: realDir, fd }));
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens directory `path` without following a link in its last component: a
 * link there is refused, naming `real`.
 */
function openDir(path: string, real: string): number {
  try {
    return openSync(path, DIR_OPEN);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const link = (code === "ENOTDIR" || code === "ELOOP") &&
      lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink();
    if (link) throw refused(real, nowAt(path));
    throw e;
  }
}

/**
 * Runs `fn`; an error naming an entry by its `/proc/self/fd/N` path names
 * it by the directory's real path instead (what the user knows it by).
 */
function named<T>(real: string, fd: number, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    const fix = (s: unknown) =>
      typeof s === "string" ? s.replace(FD_PATH, (m, n) => Number(n) === fd ? real : m) : s;
    if (e instanceof Error) {
      const o = e as Error & Record<string, unknown>;
      o.message = fix(o.message) as string;
      for (const k of ["path", "dest", "file"]) if (k in o) o[k] = fix(o[k]);
    }
    throw e;
  }
}

/**
 * Removes entry `name` of `dir` ({@link inRealDir}): a file or link is
 * unlinked (a link's target is never touched), a directory is emptied the
 * same way, one level at a time — entered by name and checked to be the
 * directory listed, not a link swapped in — then removed. Gone already:
 * nothing to do.
 *
 * @param name a bare name (no `/`)
 * @param dir the directory it is in, entered and checked
 * @throws ScoutError `io` when a directory below is swapped for a link, or
 *   the file system's error
 */
export function removeHere(name: string, dir: PinnedDir): void {
  const path = pathIn(dir, name);
  let st: Stats | undefined;
  try {
    st = lstatSync(path, { throwIfNoEntry: false });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOTDIR") return;
    throw e;
  }
  if (st === undefined) return;
  if (!st.isDirectory()) return unlinkGone(path);
  const emptied = below(dir, name, st, (inner) => {
    for (const entry of readdirSync(pathIn(inner, "."))) removeHere(entry, inner);
  });
  if (!emptied) return;
  try {
    rmdirSync(path); // a link swapped in meanwhile is no directory: ENOTDIR, never followed
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
}

/**
 * Runs `fn` in directory `name` of `dir`, entered and checked to be the
 * directory `seen` (by `lstat`); false when it is gone or no directory any
 * more (nothing done).
 */
function below(dir: PinnedDir, name: string, seen: Stats, fn: (inner: PinnedDir) => void): boolean {
  if (dir.fd === null) return belowCwd(name, fn);
  const real = join(dir.real, name);
  let fd: number;
  try {
    fd = openDir(pathIn(dir, name), real);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return false; // gone, or no directory any more
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (st.dev !== seen.dev || st.ino !== seen.ino) throw refused(real, "another directory");
    named(real, fd, () => fn({ real, fd }));
  } finally {
    closeSync(fd);
  }
  return true;
}

function unlinkGone(path: string): void {
  try {
    unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
}

// The fallback where /proc/self/fd cannot be used: the working directory.

/** Checks the working directory is `real` (reached through no link); throws when it is not. */
function check(real: string): void {
  const now = process.cwd();
  if (now !== real) throw refused(real, now);
}

/** {@link inRealDir} by the working directory: entered, checked, restored. */
function inCwd<T>(realDir: string, fn: (dir: PinnedDir) => T): T {
  const back = process.cwd();
  try {
    process.chdir(realDir);
    check(realDir);
    return fn({ real: realDir, fd: null });
  } finally {
    restoreCwd(back);
  }
}

/**
 * Goes back to `dir`, or — when the clean removed it (the user ran it from
 * inside a job's files, R129-3) — to its nearest ancestor still there: a
 * removal that succeeded is not reported failed for the directory it left.
 */
function restoreCwd(dir: string): void {
  for (let d = dir;; d = dirname(d)) {
    try {
      process.chdir(d);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT" || d === dirname(d)) throw e;
    }
  }
}

/**
 * {@link below} by the working directory: `name` entered by `chdir`, checked
 * to be the directory of that name in the directory entered (by the kernel's
 * `getcwd`, which names the directory entered whatever its path has become,
 * links resolved), left by `..` and checked to be back there.
 */
function belowCwd(name: string, fn: (inner: PinnedDir) => void): boolean {
  const here = process.cwd();
  const real = join(here, name);
  try {
    process.chdir(name);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return false; // gone, or no directory any more
    throw e;
  }
  try {
    check(real);
    fn({ real, fd: null });
  } finally {
    // `..` of the directory entered, whatever its path has become since (a
    // failure goes up as it is: inRealDir puts the working directory back)
    process.chdir("..");
  }
  check(here);
  return true;
}
