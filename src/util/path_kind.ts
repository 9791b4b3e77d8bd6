/**
 * What kind of file a path names, for commands that read or write files the
 * user named: a regular file, or a stream — a pipe (`<(…)`, a FIFO) or a
 * character device — which is read or written once, straight.
 *
 * @module
 */
import { existsSync, statSync } from "node:fs";

/** What {@link pathKind} finds at a path. */
export type PathKind = "file" | "stream" | "directory" | "other";

/**
 * What is at `path` (following symlinks); never throws: a regular `file`; a
 * `stream` — a pipe (a FIFO, `<(…)` as `/dev/fd/63`) or a character device
 * (a terminal, `/dev/null`), whose text is read once, never twice; a
 * `directory`; `other` (a socket, a block device); null when nothing is there
 * or it cannot be looked at.
 *
 * @param path path to test
 * @returns its kind, or null
 */
export function pathKind(path: string): PathKind | null {
  let s;
  try {
    // a miss answered by existsSync: Deno's statSync builds an error per miss (see fs.ts)
    s = existsSync(path) ? statSync(path, { throwIfNoEntry: false }) : undefined;
  } catch {
    return null;
  }
  if (s === undefined) return null;
  if (s.isFile()) return "file";
  if (s.isFIFO() || s.isCharacterDevice()) return "stream";
  return s.isDirectory() ? "directory" : "other";
}

/**
 * True if a file's text can be read from `path` (following symlinks): a
 * regular file or a stream ({@link pathKind}); never throws.
 *
 * @param path path to test
 * @returns whether it is a readable kind of file
 */
export function isReadableFile(path: string): boolean {
  const kind = pathKind(path);
  return kind === "file" || kind === "stream";
}

/**
 * True if `path` names a pipe (following symlinks): a FIFO, or `<(…)` as
 * `/dev/fd/63`, whose text can be read once only; never throws.
 *
 * @param path path to test
 * @returns whether it is a pipe
 */
export function isPipe(path: string): boolean {
  try {
    return existsSync(path) && statSync(path).isFIFO();
  } catch {
    return false;
  }
}
