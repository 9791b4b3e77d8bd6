/**
 * Telling a file system that refuses a directory as a whole (read-only, no
 * permission, a path through a file, full, or one where it cannot be made)
 * from other failures, so that optional files — the inference cache, a
 * chat's persist lock — go without that directory or elsewhere instead of
 * failing the command.
 *
 * @module
 */

/** Codes of a file system that refuses a directory as a whole: read-only, no permission, full. */
const REFUSED = new Set(["EACCES", "EPERM", "EROFS", "ENOTDIR", "ENOSPC", "EDQUOT"]);

/**
 * Codes of a (recursive) `mkdir` that cannot make the directory although
 * nothing is read-only or full (R119-6): ENOENT where the file system makes
 * none (a home under `/proc`), and for a part of the path that is a link to
 * nothing — which Deno's `mkdir` reports as EEXIST, Bun's as ENOENT.
 */
const UNMADE = new Set(["ENOENT", "EEXIST"]);

/**
 * The OS error behind `e` (itself, or the `cause` of a wrapping error) when
 * it says the file system refuses the directory as a whole — read-only, no
 * permission, a path through a file, full, a directory that cannot be made
 * (`mkdir`: a path under `/proc`, through a link to nothing) — so that
 * optional files (a cache, a lock) may go without it or elsewhere; null for
 * any other failure.
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
  if (errno?.code === undefined) return null;
  if (REFUSED.has(errno.code)) return errno;
  return errno.syscall === "mkdir" && UNMADE.has(errno.code) ? errno : null;
}
