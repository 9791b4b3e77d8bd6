/**
 * Rewriting a file the user named, in place (a chat saved with `save` or
 * `-o`, a file answered with `--inline`): a symbolic link is written
 * through — its target is rewritten and keeps its mode, the link stays, as
 * an editor saves a linked file — and a read-only file is refused rather
 * than replaced. The rewrite itself is atomic (temp + rename, see
 * `writeFileAtomic`), so a hard link to the file keeps the old text.
 *
 * @module
 */
import { accessSync, constants, lstatSync, realpathSync, type Stats, statSync } from "node:fs";
import { dirname } from "node:path";
import { ScoutError } from "../errors.ts";
import { writeFileAtomic } from "./fs.ts";

/** Where an in-place write of a path lands, or why it may not. */
export interface InPlace {
  /** The file written: the path itself, or a symbolic link's final target. */
  file: string;
  /** Why the write is refused ("it is a directory"…), or null. */
  problem: string | null;
}

/**
 * Where a rewrite of `path` lands and whether it may: refused for a link to
 * nothing or a loop of links, a directory, anything but a regular file, a
 * read-only file (no write bit, or not writable by this process), or no
 * writable directory to put it in (missing parents would be made, so the
 * nearest existing one decides).
 *
 * @param path absolute path
 * @returns the file and the problem, if any
 */
export function inPlace(path: string): InPlace {
  let file: string;
  try {
    file = linkTarget(path);
  } catch (e) {
    return { file: path, problem: (e as Error).message };
  }
  const st = statOrNull(file);
  const problem = st === null ? null : fileProblem(file, st);
  if (problem !== null) return { file, problem };
  // a rewrite is a temp file beside the file, renamed over it: its directory must take one
  let dir = dirname(file);
  while (statOrNull(dir) === null && dirname(dir) !== dir) dir = dirname(dir);
  if (!statOrNull(dir)?.isDirectory() || !accessible(dir)) {
    return { file, problem: `"${dir}" is not a writable directory` };
  }
  return { file, problem: null };
}

/**
 * {@link inPlace}'s file, or an `io` {@link ScoutError} naming `shown`.
 *
 * @param path absolute path
 * @param shown the path as the user gave it
 * @returns the file to write
 * @throws ScoutError `io` ("Cannot write "<shown>": <why>")
 */
export function inPlaceTarget(path: string, shown: string = path): string {
  const { file, problem } = inPlace(path);
  if (problem !== null) {
    throw new ScoutError("io", `Cannot write "${shown}": ${problem}`, { file: shown });
  }
  return file;
}

/**
 * Writes `data` over `path` in place ({@link inPlaceTarget}), atomically.
 *
 * @param path absolute path
 * @param data text (as UTF-8) or bytes
 * @param shown the path as the user gave it, for errors
 * @returns the file written (a link's target)
 * @throws ScoutError `io` naming the path when it may not or cannot be written
 */
export async function writeInPlace(
  path: string,
  data: string | Uint8Array,
  shown: string = path,
): Promise<string> {
  const file = inPlaceTarget(path, shown);
  await writeFileAtomic(file, data);
  return file;
}

/**
 * A path as it is, or a symbolic link's target (followed to the end).
 *
 * @throws Error for a link to nothing, or a loop of links
 */
function linkTarget(path: string): string {
  let link: boolean;
  try {
    link = lstatSync(path).isSymbolicLink();
  } catch {
    return path; // not there yet: created
  }
  if (!link) return path;
  try {
    return realpathSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(
      code === "ELOOP"
        ? "a loop of symbolic links"
        : "a symbolic link to a file that does not exist (create it first)",
    );
  }
}

/** Why an existing `file` may not be replaced, or null. */
function fileProblem(file: string, st: Stats): string | null {
  if (st.isDirectory()) return "it is a directory";
  if (!st.isFile()) return "not a regular file";
  // no write bit at all: read-only even to root, whom access() lets write anything
  if ((st.mode & 0o222) === 0 || !accessible(file)) return "the file is not writable";
  return null;
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

function accessible(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
