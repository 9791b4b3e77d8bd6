/**
 * Where a job's persist lock is taken when `$SCOUT_HOME` refuses it (R166-2).
 * A job locks in `$SCOUT_HOME/tmp/persist_locks` (`workflow.md` §3.4, shared
 * with Scout). When that directory cannot be made or written (a home mounted
 * read-only on a compute node, another user's), the job locks in its jobs
 * root instead: `<root>/.persist_locks`, a dot directory no store listing
 * reads — the same place for every process that cannot write the home, so
 * those still take turns. A process locking in the home must still exclude
 * one locking in the root, and neither can rely on the other's directory
 * alone; each takes its own lock and then looks at the other's (set, then
 * look: of two processes, at least one sees the other's lock):
 *
 * - in the home: after taking its lock, it waits while the job's lock in
 *   `<root>/.persist_locks` is held (one stat when there is none);
 * - in the root: after taking its lock, if the job's lock in the home is
 *   held, it lets its own go, waits until the home's is gone, and starts
 *   again. Only this side gives way, so two never wait on each other.
 *
 * Scout (which knows only the home's) is excluded by a root locker's look at
 * the home, not the other way round; docs/design-notes.md has the reasoning.
 *
 * @module
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { ScoutError } from "../errors.ts";
import { errnoReason } from "../util/errno_text.ts";
import { refusedByFileSystem } from "../util/fs_refused.ts";
import type { JudgedLock, StaleTest } from "../util/stale_takeover.ts";
import { warnOnce } from "../util/warn_once.ts";
import {
  acquireLock,
  acquireLockFile,
  type HeldLock,
  judgePersist,
  type LockOptions,
  sleep,
  waitTeller,
  watchedStale,
} from "./lock.ts";
import { lockPathFor, rootOf } from "./store.ts";

/**
 * The lock directory of a job's jobs root, used when the home refuses its own.
 *
 * @param jobPath absolute result path
 * @returns `<root>/.persist_locks`
 *
 * @example
 * ```ts
 * import { rootLockDir } from "./job_lock.ts";
 * rootLockDir("/scratch/jobs/Baking/cake/Default"); // "/scratch/jobs/.persist_locks"
 * ```
 */
export function rootLockDir(jobPath: string): string {
  return join(rootOf(jobPath), ".persist_locks");
}

/**
 * The OS error of a home lock directory that refuses locks as a whole
 * (read-only, no permission, a path through a file); a full disk is not one
 * (its error names the lock, the user frees space).
 */
function homeRefusal(e: unknown): NodeJS.ErrnoException | null {
  const errno = refusedByFileSystem(e);
  return errno === null || errno.code === "ENOSPC" || errno.code === "EDQUOT" ? null : errno;
}

/**
 * Acquires a job's persist lock: in `homeLockDir`, or — when that refuses
 * it — in {@link rootLockDir}, telling so once per home and root; either way
 * excluding a process that locks the job in the other place.
 *
 * @param jobPath absolute result path
 * @param homeLockDir `$SCOUT_HOME/tmp/persist_locks`
 * @param opts timeout and wait callbacks (as {@link acquireLock})
 * @returns the held lock
 * @throws ScoutError `lock_timeout`; `io` when neither place can hold the lock
 */
export async function acquireJobLock(
  jobPath: string,
  homeLockDir: string,
  opts: LockOptions = {},
): Promise<HeldLock> {
  const deadline = opts.timeoutMs === undefined ? undefined : Date.now() + opts.timeoutMs;
  let held: HeldLock;
  try {
    held = await acquireLock(jobPath, homeLockDir, opts);
  } catch (e) {
    const refused = homeRefusal(e);
    if (refused === null) throw e;
    return await lockInRoot(jobPath, homeLockDir, refused, { ...opts, deadline });
  }
  try {
    await waitWhileHeld(lockPathFor(jobPath, rootLockDir(jobPath)), { ...opts, deadline });
  } catch (e) {
    held.release();
    throw e;
  }
  return held;
}

/** Lock options with an absolute deadline in place of a timeout. */
type Waiting = Omit<LockOptions, "timeoutMs"> & { deadline: number | undefined };

/** The job's lock in its root, given way while the home's is held (a home locker). */
async function lockInRoot(
  jobPath: string,
  homeLockDir: string,
  refused: NodeJS.ErrnoException,
  opts: Waiting,
): Promise<HeldLock> {
  const dir = rootLockDir(jobPath);
  try {
    await mkdir(dir, { recursive: true });
  } catch (e) {
    throw bothRefused(jobPath, homeLockDir, refused, e);
  }
  warnOnce(
    `root-lock\0${homeLockDir}\0${dir}`,
    `Cannot lock jobs in "${homeLockDir}" (${errnoReason(refused)}): ` +
      `locking the jobs of "${rootOf(jobPath)}" in "${dir}" instead`,
  );
  const homeLock = lockPathFor(jobPath, homeLockDir);
  const isStale = watchedStale(); // one watch: another host's home lock goes stale only so
  for (;;) {
    const left = opts.deadline === undefined ? undefined : Math.max(0, opts.deadline - Date.now());
    let held: HeldLock;
    try {
      held = await acquireLockFile(lockPathFor(jobPath, dir), {
        ...opts,
        ...(left !== undefined ? { timeoutMs: left } : {}),
      });
    } catch (e) {
      if (homeRefusal(e) !== null) throw bothRefused(jobPath, homeLockDir, refused, e);
      throw e;
    }
    if (!heldLive(homeLock, isStale)) return held;
    held.release(); // a home locker has the job: it never waits on us while holding its lock
    await waitWhileHeld(homeLock, opts, isStale);
  }
}

/** The error of a job no place can lock: names the home, why, and what to set. */
function bothRefused(
  jobPath: string,
  homeLockDir: string,
  home: NodeJS.ErrnoException,
  e: unknown,
): ScoutError {
  return new ScoutError(
    "io",
    `Cannot lock the job "${jobPath}": SCOUT_HOME's "${homeLockDir}" refuses it ` +
      `(${errnoReason(home)}), and so does "${rootLockDir(jobPath)}" (${errnoReason(e)}); ` +
      `set SCOUT_HOME to a writable directory`,
    { file: jobPath, cause: e },
  );
}

/**
 * Lock file `path` when a live holder has it; null when it is absent, stale,
 * or in a directory this process cannot look into (a home not its own: no
 * lock there it could ever see).
 */
function heldLive(path: string, isStale: StaleTest): JudgedLock | null {
  let judged: JudgedLock | null;
  try {
    judged = judgePersist(path, isStale);
  } catch (e) {
    if (refusedByFileSystem(e) !== null) return null;
    throw e;
  }
  return judged === null || judged.stale ? null : judged;
}

/**
 * Waits while lock file `path` is held by a live holder (absent or stale:
 * done at once), with the wait callbacks and deadline of a lock wait.
 *
 * @throws ScoutError `lock_timeout` past the deadline
 */
async function waitWhileHeld(
  path: string,
  opts: Waiting,
  isStale = watchedStale(),
): Promise<void> {
  const tell = waitTeller(path, opts, Date.now());
  let delay = 5;
  for (;;) {
    const judged = heldLive(path, isStale);
    if (judged === null) return;
    tell(judged);
    if (opts.deadline !== undefined && Date.now() > opts.deadline) {
      throw new ScoutError("lock_timeout", `Timed out waiting for lock "${path}"`, { file: path });
    }
    await sleep(delay);
    delay = Math.min(250, Math.ceil(delay * 1.5));
  }
}
