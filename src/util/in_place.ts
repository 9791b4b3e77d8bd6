/**
 * Writing a file the user named (a chat saved with `save` or `-o`, a file
 * answered with `--inline`, `llm prov`'s `--html`/`--dot`/`--plot`): the one
 * place that decides where such a write lands.
 *
 * - A symbolic link is written through — its target is rewritten and keeps
 *   its mode, the link stays, as an editor saves a linked file.
 * - A regular file is rewritten atomically (temp + rename beside it, see
 *   `writeFileAtomic`), so a hard link to it keeps the old text; a read-only
 *   one is refused rather than replaced.
 * - A pipe or a character device — a FIFO, `>(…)` as `/dev/fd/63`,
 *   `/dev/stdout` on a pipe or a terminal, `/dev/null` — is a stream: written
 *   straight, never read back, never replaced (renaming a file over
 *   `/dev/stdout` would replace the system's link). A link's target that is
 *   no path (`pipe:[N]`, which `/proc/self/fd/N` names and Bun's `realpath`
 *   returns as it is) is never taken for one: what it opens is written
 *   straight.
 *
 * @module
 */
import {
  accessSync,
  closeSync,
  constants,
  lstatSync,
  openSync,
  readlinkSync,
  realpathSync,
  type Stats,
  statSync,
  writeSync,
} from "node:fs";
import { open } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";
import { ScoutError } from "../errors.ts";
import { cannotText } from "./errno_text.ts";
import { writeFileAtomic, writeFileAtomicSync } from "./fs.ts";

/** Where a write of a path lands, or why it may not. */
export interface InPlace {
  /** The file written: the path itself, or a symbolic link's final target. */
  file: string;
  /** Why the write is refused ("it is a directory"…), or null. */
  problem: string | null;
  /**
   * A pipe or character device: written straight (nothing read from it,
   * nothing renamed over it). Absent for a file.
   */
  stream?: true;
  /**
   * The refusal is a permission (a file or directory this process may not
   * write), not the kind of path: a failure (exit 1), not a usage error.
   */
  denied?: true;
}

/**
 * Where a write of `path` lands and whether it may: refused for a link to
 * nothing or a loop of links, a directory, a socket or block device, a
 * read-only file or stream (no write bit, or not writable by this process),
 * or no writable directory to put a file in (missing parents would be made,
 * so the nearest existing one decides).
 *
 * @param path absolute path
 * @returns the file, the problem if any, and whether it is a stream
 */
export function inPlace(path: string): InPlace {
  const lst = lstatOrNull(path);
  if (lst === null) return newFile(path); // not there yet: created
  let st = lst;
  if (lst.isSymbolicLink()) {
    try {
      st = statSync(path);
    } catch (e) {
      return { file: path, problem: brokenLink(e) };
    }
  }
  if (st.isDirectory()) return { file: path, problem: "it is a directory" };
  const file = st.isFile() ? (lst.isSymbolicLink() ? linkTarget(path, st) : path) : null;
  if (file === null) {
    // a pipe, a device, or a file known by no path (behind `/dev/fd/N`): written straight
    if (!st.isFile() && !st.isFIFO() && !st.isCharacterDevice()) {
      return { file: path, problem: "not a regular file, a pipe or a terminal" };
    }
    return { file: path, problem: writable(path) ? null : "it is not writable", stream: true };
  }
  // no write bit at all: read-only even to root, whom access() lets write anything
  if ((st.mode & 0o222) === 0 || !writable(file)) {
    return { file, problem: "the file is not writable", denied: true };
  }
  return newFile(file, true); // a rewrite is a temp file beside it: its directory must take one
}

/** A file (new, or rewritten by temp + rename) whose directory must be writable. */
function newFile(file: string, exists = false): InPlace {
  let dir = dirname(file);
  while (statOrNull(dir) === null && dirname(dir) !== dir) dir = dirname(dir);
  const isDir = statOrNull(dir)?.isDirectory() === true;
  if (isDir && writable(dir)) return { file, problem: null };
  // a writable file in a directory that is not is still refused: it is replaced, not overwritten
  const why = exists && isDir
    ? " (the file is replaced atomically: a temp file written beside it is renamed over it)"
    : "";
  const problem = `"${dir}" is not a writable directory${why}`;
  return isDir ? { file, problem, denied: true } : { file, problem };
}

/**
 * {@link inPlace}'s answer, or an `io` {@link ScoutError} naming `shown`.
 *
 * @param path absolute path
 * @param shown the path as the user gave it
 * @returns where the write lands
 * @throws ScoutError `io` ("Cannot write "<shown>": <why>")
 */
export function inPlaceWrite(path: string, shown: string = path): InPlace {
  const where = inPlace(path);
  if (where.problem !== null) {
    throw new ScoutError("io", `Cannot write "${shown}": ${where.problem}`, { file: shown });
  }
  return where;
}

/**
 * Writes `data` to `path` in place ({@link inPlace}): a file atomically, a
 * stream straight.
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
  const where = inPlaceWrite(path, shown);
  await writeWhere(where, data, shown);
  return where.file;
}

/**
 * Writes `data` where {@link inPlaceWrite} said: a file atomically, a stream
 * straight (opened without blocking the event loop: a FIFO waits for a reader).
 *
 * @param where the checked destination
 * @param data text (as UTF-8) or bytes
 * @param shown the path as the user gave it, for errors
 * @throws ScoutError `io` naming the path when it cannot be written
 */
export async function writeWhere(
  where: InPlace,
  data: string | Uint8Array,
  shown: string,
): Promise<void> {
  if (where.stream !== true) return await writeFileAtomic(where.file, data);
  try {
    const handle = await open(where.file, "w");
    try {
      await handle.writeFile(data);
    } finally {
      await handle.close();
    }
  } catch (e) {
    throw streamError(shown, e);
  }
}

/**
 * Synchronous {@link writeInPlace} (`--plot`'s file, written after Graphviz).
 *
 * @param path absolute path
 * @param data bytes
 * @param shown the path as the user gave it, for errors
 * @throws ScoutError `io` naming the path when it may not or cannot be written
 */
export function writeInPlaceSync(path: string, data: Uint8Array, shown: string = path): void {
  const where = inPlaceWrite(path, shown);
  if (where.stream !== true) return writeFileAtomicSync(where.file, data);
  try {
    const fd = openSync(where.file, "w");
    try {
      for (let at = 0; at < data.length;) at += writeSync(fd, data, at, data.length - at);
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    throw streamError(shown, e);
  }
}

function streamError(shown: string, e: unknown): ScoutError {
  return new ScoutError("io", cannotText("write", shown, e), { file: shown, cause: e });
}

/**
 * The file a write through `path` creates when `path` is a symbolic link to
 * nothing (a dotfiles link whose target is not made yet): the end of its
 * chain of links, as Ruby's `File.open(path, "w")` creates it. Any other
 * path (a file, a link to one, a loop, nothing) is answered as it is, for
 * {@link inPlace} to judge.
 *
 * @param path absolute path
 * @returns the dangling chain's end, or `path`
 */
export function danglingLinkEnd(path: string): string {
  let at = path;
  for (let hops = 0; hops < 40; hops++) {
    const lst = lstatOrNull(at);
    if (lst === null) return at === path ? path : at;
    if (!lst.isSymbolicLink()) return path; // a link to a file: inPlace follows it
    try {
      at = resolve(dirname(at), readlinkSync(at));
    } catch {
      return path;
    }
  }
  return path; // a loop: inPlace says so
}

/** Why a link cannot be followed. */
function brokenLink(e: unknown): string {
  return (e as NodeJS.ErrnoException).code === "ELOOP"
    ? "a loop of symbolic links"
    : "a symbolic link to a file that does not exist (create it first)";
}

/**
 * The path of the regular file `st` a link leads to, followed to the end;
 * null when the answer is no path to it (not absolute, as the `pipe:[N]` of a
 * `/proc/self/fd/N`, or another file: one deleted since it was opened).
 */
function linkTarget(path: string, st: Stats): string | null {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return null;
  }
  if (!isAbsolute(real)) return null;
  const at = statOrNull(real);
  return at !== null && at.dev === st.dev && at.ino === st.ino ? real : null;
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
