/**
 * Removing files of a shared directory without following a symbolic link
 * another user swaps in (R125). A clean removes by name in a directory it
 * has checked; a path string would be resolved again at the removal, and a
 * co-user who can write the store could by then have put a link to the
 * cleaner's own files in place of a checked directory. Node has no
 * `unlinkat`, so the process's working directory stands for the directory
 * descriptor: {@link inRealDir} enters the directory and checks, by the
 * kernel's `getcwd` (the path of the directory entered, links resolved),
 * that it is the real directory expected; from then on a bare name is
 * resolved in that directory whatever is renamed meanwhile, and `unlink`
 * and `rmdir` never follow a link in the last component. No window is left
 * between the check and the removal: a swap after the `chdir` changes
 * nothing of where the names are looked up.
 *
 * The working directory is the process's: the callers are synchronous (no
 * other JavaScript runs until it is restored), and what other threads touch
 * meanwhile (a lock refresher's lock) is named by absolute paths.
 *
 * @module
 */
import { lstatSync, readdirSync, rmdirSync, type Stats, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { ScoutError } from "../errors.ts";

/** Checks the working directory is `real` (reached through no link); throws when it is not. */
function check(real: string): void {
  const now = process.cwd();
  if (now !== real) {
    throw new ScoutError(
      "io",
      `Refused to remove files in ${real}: it is now ${now} (a symbolic link put in its place?)`,
      { file: real },
    );
  }
}

/**
 * Runs `fn` with the working directory pinned to `realDir` (checked to be
 * that directory, reached through no symbolic link), then restores it.
 * `fn` must be synchronous and name what it removes by bare names.
 *
 * @param realDir the directory's real path (no link in it)
 * @param fn what to do there
 * @returns what `fn` returns
 * @throws ScoutError `io` when `realDir` is no longer that directory (a
 *   component swapped for a link): nothing was done
 */
export function inRealDir<T>(realDir: string, fn: () => T): T {
  const back = process.cwd();
  try {
    process.chdir(realDir);
    check(realDir);
    return fn();
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
 * Removes `name` from the working directory ({@link inRealDir}): a file or
 * link is unlinked (a link's target is never touched), a directory is
 * emptied the same way, one level at a time — entered by name and checked
 * to be the directory listed, not a link swapped in — then removed. Gone
 * already: nothing to do.
 *
 * @param name a bare name (no `/`)
 * @param here the working directory's real path
 * @throws ScoutError `io` when a directory below is swapped for a link, or
 *   the file system's error
 */
export function removeHere(name: string, here: string): void {
  let st: Stats | undefined;
  try {
    st = lstatSync(name, { throwIfNoEntry: false });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOTDIR") return;
    throw e;
  }
  if (st === undefined) return;
  if (!st.isDirectory()) return unlinkGone(name);
  const inner = join(here, name);
  try {
    process.chdir(name);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return; // gone, or no directory any more
    throw e;
  }
  try {
    check(inner);
    for (const entry of readdirSync(".")) removeHere(entry, inner);
  } finally {
    // `..` of the directory entered, whatever its path has become since (a
    // failure goes up as it is: inRealDir puts the working directory back)
    process.chdir("..");
  }
  check(here);
  try {
    rmdirSync(name); // a link swapped in meanwhile is no directory: ENOTDIR, never followed
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
}

function unlinkGone(name: string): void {
  try {
    unlinkSync(name);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
}
