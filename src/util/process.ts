/**
 * Whether a process of this host is alive, for the stale-lock and job-state
 * checks of `workflow/` and the inference cache.
 *
 * @module
 */

/**
 * Whether a process id names a live process of this host (signal 0; EPERM —
 * it exists but is another user's — counts as alive). Only positive integers
 * name one process: `kill(0, …)` signals this process's group and `kill(-n,
 * …)` a group (or every process), so they would answer "alive" for a pid
 * that is none.
 *
 * @param pid process id
 * @returns true if the process exists
 *
 * @example
 * ```ts
 * import { pidAlive } from "./process.ts";
 * pidAlive(process.pid); // true
 * pidAlive(0); // false
 * ```
 */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
