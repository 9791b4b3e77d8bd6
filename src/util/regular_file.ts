/**
 * Reading a file that another member of a shared store may have replaced by
 * a FIFO, a device or a socket (R125-4): a blocking open of a FIFO with no
 * writer never returns, and a device may never end. The file is opened with
 * `O_NONBLOCK` (which returns at once for a FIFO and changes nothing for a
 * regular file), its descriptor stat'ed, and only a regular file is read:
 * anything else is a typed error naming it ({@link notRegularKind} tells it
 * apart). A directory is read as before (the read fails `EISDIR`). Stat then
 * read would leave a window for a swap; the descriptor's own stat does not.
 *
 * @module
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from "node:fs";
import { open } from "node:fs/promises";
import { isScoutError, ScoutError } from "../errors.ts";

const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/**
 * What a file that is neither a regular file nor a directory is, in words
 * (`a FIFO`, `a character device`…), or null for those two.
 *
 * @param st the file's stats
 * @returns its kind, or null
 */
export function specialKind(st: Stats): string | null {
  if (st.isFile() || st.isDirectory()) return null;
  if (st.isFIFO()) return "a FIFO";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  return st.isSocket() ? "a socket" : "not a regular file";
}

/**
 * The error a read of a file that is not a regular one fails with (also for
 * what can be no lock at a lock's path: `not_a_lock.ts`).
 *
 * @param path the file
 * @param kind what it is (`a FIFO`, `a directory`…)
 * @returns ScoutError `io` with `notRegular` ({@link notRegularKind})
 */
export function notRegularError(path: string, kind: string): ScoutError {
  return new ScoutError("io", `Not a regular file but ${kind}: "${path}"`, {
    file: path,
    notRegular: kind,
  });
}

/**
 * The kind of file a read refused ({@link readRegularFileSync}), or null when
 * `e` is another error.
 *
 * @param e an error a read threw
 * @returns `a FIFO`, `a socket`… or null
 */
export function notRegularKind(e: unknown): string | null {
  return isScoutError(e, "io") && typeof e.notRegular === "string" ? e.notRegular : null;
}

/** A socket cannot be opened (`ENXIO`): refused as one. */
function openRefusal(path: string, e: unknown): unknown {
  return (e as NodeJS.ErrnoException)?.code === "ENXIO" ? notRegularError(path, "a socket") : e;
}

/**
 * Reads `path` (following symbolic links) only if it is a regular file (or a
 * directory: the read's `EISDIR`); never blocks on a FIFO or device.
 *
 * @param path the file
 * @returns its bytes
 * @throws ScoutError `io` ({@link notRegularKind}) for a FIFO, device or
 *   socket; the file system's error otherwise (`ENOENT`…)
 */
export function readRegularFileSync(path: string): Buffer {
  let fd: number;
  try {
    fd = openSync(path, FLAGS);
  } catch (e) {
    throw openRefusal(path, e);
  }
  try {
    const kind = specialKind(fstatSync(fd));
    if (kind !== null) throw notRegularError(path, kind);
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * {@link readRegularFileSync}, as UTF-8 text (invalid bytes → U+FFFD).
 *
 * @param path the file
 * @returns its text
 */
export function readRegularTextSync(path: string): string {
  return readRegularFileSync(path).toString("utf8");
}

/**
 * Asynchronous {@link readRegularFileSync}.
 *
 * @param path the file
 * @returns its bytes
 */
export async function readRegularFile(path: string): Promise<Uint8Array> {
  let handle;
  try {
    handle = await open(path, FLAGS);
  } catch (e) {
    throw openRefusal(path, e);
  }
  try {
    const kind = specialKind(await handle.stat());
    if (kind !== null) throw notRegularError(path, kind);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
