/**
 * When a cache lock another holder left may be taken over (`cache_lock.ts`).
 * The judgement of a lock read between two looks at it, and the takeover of
 * only the file judged, one taker at a time, are `util/stale_takeover.ts`'s
 * (shared with the registry's lock, `util/file_lock.ts`); here is what makes
 * a cache lock stale, and the asynchronous read with its test seam.
 *
 * A lock is stale when its holder (`<pid>@<host>`) is a dead process of this
 * host, or this process (which never waits on a key it holds: a lock naming it
 * is an earlier process's with the same pid), or — any host — when it has had
 * no heartbeat for {@link STALE_MS} (`cache_heartbeat.ts`: a holder killed on
 * another host, or a pid of this host reused by an unrelated process); a lock
 * whose text is no holder (being created, being stored over, or a crash in
 * between) once untouched for {@link TORN_MS}.
 *
 * @module
 */
import { stat } from "node:fs/promises";
import { hostname } from "node:os";
import { pidAlive } from "../util/process.ts";
import { readRegularFile } from "../util/regular_file.ts";
import { holderOf, type JudgedLock, judgeRead, type LockId } from "../util/stale_takeover.ts";
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

function staleText(text: string, st: LockId): boolean {
  const age = Date.now() - st.mtimeMs;
  const m = holderOf(text);
  if (m) {
    const pid = Number(m[1]);
    if (m[2] === hostname() && (pid === process.pid || !pidAlive(pid))) return true;
    return age > STALE_MS; // no heartbeat: killed elsewhere, or its pid reused here
  }
  return age > TORN_MS;
}

/**
 * Reads the lock `file` and judges it.
 *
 * @param file the key's lock file
 * @param step test seam
 * @returns the judgement, or null when the lock went away or changed while
 *   being read (look again)
 * @throws ScoutError `io` naming the lock when it is a FIFO, device or socket
 */
export async function judgeLock(file: string, step?: LockStep): Promise<JudgedLock | null> {
  const before = await stat(file).catch(gone);
  if (before === null) return null;
  // a FIFO or device in a lock's place is refused, never read: it would block (R125-4)
  const text = await readRegularFile(file).then((b) => new TextDecoder().decode(b)).catch(gone);
  if (text === null) return null;
  if (step) await step("read");
  // another lock since the first look (or this one written to): no judgement
  return judgeRead(before, text, await stat(file).catch(gone), staleText);
}
