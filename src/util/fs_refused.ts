/**
 * Telling a file system that refuses a directory as a whole (read-only, no
 * permission, a path through a file, full) from other failures, so that
 * optional files — the inference cache, a chat's persist lock — go without
 * that directory or elsewhere instead of failing the command.
 *
 * @module
 */

/** Codes of a file system that refuses a directory as a whole: read-only, no permission, full. */
const REFUSED = new Set(["EACCES", "EPERM", "EROFS", "ENOTDIR", "ENOSPC", "EDQUOT"]);

/**
 * The OS error behind `e` (itself, or the `cause` of a wrapping error) when
 * it says the file system refuses the directory as a whole — read-only, no
 * permission, a path through a file, full — so that optional files (a cache,
 * a lock) may go without it or elsewhere; null for any other failure.
 *
 * @example
 * ```ts
 * import { refusedByFileSystem } from "./fs_refused.ts";
 * refusedByFileSystem(Object.assign(new Error("x"), { code: "EROFS" }))?.code; // "EROFS"
 * ```
 *
 * @param e what was caught
 * @returns the OS error, or null
 */
export function refusedByFileSystem(e: unknown): NodeJS.ErrnoException | null {
  const errno = ((e as { cause?: unknown })?.cause ?? e) as NodeJS.ErrnoException | undefined;
  return errno?.code !== undefined && REFUSED.has(errno.code) ? errno : null;
}
