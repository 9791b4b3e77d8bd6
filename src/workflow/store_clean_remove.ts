/**
 * Removing the jobs a store clean planned (`store_clean.ts`), one at a time
 * under the job's persist lock, as the runner takes it (`lock.ts`): a job
 * whose lock is held — a run of it in another process, ours or Scout's — is
 * skipped, and one the runner waits for is computed again once the lock is
 * released. Under the lock the job is judged again from disk (it may have
 * been run or used since it was listed), then its result goes first (the job
 * is no longer done), its tmp result, `.files/` and sidecars (`.md5`, `.pid`,
 * `.notify`), its `.info` last. Task and workflow directories are never
 * removed: a run creating a job in one must find it there. A job that stays at its turn keeps its dependencies;
 * one whose `.info` cannot be read (its dependencies unknown) keeps every
 * done job after it (such jobs come first; R124-1).
 *
 * @module
 */
import { lstatSync, readdirSync, realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { ScoutError } from "../errors.ts";
import { type HeldLock, sweepStaleLock } from "./lock.ts";
import { acquireJobLock } from "./job_lock.ts";
import { filesDir, infoPath, lockPathFor, tmpPath } from "./store.ts";
import { inRealDir, pathIn, removeHere } from "../util/pinned_dir.ts";
import { notRegularKind } from "../util/regular_file.ts";
import { nonLockKind } from "../util/not_a_lock.ts";
import { directoryNames, jobBytes, sidecarsOf } from "./store_job_files.ts";
import type { StoreJob } from "./store_scan.ts";
import {
  type CleanTarget,
  type JobIndex,
  type KeptJob,
  mayBeDependencyOf,
  recursiveDependencies,
  unknownDependenciesWarning,
} from "./store_clean_deps.ts";

/** A job removed (or, in a dry run, that would be). */
export interface RemovedJob {
  /** The job as listed. */
  job: StoreJob;
  /** The status it went for. */
  status: string;
  /** Bytes its files held (result, info, `.files/`, tmp result). */
  bytes: number;
}

/** A job that could not be removed. */
export interface FailedJob {
  /** The job. */
  job: StoreJob;
  /** Why (one line). */
  error: string;
}

/** What a removal did. */
export interface RemovalOutcome {
  /** Jobs removed, in removal order. */
  removed: RemovedJob[];
  /** Jobs that stayed at their turn, with why. */
  kept: KeptJob[];
  /** Jobs that could not be removed. */
  failed: FailedJob[];
  /** One line per job that stays whose dependencies cannot be known (R124-1). */
  warnings: string[];
}

/** A judgement of a job read again: it goes (with its status), it stays (with why), or nothing to say. */
export type Rejudged =
  | { go: true; status: string }
  | { go: false; status: string; reason: string }
  | null;

/** Options of {@link removeJobs}. */
export interface RemoveJobsOptions {
  /** The persist-lock directory. */
  lockDir: string;
  /** List only: take no lock, remove nothing. */
  dryRun: boolean;
  /** The store's job index (for the dependencies of a job that stays). */
  find: JobIndex;
  /** Judges a job again from disk, its lock held. */
  rejudge: (job: StoreJob) => Rejudged;
  /** Told of each job as it is removed (or would be). */
  onRemoved?: (r: RemovedJob) => void;
}

/**
 * Removes a job's files: the result first (the job is no longer done), its
 * sidecars, the info last. [TS-FIX] (R125-1) By name in its task
 * directory's real path (`util/pinned_dir.ts`), checked when entered: a
 * workflow or task directory another member swaps for a symbolic link after
 * the scan is refused, never followed to the cleaner's own files; a result
 * that is a directory (a task may leave one) is emptied level by level the
 * same way. [TS-FIX] (R124-3) Scout's `Step.clean` leaves `X.md5`, `X.pid`
 * and `X.notify`: a `.md5` left would stand for the digest of the result
 * computed again (`fileMd5` reads it first), and each was listed as a job
 * of its own.
 */
function removeFiles(job: StoreJob): void {
  const dir = dirname(job.canonical);
  const sidecars = sidecarsOf(job.path);
  inRealDir(dir, (d) => {
    for (const path of [job.path, tmpPath(job.path), filesDir(job.path), ...sidecars]) {
      removeHere(basename(path), d);
    }
    removeHere(basename(infoPath(job.path)), d);
  });
}

/**
 * Why a job stays whose persist lock is not a regular file: no run holds it,
 * and none can take it (R125).
 *
 * @param kind what the lock is (`a FIFO`, `a directory`…)
 * @returns the reason the clean gives
 */
export function notALock(kind: string): string {
  return `its lock is not a regular file: ${kind}`;
}

/**
 * What a job's persist lock is, under any of its spellings, when it is not a
 * regular file: a FIFO, device, socket, directory or symbolic link (R142-1:
 * dangling, it looked absent, and the clean's wait on it never ended)
 * another member of a shared store put in its place (R125). A FIFO is never read, so it looked
 * held ("in use"), and one old enough to be stale cannot be taken either: the
 * job stays, and the clean says why.
 *
 * @param job the job
 * @param lockDir the persist-lock directory
 * @param present lock names known to exist (a listing), to spare a stat per job
 * @returns its kind, or null when each lock is a regular file or absent
 */
export function oddLockKind(
  job: StoreJob,
  lockDir: string,
  present?: ReadonlySet<string>,
): string | null {
  for (const path of job.spellings) {
    const lock = lockPathFor(path, lockDir);
    if (present !== undefined && !present.has(basename(lock))) continue;
    let st;
    try {
      st = lstatSync(lock); // a link there is no lock, dangling or not (R142-1)
    } catch {
      continue; // absent, or not to be stat'ed: judged as any lock (lockHeld, then taken)
    }
    const kind = nonLockKind(lock, st);
    if (kind !== null) return kind;
  }
  return null;
}

/**
 * The lock of one spelling of a job, or null when another process holds it.
 * Taken in the lock directory as spelled, as the runs take theirs — even
 * where the sweep did not follow it (another member's link, R125): only
 * there does it exclude a run. Through such a link nothing of this user's is
 * written: the lock is created `O_EXCL` (an existing file, link or FIFO of
 * that name is never opened for writing), refreshed and removed only while
 * it is still the file made; a file already there is removed only when named
 * as this job's persist lock and judged a stale one (`lock.ts`).
 */
async function tryLock(path: string, lockDir: string): Promise<HeldLock | null> {
  try {
    // a run locking in the jobs root (its home read-only, R166-2) is seen too
    return await acquireJobLock(path, lockDir, { timeoutMs: 0 });
  } catch (e) {
    if (e instanceof ScoutError && e.code === "lock_timeout") return null;
    throw e;
  }
}

/**
 * The job's locks under every spelling the clean knows (`StoreJob.spellings`),
 * or null when another process holds one. [TS-FIX] A persist lock is named
 * after the path as a run spells it, so a run through another spelling of
 * the store (a symbolic link) held a lock the clean did not see (R123-1).
 * Taken in order of spelling, none waited for.
 */
async function tryLocks(job: StoreJob, lockDir: string): Promise<HeldLock[] | null> {
  const held: HeldLock[] = [];
  try {
    for (const path of [...job.spellings].sort()) {
      const lock = await tryLock(path, lockDir);
      if (lock === null) {
        for (const l of held) l.release();
        return null;
      }
      held.push(lock);
    }
  } catch (e) {
    for (const l of held) l.release();
    throw e;
  }
  return held;
}

/** One job, its lock held: judged again, then removed; what became of it. */
function underLock(
  t: CleanTarget,
  o: RemoveJobsOptions,
): RemovedJob | { kept: KeptJob } {
  const again = o.rejudge(t.job);
  if (again === null || !again.go) {
    const reason = again === null ? "used or run since it was listed" : again.reason;
    return { kept: { job: t.job, status: again?.status ?? t.status, reason } };
  }
  const bytes = jobBytes(t.job.path);
  removeFiles(t.job);
  return { job: t.job, status: again.status, bytes };
}

/**
 * Removes the planned jobs in order (dependents first). A job whose lock is
 * held, or that judged again stays, keeps its dependencies among those not
 * yet removed; a failure is recorded and the next job tried.
 *
 * @param targets the jobs to remove, dependents first
 * @param o lock directory, dry run, index, the judge
 * @returns what was removed, kept and not removable
 */
export async function removeJobs(
  targets: readonly CleanTarget[],
  o: RemoveJobsOptions,
): Promise<RemovalOutcome> {
  const out: RemovalOutcome = { removed: [], kept: [], failed: [], warnings: [] };
  const protectedNow = new Map<string, string>();
  const blind: StoreJob[] = [];
  const namesOf = directoryNames();
  const stays = (job: StoreJob, reason: string, at: number) => {
    // its dependencies unknown, any done job left could be one (R124-1, keepForUnknownDependencies)
    if (job.problem !== null) {
      blind.push(job);
      const done = targets.slice(at + 1).filter((t) => t.job.done).length;
      if (done > 0) out.warnings.push(unknownDependenciesWarning(job, reason, done));
    }
    for (const d of recursiveDependencies(job, o.find)) {
      if (!protectedNow.has(d)) protectedNow.set(d, job.shortPath);
    }
  };
  for (const [i, t] of targets.entries()) {
    const by = protectedNow.get(t.job.path);
    if (by !== undefined || (blind.length > 0 && t.job.done)) {
      const reason = by !== undefined
        ? `a dependency of ${by}, which stays`
        : mayBeDependencyOf(blind[0]!);
      out.kept.push({ job: t.job, status: t.status, reason });
      stays(t.job, reason, i);
      continue;
    }
    const r = o.dryRun ? listOne(t, namesOf(t.job.path)) : await removeOne(t, o);
    if ("kept" in r) {
      out.kept.push(r.kept);
      stays(t.job, r.kept.reason, i);
    } else if ("error" in r) {
      out.failed.push(r);
      stays(t.job, `cannot be removed: ${r.error}`, i);
    } else {
      out.removed.push(r);
      o.onRemoved?.(r);
    }
  }
  return out;
}

/** One job a dry run would remove, with its size (a job it cannot read is one it could not remove). */
function listOne(t: CleanTarget, names?: ReadonlySet<string>): RemovedJob | FailedJob {
  try {
    return { job: t.job, status: t.status, bytes: jobBytes(t.job.path, names) };
  } catch (e) {
    return { job: t.job, error: (e as Error).message };
  }
}

/** One job: its lock taken (or skipped when held), removed, the lock released. */
async function removeOne(
  t: CleanTarget,
  o: RemoveJobsOptions,
): Promise<RemovedJob | { kept: KeptJob } | FailedJob> {
  let locks: HeldLock[] | null;
  try {
    locks = await tryLocks(t.job, o.lockDir);
  } catch (e) {
    // planted since the plan looked (R125)
    const kind = notRegularKind(e);
    if (kind !== null) return { kept: { job: t.job, status: t.status, reason: notALock(kind) } };
    return { job: t.job, error: `cannot take its lock: ${(e as Error).message}` };
  }
  if (locks === null) {
    return { kept: { job: t.job, status: t.status, reason: "in use: its lock is held" } };
  }
  try {
    return underLock(t, o);
  } catch (e) {
    return { job: t.job, error: (e as Error).message };
  } finally {
    for (const l of locks) l.release();
  }
}

/**
 * Removes the stale locks of a persist-lock directory (Scout's `system
 * clean` removes those of dead processes first): a lock not refreshed for
 * 30 s or whose holder is dead on this host. A held lock stays.
 * [TS-FIX] (R125-2) Only a regular file whose text is a persist lock's
 * (`host:`/`pid:` lines, or empty: a lock being created) is judged; each is
 * judged and removed by name in the directory's real path, entered and
 * checked (`util/pinned_dir.ts`): through a directory swapped for a link
 * meanwhile nothing is removed. The directory's real path is the caller's
 * to find (`util/owned_links.ts`: not through another user's link).
 *
 * @param lockDir the persist-lock directory, as spelled (the locks are named by it)
 * @param dryRun only list them
 * @param realDir its real path (null: not swept); default: its links followed
 * @returns the stale locks (removed unless a dry run)
 */
export function sweepStaleLocks(
  lockDir: string,
  dryRun: boolean,
  realDir: string | null = realOrNull(lockDir),
): string[] {
  if (realDir === null) return [];
  let entries;
  try {
    entries = readdirSync(realDir, { withFileTypes: true });
  } catch {
    return []; // no lock directory yet: no locks
  }
  const names = entries.filter((e) => e.isFile() && e.name.endsWith(".lock")).map((e) => e.name);
  if (names.length === 0) return [];
  return inRealDir(realDir, (d) => {
    const out: string[] = [];
    for (const name of names.sort()) {
      if (sweepStaleLock(pathIn(d, name), dryRun)) out.push(join(lockDir, name));
    }
    return out;
  });
}

function realOrNull(dir: string): string | null {
  try {
    return realpathSync(dir);
  } catch {
    return null; // no lock directory yet
  }
}
