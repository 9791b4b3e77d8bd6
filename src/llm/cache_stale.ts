/**
 * When a cache lock another holder left may be taken over, and the takeover
 * (`cache_lock.ts`). A waiter judges the lock it reads — the file as stat'ed
 * before and after reading its text, so the text is that file's — and takes
 * over only that file: under the gate `<key>.lock.takeover`, created
 * exclusively, it looks at the lock again and removes it only if it is still
 * the file judged (inode, size, change and modification times), so a lock
 * another waiter took after the same judgement is never removed. The gate is
 * held for a few synchronous file calls; one older than {@link GATE_CRASHED_MS}
 * is a crashed taker's and is removed.
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
import { closeSync, openSync, type Stats, statSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { hostname } from "node:os";
import { pidAlive } from "../util/process.ts";
import { STALE_MS } from "./cache_heartbeat.ts";
import { unlinkQuiet } from "./cache_holder.ts";

/** A lock whose text is no holder is stale once untouched this long (a crash mid-store). */
export const TORN_MS = 5_000;

/** A takeover gate this old is a crashed taker's (a taker holds it for a few file calls). */
export const GATE_CRASHED_MS = 10_000;

/** What tells one lock file from another across two looks at its path. */
type LockId = Pick<Stats, "ino" | "size" | "mtimeMs" | "ctimeMs">;

/** A lock as a waiter read it. */
export interface JudgedLock {
  /** Its text: the holder, `<pid>@<host>`, or (a created lock) an entry being stored. */
  text: string;
  /** Whether it may be taken over. */
  stale: boolean;
  /** The file the text was read from. */
  id: LockId;
}

/**
 * A test seam: awaited at the named points of a contended acquire (`read`:
 * the lock's text read; `judged`: the lock judged stale, before it is taken
 * over), where a test plays what a competing process does in between.
 */
export type LockStep = (at: "read" | "judged") => Promise<void> | void;

function sameLock(a: LockId, b: LockId): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs &&
    a.ctimeMs === b.ctimeMs;
}

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
 * The holder a lock's text names, as `[text, pid, host]`.
 *
 * @param text the lock's text
 * @returns the match, or null when the text is no holder
 */
export function holderOf(text: string): RegExpExecArray | null {
  return /^(\d+)@(.+)$/.exec(text);
}

/**
 * Reads the lock `file` and judges it.
 *
 * @param file the key's lock file
 * @param step test seam
 * @returns the judgement, or null when the lock went away or changed while
 *   being read (look again)
 */
export async function judgeLock(file: string, step?: LockStep): Promise<JudgedLock | null> {
  const before = await stat(file).catch(gone);
  if (before === null) return null;
  const text = await readFile(file, "utf8").catch(gone);
  if (text === null) return null;
  if (step) await step("read");
  const after = await stat(file).catch(gone);
  // another lock since the first look (or this one written to): the text may be either's
  if (after === null || !sameLock(before, after)) return null;
  return { text, stale: staleText(text, after), id: after };
}

/** Removes a takeover gate left by a crashed taker. */
function clearCrashedGate(gate: string): void {
  const st = statSync(gate, { throwIfNoEntry: false });
  if (st !== undefined && Date.now() - st.mtimeMs > GATE_CRASHED_MS) unlinkQuiet(gate);
}

/**
 * Removes the lock judged stale if it is still that file, one taker at a
 * time (the gate `<file>.takeover`). Synchronous: nothing of this process
 * runs while the gate is held.
 *
 * @param file the key's lock file
 * @param judged the lock as judged stale
 * @returns false when another taker holds the gate (try again later), true
 *   when the lock is no longer the one judged (try to take it at once)
 */
export function takeOver(file: string, judged: JudgedLock): boolean {
  const gate = `${file}.takeover`;
  let fd: number;
  try {
    fd = openSync(gate, "wx");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return true; // the directory went away: the lock with it
    if (code !== "EEXIST") throw e;
    clearCrashedGate(gate);
    return false;
  }
  try {
    const now = statSync(file, { throwIfNoEntry: false });
    if (now !== undefined && sameLock(now, judged.id)) unlinkQuiet(file);
  } finally {
    closeSync(fd);
    unlinkQuiet(gate);
  }
  return true;
}
