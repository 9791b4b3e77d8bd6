/**
 * Small file helpers shared by every layer: lossless-as-possible text reads,
 * existence probes, typed file errors; and the atomic writes of
 * `atomic_write.ts`, re-exported here. Node built-ins only, so the code runs under Deno and in the Bun binary.
 *
 * @module
 */
import {
  existsSync,
  lstatSync,
  readlinkSync,
  realpathSync,
  type Stats,
  statSync,
  unlinkSync,
} from "node:fs";
import { readFile } from "node:fs/promises";
import { isScoutError, ScoutError } from "../errors.ts";

export {
  tempPathFor,
  writeAllSync,
  writeChunksAtomic,
  writeFileAtomic,
  writeFileAtomicSync,
} from "./atomic_write.ts";

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
  return decodeUtf8(await readBytes(path));
}

/**
 * A file's bytes; missing files and directories give a `not_found` / `io`
 * {@link ScoutError} naming the path.
 *
 * @param path file to read
 * @returns its bytes
 */
export async function readBytes(path: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (e) {
    throw fileError(path, e);
  }
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
 * Why a read failed, for a message that names the file itself
 * (`Cannot read "<ref>": <why>`): a {@link fileError}'s words without its own
 * `Cannot read "<path>": `, so the name is not said twice (R88-10).
 *
 * @param e the error a read threw
 * @returns its message, that prefix dropped
 */
export function readFailure(e: unknown): string {
  const message = isScoutError(e) ? e.message : String((e as Error)?.message ?? e);
  const own = isScoutError(e) && e.file !== undefined ? `Cannot read "${e.file}": ` : null;
  return own !== null && message.startsWith(own) ? message.slice(own.length) : message;
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
 * a symbolic link loop, or a symbolic link to nothing ({@link danglingLinkError})
 * for "not there".
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
  let s: Stats | undefined;
  try {
    s = statSync(path, { throwIfNoEntry: false });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException)?.code;
    if (code !== "ENOENT" && code !== "ENOTDIR") throw fileError(path, e);
  }
  if (s !== undefined) return s;
  const dangling = danglingLinkError(path);
  if (dangling !== null) throw dangling;
  return null;
}

/**
 * {@link presentStats} of a path that must be a regular file, or a
 * directory, when it is there: `start_chat` that is a directory, a `.files`
 * that is a file, is no more "absent" than a link to nothing is — each is
 * an error naming the path, never a silent miss (R142).
 *
 * @example
 * ```ts
 * presentAs("/no/such/file", "file"); // null
 * ```
 *
 * @param path path to test
 * @param kind what it must be when present
 * @returns its stats, or null when it does not exist
 * @throws ScoutError `io` naming the path: the wrong kind (`Is a directory,
 *   not a file: "<path>"`), a link to nothing, or one that cannot be looked at
 */
export function presentAs(path: string, kind: "file" | "directory"): Stats | null {
  const s = presentStats(path);
  if (s === null || (kind === "file" ? s.isFile() : s.isDirectory())) return s;
  const what = s.isDirectory() ? "Is a directory" : s.isFile() ? "Is a file" : "Is a special file";
  throw new ScoutError("io", `${what}, not a ${kind}: "${path}"`, { file: path });
}

/**
 * The error for `path` when it is a symbolic link whose target does not
 * exist (`Dangling symbolic link: "<path>" (to "<target>")`), else null: a
 * miss at such a path is a broken link, not absence. ENOTDIR (a parent that
 * is a file) is absence. Never throws.
 *
 * @example
 * ```ts
 * danglingLinkError("/no/such/path"); // null
 * ```
 *
 * @param path a path a stat that follows links found nothing at
 * @returns the error, or null when nothing is there
 */
export function danglingLinkError(path: string): ScoutError | null {
  let target: string;
  try {
    if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() !== true) return null;
    target = readlinkSync(path);
  } catch {
    return null;
  }
  return new ScoutError("io", `Dangling symbolic link: "${path}" (to "${target}")`, {
    file: path,
  });
}

/** `test` of `path`'s stats (following symlinks); false when missing or unreadable. */
function statIs(path: string, test: (s: Stats) => boolean): boolean {
  const s = statsOf(path);
  return s !== null && test(s);
}

/** `path`'s stats (following symlinks), or null when missing or unreadable. */
/**
 * The stats of `path` (following symlinks), or null when it cannot be looked
 * at (missing, or refused); never throws.
 *
 * @param path path to test
 * @returns its stats, or null
 */
export function statsOf(path: string): Stats | null {
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

/**
 * Whether two paths name one file or directory: the same spelling, or the
 * same real path (through symbolic links); false when either cannot be
 * resolved (missing: not, or not yet, the same). Never throws.
 *
 * @param a a path
 * @param b another path
 * @returns whether they are one
 */
export function samePath(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}
