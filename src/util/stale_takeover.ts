/**
 * Taking over a lock file another holder left stale without removing a lock
 * another waiter took meanwhile (R73-2, R78-1). A waiter judges the lock it
 * read — the file as stat'ed before and after reading its text, so the text
 * is that file's — and takes over only that file: under the gate
 * `<lock>.takeover`, created exclusively, it looks at the lock again and
 * removes it only if it is still the file judged (inode, size, change and
 * modification times). Two waiters that judged the same dead lock thus never
 * both remove a lock: the second finds the first one's new lock, not the file
 * it judged. The gate is held for a few synchronous file calls; one older than
 * {@link GATE_CRASHED_MS} is a crashed taker's and is removed.
 *
 * What makes a lock stale is the caller's (the inference cache's per-key
 * locks, `llm/cache_stale.ts`; a registry's lock, `file_lock.ts`).
 *
 * @module
 */
import { closeSync, lstatSync, openSync, type Stats, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { unlinkQuiet } from "./fs.ts";
import { fitBytes, NAME_MAX } from "./name_bytes.ts";
import { readRegularTextSync } from "./regular_file.ts";
import { refuseNonLock } from "./not_a_lock.ts";

/** A takeover gate this old is a crashed taker's (a taker holds it for a few file calls). */
export const GATE_CRASHED_MS = 10_000;

/** What tells one lock file from another across two looks at its path. */
export type LockId = Pick<Stats, "ino" | "size" | "mtimeMs" | "ctimeMs">;

/** A lock as a waiter read it. */
export interface JudgedLock {
  /** Its text (typically its holder, `<pid>@<host>`). */
  text: string;
  /** Whether it may be taken over. */
  stale: boolean;
  /** The file the text was read from. */
  id: LockId;
}

/** Whether a lock whose text is `text` and whose file is `id` may be taken over. */
export type StaleTest = (text: string, id: LockId) => boolean;

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
 * Whether two looks at a lock's path saw the same file, unchanged.
 *
 * @param a one look
 * @param b another
 * @returns true when inode, size and times agree
 */
export function sameLock(a: LockId, b: LockId): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs &&
    a.ctimeMs === b.ctimeMs;
}

/**
 * The judgement of a lock read between two looks at it: none when it went
 * away or changed in between (the text may be either file's: look again).
 *
 * @param before the lock's stats before its text was read (null: gone)
 * @param text its text (null: gone)
 * @param after its stats after (null: gone)
 * @param isStale the caller's staleness rule
 * @returns the judgement, or null
 */
export function judgeRead(
  before: LockId | null,
  text: string | null,
  after: LockId | null,
  isStale: StaleTest,
): JudgedLock | null {
  if (before === null || text === null || after === null || !sameLock(before, after)) return null;
  return { text, stale: isStale(text, after), id: after };
}

/**
 * A file's text, or null when it is gone (any other failure rethrown: a FIFO,
 * device or socket in a lock's place is refused, never read, R125-4).
 */
function readQuiet(file: string): string | null {
  try {
    return readRegularTextSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
}

/**
 * Reads the lock `file` and judges it, synchronously. Its path is looked at
 * without following a link (`lstat`): a symbolic link or a directory there is
 * no lock, refused ([TS-FIX] R142-1: a dangling link looked like no lock at
 * all, and its waiter tried again for ever; `not_a_lock.ts`).
 *
 * @param file the lock file
 * @param isStale the caller's staleness rule
 * @param read test seam: runs after the text is read, before the second look
 * @returns the judgement, or null when the lock went away or changed while being read
 * @throws ScoutError `io` (`regular_file.ts`'s `notRegularKind`) when the lock
 *   is a symbolic link, directory, FIFO, device or socket: no lock that can be judged
 */
export function judgeLockSync(
  file: string,
  isStale: StaleTest,
  read?: () => void,
): JudgedLock | null {
  const before = lstatSync(file, { throwIfNoEntry: false }) ?? null;
  if (before === null) return null;
  refuseNonLock(file, before);
  const text = readQuiet(file);
  read?.();
  return judgeRead(before, text, lstatSync(file, { throwIfNoEntry: false }) ?? null, isStale);
}

/**
 * The takeover gate of lock `file`: `<file>.takeover`, or, when that name
 * would pass 255 bytes (a lock name near the limit, R102-7), the lock's name
 * shortened by bytes with the md5 of what was cut (`name_bytes.ts`) and then
 * `.takeover` — the same gate for every taker of that lock.
 *
 * @param file the lock file
 * @returns the gate's path
 *
 * @example
 * ```ts
 * import { takeoverGate } from "./stale_takeover.ts";
 * takeoverGate("/l/x.lock"); // "/l/x.lock.takeover"
 * ```
 */
export function takeoverGate(file: string): string {
  const name = basename(file);
  const fitted = fitBytes(name, NAME_MAX - ".takeover".length);
  return fitted === name ? `${file}.takeover` : join(dirname(file), `${fitted}.takeover`);
}

/** Removes a takeover gate left by a crashed taker. */
function clearCrashedGate(gate: string): void {
  const st = statSync(gate, { throwIfNoEntry: false });
  if (st !== undefined && Date.now() - st.mtimeMs > GATE_CRASHED_MS) unlinkQuiet(gate);
}

/**
 * Removes the lock judged stale if it is still that file, one taker at a
 * time (the gate `<file>.takeover`, {@link takeoverGate}). Synchronous: nothing of this process
 * runs while the gate is held.
 *
 * @param file the lock file
 * @param judged the lock as judged stale
 * @returns false when another taker holds the gate (try again later), true
 *   when the lock is no longer the one judged (try to take it at once)
 */
export function takeOver(file: string, judged: Pick<JudgedLock, "id">): boolean {
  const gate = takeoverGate(file);
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
    // a link swapped in meanwhile is not the file judged (its target's stats would be)
    const now = lstatSync(file, { throwIfNoEntry: false });
    if (now !== undefined && sameLock(now, judged.id)) unlinkQuiet(file);
  } finally {
    closeSync(fd);
    unlinkQuiet(gate);
  }
  return true;
}
