/**
 * Atomic writes (temp file beside the target, flushed, renamed over it),
 * shared by every layer: results, info files, saved chats. A file's mode and
 * owner are kept; a path that is not a regular file (a pipe, a device) is
 * refused. A process that exits (`process.exit`: a late signal during an
 * ask's save, R141-1) while an asynchronous write waits removes its temp
 * file, which would otherwise stay beside the target, as large as it. Node
 * built-ins only, so the code runs under Deno and in the Bun binary.
 *
 * @module
 */
import {
  closeSync,
  fchmodSync,
  fchownSync,
  fstatSync,
  fsync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeFile,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import { ScoutError } from "../errors.ts";
import { cannotText } from "./errno_text.ts";
import { PATH_BYTES, removeDeadTemps, tempNameIn } from "./dead_temps.ts";
import { removedAtExit } from "./process_temp_dir.ts";

/**
 * At most this many bytes of a file's name go into its temp file's name:
 * with the dots, the pid (7 digits), `@`, the host (64 bytes at most), the
 * random part and `.tmp` (at most 87 bytes more) the temp name of any legal
 * name stays within NAME_MAX (255 bytes).
 */
const TEMP_NAME_BYTES = 160;

/**
 * A fresh temp file's path beside `path`: `.<name>.<pid>@<host>.<hex>.tmp`,
 * the name cut to {@link TEMP_NAME_BYTES} UTF-8 bytes (at a character's
 * start), so a file whose own name is near the limit can still be written,
 * and shorter where the directory's path is long, so a file whose own path
 * is near PATH_MAX can too (R119-2; `tempNameIn`). First removes what
 * writers of `path` that died (a `kill -9` mid-write) left:
 * {@link sweepLeftovers}.
 *
 * @param path the file a temp file is for
 * @returns the temp file's path
 * @throws ScoutError `io` when the directory's path leaves no room for a temp
 *   file's name within PATH_MAX (the file itself may fit)
 */
export function tempPathFor(path: string): string {
  const dir = dirname(path);
  const temp = tempNameIn(dir, basename(path), randomBytes(4).toString("hex"), TEMP_NAME_BYTES);
  if (temp === null) {
    throw new ScoutError(
      "io",
      `Cannot write "${path}": ${TEMP_PATH_TOO_LONG} (${PATH_BYTES} bytes)`,
      { file: path },
    );
  }
  sweepLeftovers(dir, temp.prefix);
  return join(dir, temp.name);
}

/** Why a file whose directory's path is within a few bytes of PATH_MAX cannot be written. */
export const TEMP_PATH_TOO_LONG =
  "its directory's path leaves no room within the system's path limit for the temp file an " +
  "atomic write makes beside it";

/**
 * The temp-like names (`.….tmp`) of each directory written to, listed at its
 * first write in this process: a directory is listed once, not at every
 * write (a queue's results, a job's info).
 */
const listed = new Map<string, string[]>();

/**
 * Removes the temp files of the file whose temp names start with `prefix`
 * in `dir` that dead writers left ({@link removeDeadTemps}: of this host and
 * gone; of the earlier naming, without a host, only when also an hour old),
 * of those listed at this process's first write in `dir` — never another
 * file's, and never a live writer's or another host's. Best effort.
 */
function sweepLeftovers(dir: string, prefix: string): void {
  let names = listed.get(dir);
  if (names === undefined) {
    try {
      names = readdirSync(dir).filter((n) => n.startsWith(".") && n.endsWith(".tmp"));
    } catch {
      names = []; // not made yet, or not listable: nothing to sweep
    }
    if (listed.size >= 1024) listed.clear();
    listed.set(dir, names);
  }
  if (names.length === 0 || !names.some((n) => n.startsWith(prefix))) return;
  const removed = new Set(removeDeadTemps(dir, prefix, names));
  if (removed.size > 0) listed.set(dir, names.filter((n) => !removed.has(n)));
}

/** What a replaced regular file's successor keeps: its permission bits, owner and group. */
interface Kept {
  mode: number;
  uid: number;
  gid: number;
}

/**
 * What a write of `path` keeps: a regular file replaced keeps its
 * read/write/execute bits (a private chat stays private; not setuid, setgid
 * or sticky), and its owner and group where this process may give them (root
 * keeps both; a user keeps a group they belong to, as in a shared project
 * directory). Null for a new file (the umask's default, the directory's
 * group rules) and for a symbolic link, which is replaced by the file, as
 * before — a caller that writes through links (a user's `-o` chat, a saved
 * chat, `llm prov --html`) resolves them itself (`in_place.ts`).
 *
 * @throws Error for a pipe, a device or a socket, or a link to one: never
 *   replaced (a file renamed over `/dev/stdout` would replace the system's link)
 */
function kept(path: string): Kept | null {
  let st: Stats;
  try {
    st = lstatSync(path);
    if (st.isFile()) return { mode: st.mode & 0o777, uid: st.uid, gid: st.gid };
    if (st.isSymbolicLink()) st = statSync(path);
  } catch {
    return null; // nothing there, or a link to nothing
  }
  if (st.isFile() || st.isDirectory()) return null;
  throw new Error("not a regular file (a pipe, a device or a socket is never replaced)");
}

/**
 * Gives the temp file the replaced file's owner and group, as far as allowed:
 * best effort — a refusal (EPERM for a user; EINVAL for an id not mapped in a
 * user namespace, a rootless container) leaves the temp file as it was made.
 */
function keepOwner(fd: number, k: Kept): void {
  const now = fstatSync(fd); // as made: this user, and its group or a setgid directory's
  if (now.uid === k.uid && now.gid === k.gid) return; // the usual case
  try {
    fchownSync(fd, k.uid, k.gid);
  } catch {
    try {
      if (now.gid !== k.gid) fchownSync(fd, -1, k.gid); // not the owner: the group, if this user is in it
    } catch {
      // kept as made
    }
  }
}

/**
 * Writes `data` to `path` atomically: a temp file in the same directory,
 * flushed, then renamed over `path`. Readers see the old content or the new,
 * never a partial file. Creates missing parent directories. A replaced
 * regular file keeps its permission bits, and its owner and group where
 * this process may give them. A symbolic link is replaced by the file; a
 * pipe, a device or a socket, or a link to one, is never replaced (an `io`
 * error): a file the user named goes through `in_place.ts`.
 *
 * Up to 1 MiB (`SYNC_WRITE_LIMIT`) the small steps are synchronous and
 * only the flush waits off the main thread: each asynchronous file call is a
 * hop to the I/O pool, and the six a save made cost ~0.3 ms more per saved
 * chat (design-notes, "Agents bench"). Bigger data is written asynchronously,
 * so a large result does not hold up the event loop (other jobs, timers).
 *
 * @param path destination
 * @param data text (written as UTF-8) or bytes
 * @param opts `mode`: the new file's permission bits (e.g. 0o600 for a file that
 *   may hold secrets), set before any byte is written, whatever the umask or the
 *   replaced file's bits
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  opts: { mode?: number } = {},
): Promise<void> {
  const tmp = tempPathFor(path);
  // a process that exits while the write waits (a late signal's exit) leaves no temp file
  const forget = removedAtExit(tmp);
  try {
    const fd = openTemp(tmp, path, kept(path), opts.mode);
    try {
      if (data.length <= SYNC_WRITE_LIMIT) writeAllSync(fd, data);
      else await new Promise<void>((ok, fail) => writeFile(fd, data, (e) => e ? fail(e) : ok()));
      await new Promise<void>((ok, fail) => fsync(fd, (e) => e ? fail(e) : ok()));
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    throw failedWrite(path, tmp, e);
  } finally {
    forget(); // renamed or removed: nothing of it is left to remove at exit
  }
}

/**
 * Synchronous {@link writeFileAtomic}, for exit handlers and signal paths.
 *
 * @param path destination
 * @param data text or bytes
 */
export function writeFileAtomicSync(path: string, data: string | Uint8Array): void {
  const tmp = tempPathFor(path);
  try {
    const fd = openTemp(tmp, path, kept(path));
    try {
      writeAllSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    throw failedWrite(path, tmp, e);
  }
}

/**
 * Writes the chunks of a source to `path` atomically, as {@link writeFileAtomic}
 * does one piece of data: each chunk appended to a temp file beside `path` as
 * it comes, the file flushed and renamed over `path` once the source ends.
 * A source that fails leaves nothing: its error is thrown as it is, the temp
 * file removed and `path` untouched.
 *
 * @param path destination
 * @param chunks the bytes, in order
 * @throws ScoutError `io` when the file cannot be written; the source's own error when it fails
 */
export async function writeChunksAtomic(
  path: string,
  chunks: AsyncIterable<Uint8Array>,
): Promise<void> {
  const tmp = tempPathFor(path);
  const forget = removedAtExit(tmp); // as writeFileAtomic's
  try {
    await writeChunksTo(tmp, path, chunks);
  } finally {
    forget();
  }
}

/** {@link writeChunksAtomic} through `tmp`. */
async function writeChunksTo(
  tmp: string,
  path: string,
  chunks: AsyncIterable<Uint8Array>,
): Promise<void> {
  let fd: number;
  try {
    fd = openTemp(tmp, path, kept(path));
  } catch (e) {
    throw failedWrite(path, tmp, e);
  }
  let sourceFailed = false;
  try {
    let at = 0;
    const iterator = chunks[Symbol.asyncIterator]();
    for (;;) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = await iterator.next();
      } catch (e) {
        sourceFailed = true;
        throw e;
      }
      if (next.done) break;
      const bytes = next.value;
      for (let off = 0; off < bytes.length;) {
        off += writeSync(fd, bytes, off, bytes.length - off, at + off);
      }
      at += bytes.length;
    }
    await new Promise<void>((ok, fail) => fsync(fd, (e) => e ? fail(e) : ok()));
    closeSync(fd);
    fd = -1;
    renameSync(tmp, path);
  } catch (e) {
    if (fd >= 0) closeSync(fd);
    if (!sourceFailed) throw failedWrite(path, tmp, e);
    rmSync(tmp, { force: true });
    throw e;
  }
}

/** Length (string units or bytes) up to which {@link writeFileAtomic} writes synchronously. */
const SYNC_WRITE_LIMIT = 1 << 20;

/** Opens `tmp` for writing (with what it keeps of `path`), making `path`'s directory when missing. */
function openTemp(tmp: string, path: string, keep: Kept | null, mode?: number): number {
  let fd: number;
  try {
    fd = openSync(tmp, "w", mode ?? 0o666);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    mkdirSync(dirname(path), { recursive: true });
    fd = openSync(tmp, "w", mode ?? 0o666);
  }
  if (mode !== undefined) {
    try {
      fchmodSync(fd, mode);
    } catch (e) {
      closeSync(fd);
      throw e;
    }
  } else if (keep !== null) {
    try {
      keepOwner(fd, keep); // before the mode: a change of owner may clear mode bits
      fchmodSync(fd, keep.mode);
    } catch (e) {
      closeSync(fd);
      throw e;
    }
  }
  return fd;
}

const utf8 = new TextEncoder();

/**
 * Writes all of `data` (text as UTF-8) into `fd` from the file's start,
 * whatever its current offset.
 *
 * @param fd an open file
 * @param data text or bytes
 * @returns the number of bytes written
 */
export function writeAllSync(fd: number, data: string | Uint8Array): number {
  const bytes = typeof data === "string" ? utf8.encode(data) : data;
  for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at, at);
  return bytes.length;
}

/** The error of a failed atomic write, its temp file removed. */
function failedWrite(path: string, tmp: string, e: unknown): ScoutError {
  try {
    rmSync(tmp, { force: true });
  } catch { /* the temp file may not exist */ }
  // Node names the file of the failed call (`…, open '<dir>/.<name>.<pid>….tmp'`): the
  // temp file is this write's detail, the message names the file written (R88-10)
  return new ScoutError("io", cannotText("write", path, e), { file: path, cause: e });
}
