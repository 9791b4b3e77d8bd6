/**
 * Small file helpers shared by every layer: atomic writes and lossless-as-possible
 * text reads. Node built-ins only, so the code runs under Deno and in the Bun binary.
 *
 * @module
 */
import {
  closeSync,
  existsSync,
  fchmodSync,
  fchownSync,
  fstatSync,
  fsync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  unlinkSync,
  writeFile,
  writeSync,
} from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import { isScoutError, ScoutError } from "../errors.ts";

/**
 * At most this many bytes of a file's name go into its temp file's name:
 * with the dot, the pid, the random part and `.tmp` (at most 22 bytes more)
 * the temp name of any legal name stays within NAME_MAX (255 bytes).
 */
const TEMP_NAME_BYTES = 200;

/**
 * A fresh temp file's path beside `path`: `.<name>.<pid>.<hex>.tmp`, the
 * name cut to {@link TEMP_NAME_BYTES} UTF-8 bytes (at a character's start),
 * so a file whose own name is near the limit can still be written.
 *
 * @param path the file a temp file is for
 * @returns the temp file's path
 */
export function tempPathFor(path: string): string {
  const name = clipUtf8(basename(path), TEMP_NAME_BYTES);
  return join(dirname(path), `.${name}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
}

/** The longest start of `s` that is at most `max` bytes in UTF-8, cut between characters. */
function clipUtf8(s: string, max: number): string {
  if (s.length * 3 <= max) return s; // a UTF-16 unit is at most 3 bytes
  const bytes = utf8.encode(s);
  if (bytes.length <= max) return s;
  let end = max;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--; // not inside a character
  return new TextDecoder().decode(bytes.subarray(0, end));
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
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const tmp = tempPathFor(path);
  try {
    const fd = openTemp(tmp, path, kept(path));
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

/** Length (string units or bytes) up to which {@link writeFileAtomic} writes synchronously. */
const SYNC_WRITE_LIMIT = 1 << 20;

/** Opens `tmp` for writing (with what it keeps of `path`), making `path`'s directory when missing. */
function openTemp(tmp: string, path: string, keep: Kept | null): number {
  let fd: number;
  try {
    fd = openSync(tmp, "w");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    mkdirSync(dirname(path), { recursive: true });
    fd = openSync(tmp, "w");
  }
  if (keep !== null) {
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
  return new ScoutError("io", `Cannot write "${path}": ${(e as Error).message}`, {
    file: path,
    cause: e,
  });
}

/**
 * Reads a file as text. Invalid UTF-8 becomes U+FFFD (never throws on bad bytes);
 * a leading byte-order mark is dropped. Missing files and directories give a
 * `not_found` / `io` {@link ScoutError} naming the path.
 *
 * @param path file to read
 * @returns its text
 */
export async function readText(path: string): Promise<string> {
  return (await readTextChecked(path)).text;
}

/**
 * {@link readText}, also telling whether the bytes were valid UTF-8 (so a
 * caller can warn about substituted characters without mistaking a genuine
 * U+FFFD in the file for one).
 *
 * @param path file to read
 * @returns the text and `lossy: true` when invalid bytes were replaced
 */
export async function readTextChecked(path: string): Promise<{ text: string; lossy: boolean }> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (e) {
    throw fileError(path, e);
  }
  return decodeUtf8(bytes);
}

/**
 * Decodes UTF-8 leniently (invalid sequences → U+FFFD, BOM dropped) and says
 * whether anything had to be replaced.
 *
 * @param bytes raw bytes
 * @returns the text and whether it was lossy
 */
export function decodeUtf8(bytes: Uint8Array): { text: string; lossy: boolean } {
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes), lossy: false };
  } catch {
    return { text: new TextDecoder("utf-8", { fatal: false }).decode(bytes), lossy: true };
  }
}

/**
 * Turns a Node fs error into a {@link ScoutError} that names the path.
 *
 * @param path the path the operation was about
 * @param e the original error
 * @returns a ScoutError with code `not_found` or `io`
 */
export function fileError(path: string, e: unknown): ScoutError {
  const code = (e as NodeJS.ErrnoException)?.code;
  if (code === "ENOENT") {
    return new ScoutError("not_found", `No such file: "${path}"`, { file: path, cause: e });
  }
  if (code === "EISDIR") {
    return new ScoutError("io", `Is a directory, not a file: "${path}"`, { file: path, cause: e });
  }
  if (code === "EACCES" || code === "EPERM") {
    return new ScoutError("io", `Permission denied: "${path}"`, { file: path, cause: e });
  }
  return new ScoutError("io", `Cannot read "${path}": ${(e as Error)?.message ?? String(e)}`, {
    file: path,
    cause: e,
  });
}

/**
 * The error of a failed read of a file the user named (a flag's value, an
 * `image:` line): a missing one is `file_not_found` ("<what>: "<name>""), the
 * code such files have always had; a directory, a refusal… get
 * {@link fileError}'s words. Both keep the original error as `cause`.
 *
 * @param name the file as the user gave it
 * @param e a Node fs error, or the ScoutError {@link fileError} made of one
 * @param what the message's start for a missing file
 * @returns a ScoutError with code `file_not_found` or `io`
 */
export function namedFileError(name: string, e: unknown, what = "File not found"): ScoutError {
  const raw = isScoutError(e) && e.cause !== undefined ? e.cause : e;
  if ((raw as NodeJS.ErrnoException)?.code === "ENOENT") {
    return new ScoutError("file_not_found", `${what}: "${name}"`, { file: name, cause: raw });
  }
  return fileError(name, raw);
}

/**
 * True if `path` exists (file, directory or anything else); never throws.
 *
 * @param path path to test
 * @returns whether it exists
 */
export function exists(path: string): boolean {
  return existsSync(path); // no exception per miss: resolvers probe many candidates
}

/**
 * True if `path` is a regular file (following symlinks); never throws.
 *
 * @param path path to test
 * @returns whether it is a regular file
 */
export function isFile(path: string): boolean {
  return statIs(path, (s) => s.isFile());
}

/**
 * True if `path` is a directory (following symlinks); never throws.
 *
 * @param path path to test
 * @returns whether it is a directory
 */
export function isDirectory(path: string): boolean {
  return statIs(path, (s) => s.isDirectory());
}

/**
 * The stats of `path` when it is a regular file (following symlinks), else
 * null; never throws.
 *
 * @param path path to test
 * @returns its stats, or null
 */
export function fileStats(path: string): Stats | null {
  const s = statsOf(path);
  return s !== null && s.isFile() ? s : null;
}

/**
 * The stats of `path` (following symlinks), or null when nothing is there.
 * Unlike {@link isFile} and {@link isDirectory}, which answer false for a
 * path they cannot look at, only a missing entry (ENOENT; ENOTDIR, a parent
 * that is a file) is absence: a lookup whose answer depends on the path (which
 * agent directory comes first) must not take a directory it may not search,
 * or a symbolic link loop, for "not there".
 *
 * @example
 * ```ts
 * presentStats("/no/such/path"); // null
 * ```
 *
 * @param path path to test
 * @returns its stats, or null when it does not exist
 * @throws ScoutError `io` naming the path ({@link fileError}) when it cannot be looked at
 */
export function presentStats(path: string): Stats | null {
  try {
    return statSync(path, { throwIfNoEntry: false }) ?? null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException)?.code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw fileError(path, e);
  }
}

/** `test` of `path`'s stats (following symlinks); false when missing or unreadable. */
function statIs(path: string, test: (s: Stats) => boolean): boolean {
  const s = statsOf(path);
  return s !== null && test(s);
}

/** `path`'s stats (following symlinks), or null when missing or unreadable. */
function statsOf(path: string): Stats | null {
  // a miss answered by existsSync: Deno's statSync builds (and drops) a
  // NotFound error with a stack per miss even with throwIfNoEntry false
  if (!existsSync(path)) return null;
  try {
    return statSync(path, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

/** Removes a file; one already gone is no error (`rmSync` with `force` stats it twice first). */
export function unlinkQuiet(file: string): void {
  try {
    unlinkSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
}
