/**
 * What is at a lock's path but can be no lock (R125-4, R142-1). A lock file
 * of this project or Scout's is a regular file: created with `O_EXCL`, or a
 * hard link to a holder file (the inference cache's) or a temp file (Scout's
 * `Lockfile`); never a symbolic link nor a directory. A symbolic link there —
 * dangling (`ln -s /nonexistent/x <lock>`), a loop, or to any file — or a
 * directory, FIFO, device or socket makes every `O_EXCL` create fail
 * `EEXIST`, yet has no holder that could let go or be judged stale: a waiter
 * that looked through a dangling link saw no lock, tried again, and waited for
 * ever. Such a path is refused at once, naming it, and left where it is: it
 * is not ours to remove, and a link is never followed to remove its target.
 *
 * @module
 */
import { readlinkSync, type Stats } from "node:fs";
import { ScoutError } from "../errors.ts";
import { notRegularError, notRegularKind, specialKind } from "./regular_file.ts";

/** A symbolic link's target, as the link says it (`?` when it cannot be read). */
function target(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return "?";
  }
}

/**
 * What a lock's path holds when it can be no lock, by its `lstat`: `a
 * symbolic link to "<target>"`, `a directory`, `a FIFO`…; null for a
 * regular file.
 *
 * @param path the lock file
 * @param st its `lstat`
 * @returns its kind, or null
 */
export function nonLockKind(path: string, st: Stats): string | null {
  if (st.isFile()) return null;
  if (st.isSymbolicLink()) return `a symbolic link to "${target(path)}"`;
  return specialKind(st) ?? "a directory";
}

/**
 * Refuses a lock's path that `lstat` shows to be no regular file
 * ({@link nonLockKind}).
 *
 * @param path the lock file
 * @param st its `lstat`
 * @throws ScoutError `io` with `notRegular` (`regular_file.ts`'s
 *   `notRegularKind`): `a symbolic link to "<target>"`, `a directory`…
 */
export function refuseNonLock(path: string, st: Stats): void {
  const kind = nonLockKind(path, st);
  if (kind !== null) throw notRegularError(path, kind);
}

/**
 * The error a waiter fails with when its lock's path is no lock ({@link
 * refuseNonLock}, or a FIFO…): `Lock file "<path>" is <kind>, not a lock: no
 * holder to wait for (remove it, then run again)`; null for any other error.
 *
 * @param path the lock file
 * @param e what judging it threw
 * @returns the error naming the lock, or null
 *
 * @example
 * ```ts
 * import { notALockError } from "./not_a_lock.ts";
 * import { notRegularError } from "./regular_file.ts";
 * notALockError("/l/x.lock", notRegularError("/l/x.lock", "a directory"))?.message;
 * // 'Lock file "/l/x.lock" is a directory, not a lock: no holder to wait for (remove it, then run again)'
 * ```
 */
export function notALockError(path: string, e: unknown): ScoutError | null {
  const kind = notRegularKind(e);
  if (kind === null) return null;
  return new ScoutError(
    "io",
    `Lock file "${path}" is ${kind}, not a lock: no holder to wait for (remove it, then run again)`,
    { file: path, notRegular: kind, cause: e },
  );
}
