/**
 * When a cache lock another holder left may be taken over (`cache_lock.ts`).
 * The judgement of a lock read between two looks at it, and the takeover of
 * only the file judged, one taker at a time, are `util/stale_takeover.ts`'s
 * (shared with the registry's lock, `util/file_lock.ts`); here is what makes
 * a cache lock stale, and the asynchronous read with its test seam.
 *
 * A lock is stale when its holder (`<pid>@<host>`) is a dead process of this
 * host, or this process (which never waits on a key it holds: a lock naming it
 * is an earlier process's with the same pid), or when it has had no heartbeat
 * for {@link STALE_MS} (`cache_heartbeat.ts`: a holder killed on another host,
 * or a pid of this host reused by an unrelated process); a lock whose text is
 * no holder (being created, being stored over, or a crash in between) once
 * untouched for {@link TORN_MS}. [TS-FIX] R139-2: "no heartbeat" is what a
 * waiter sees — the lock unchanged while it watches (`util/lock_watch.ts`) —
 * since a holder beats on its own clock: another host's lock is never judged
 * by its age on ours (a clock 5 min behind made a live lock look dead, and a
 * future date made a dead one wait out the whole wait), unless that date is
 * beyond any plausible skew, which a look (`llm cache clean`) can judge too.
 *
 * @module
 */
import { lstat } from "node:fs/promises";
import { readRegularFile } from "../util/regular_file.ts";
import { holderOf, type JudgedLock, judgeRead, type LockId } from "../util/stale_takeover.ts";
import { lockStale, type LockWatch } from "../util/lock_watch.ts";
import { refuseNonLock } from "../util/not_a_lock.ts";
import { STALE_MS } from "./cache_heartbeat.ts";

export { GATE_CRASHED_MS, holderOf, type JudgedLock, takeOver } from "../util/stale_takeover.ts";

/** A lock whose text is no holder is stale once untouched this long (a crash mid-store). */
export const TORN_MS = 5_000;

/**
 * A test seam: awaited at the named points of a contended acquire (`read`:
 * the lock's text read; `judged`: the lock judged stale, before it is taken
 * over), where a test plays what a competing process does in between.
 */
export type LockStep = (at: "read" | "judged") => Promise<void> | void;

/** A file gone (ENOENT) as null; any other failure rethrown. */
function gone(e: unknown): null {
  if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
  throw e;
}

/** A cache lock's staleness (the module's rule); `watch`: the waiter's, none for a look. */
function staleText(text: string, st: LockId, watch?: LockWatch): boolean {
  const m = holderOf(text);
  if (!m) return Date.now() - st.mtimeMs > TORN_MS;
  // the shared rule (R151-1): another host's by its watch; ours by pid, then by our clock
  const holder = { pid: Number(m[1]), host: m[2] };
  return lockStale(holder, st, STALE_MS, { ownIsStale: true, ...(watch ? { watch } : {}) });
}

/**
 * Reads the lock `file` and judges it.
 *
 * @param file the key's lock file
 * @param step test seam
 * @param watch the waiter's watch of the lock (`util/lock_watch.ts`); none:
 *   judged at a glance (a clean)
 * @returns the judgement, or null when the lock went away or changed while
 *   being read (look again)
 * @throws ScoutError `io` naming the lock when it is a symbolic link,
 *   directory, FIFO, device or socket (`util/not_a_lock.ts`): no lock
 */
export async function judgeLock(
  file: string,
  step?: LockStep,
  watch?: LockWatch,
): Promise<JudgedLock | null> {
  // looked at, not through: a link there (dangling: it looked absent) is no lock (R142-1)
  const before = await lstat(file).catch(gone);
  if (before === null) return null;
  refuseNonLock(file, before);
  // a FIFO or device in a lock's place is refused, never read: it would block (R125-4)
  const text = await readRegularFile(file).then((b) => new TextDecoder().decode(b)).catch(gone);
  if (text === null) return null;
  if (step) await step("read");
  // another lock since the first look (or this one written to): no judgement
  const after = await lstat(file).catch(gone);
  return judgeRead(before, text, after, (t, id) => staleText(t, id, watch));
}
