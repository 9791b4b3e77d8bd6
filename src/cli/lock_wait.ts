/**
 * The one plain line telling a wait on another process's persist lock past a
 * few seconds (`LockOptions.onLongWait`), for a job's run and a chat's save
 * alike (R125-5, R148-1).
 *
 * @module
 */
import { escapeLine } from "../provenance/one_line.ts";
import { lockMaxAgeMs } from "../workflow/lock.ts";

/**
 * `waiting for lock "<lock>" (<whose>)`: the holder's text (another
 * process's, kept to one line), or — a lock left empty by a crash between its
 * create and its text, which names no process to outlive — when it will be
 * taken over.
 *
 * @param lock the lock file
 * @param holder its holder's text, on one line ("" when empty)
 * @returns the notice, without a prefix
 */
export function lockWaitText(lock: string, holder: string): string {
  const secs = Math.round(lockMaxAgeMs() / 1000);
  const whose = holder === ""
    ? `no holder written: taken over once unchanged for ${secs} s`
    : `held by ${escapeLine(holder)}`;
  return `waiting for lock "${escapeLine(lock)}" (${whose})`;
}
