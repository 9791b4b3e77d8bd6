/**
 * Cleaning jobs (`workflow.md` §4): one job's result, info and files, or a
 * job and its dependencies depth-first.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { ScoutError } from "../errors.ts";
import type { Job } from "./job_types.ts";
import { isDone } from "./context.ts";
import { filesDir, infoPath, tmpPath } from "./store.ts";
import { jobState } from "./state.ts";
import { inputDeps } from "./outdated.ts";
import type { HeldLock } from "./lock.ts";
import { acquireJobLock } from "./job_lock.ts";

/** Tells a wait on another process's run of a job past a few seconds. */
export type CleanWaitNotice = (job: Job, lock: string, holder: string) => void;

/** Refuses to clean a job another live process is computing. */
async function refuseRunning(job: Job): Promise<void> {
  if (isDone(job)) return;
  const { running, info } = await jobState(job.path);
  if (running && info?.pid !== process.pid) {
    throw new ScoutError(
      "job_not_finished",
      `Job "${job.shortPath}" is running (pid ${info?.pid}); not cleaning it`,
      { file: job.path },
    );
  }
}

/**
 * Removes a job's result, tmp path, info and files dir. Refuses when the job
 * is running in another live process.
 *
 * @param job the job
 * @throws ScoutError `job_not_finished` when another process is computing it
 */
export async function cleanJob(job: Job): Promise<void> {
  await refuseRunning(job);
  await Promise.all([
    rm(job.path, { force: true }),
    rm(tmpPath(job.path), { force: true, recursive: true }),
    rm(infoPath(job.path), { force: true }),
    rm(filesDir(job.path), { force: true, recursive: true }),
  ]);
}

/**
 * The jobs a clean would remove something of (a result or info), checked as
 * the clean checks them, removing nothing: the job itself, or with
 * `recursive` its dependencies depth-first then the job (§4), jobs known only
 * from disk (no task) left out.
 *
 * @param job the job
 * @param recursive `--recompute`'s recursive clean, else `--clean`'s
 * @returns the jobs, in the order a clean removes them
 * @throws ScoutError `job_not_finished` when another process is computing one
 */
export async function cleanTargets(job: Job, recursive: boolean): Promise<Job[]> {
  const out: Job[] = [];
  for (const j of recursive ? dependenciesFirst(job) : [job]) {
    if (j.task !== null && (existsSync(infoPath(j.path)) || existsSync(j.path))) {
      await refuseRunning(j);
      out.push(j);
    }
  }
  return out;
}

/**
 * Recursive clean (§4): dependencies depth-first, then the job if it has
 * info or a result. Jobs known only from disk (no task) are left alone.
 * [TS-FIX] R148-2: judged with the jobs' persist locks held
 * ({@link cleanLocked}), so a job another process is computing is waited
 * for and kept when that run leaves it done, and a dependency is never
 * removed under another process's run of a job that reads it.
 *
 * @param job the job
 * @param onLongWait tells a wait on another process past a few seconds
 */
export async function cleanJobRecursive(job: Job, onLongWait?: CleanWaitNotice): Promise<void> {
  await cleanLocked(dependenciesFirst(job), onLongWait);
}

/**
 * {@link cleanJob} for `--clean`: a job another process is computing is
 * waited for, and kept when that run leaves it done ({@link cleanLocked}).
 *
 * @param job the job
 * @param onLongWait tells a wait on another process past a few seconds
 */
export async function cleanJobWaiting(job: Job, onLongWait?: CleanWaitNotice): Promise<void> {
  await cleanLocked([job], onLongWait);
}

/**
 * Cleans `jobs` (dependencies before the jobs that need them) with the
 * persist locks held of those to clean and of every job of `jobs` that needs
 * one of them, taken {@link byLockOrder}. [TS-FIX] R148-2: another process's
 * run of a job holds its lock from before its dependencies run until it is
 * done, so a dependency it has finished is not removed while it reads it (a
 * `--recompute` started in that moment cleaned it, and the run computed it a
 * second time or failed). A job not done when the clean was asked for and
 * done once its lock is held was computed meanwhile by another process: its
 * result is the fresh one a `--recompute` wants, kept with its dependencies
 * (what it was computed from); the others are cleaned. Several
 * `--recompute`s of one job started together so compute each job once.
 *
 * @throws ScoutError `job_not_finished` when, the lock held, a job's info
 *   still names another live process (one computing it without the lock)
 */
async function cleanLocked(jobs: Job[], onLongWait?: CleanWaitNotice): Promise<void> {
  const hasSome = (j: Job) =>
    j.task !== null && (existsSync(infoPath(j.path)) || existsSync(j.path));
  const locking = new Set<string>();
  for (const j of jobs) {
    if (hasSome(j) || children(j).some((c) => locking.has(c.path))) locking.add(j.path);
  }
  if (locking.size === 0) return;
  const pending = new Set(jobs.filter((j) => !isDone(j)).map((j) => j.path));
  const held: HeldLock[] = [];
  try {
    for (const j of byLockOrder(jobs.filter((j) => locking.has(j.path)))) {
      held.push(
        await acquireJobLock(j.path, j.store.lockDir, {
          onLongWait: (file, holder) => onLongWait?.(j, file, holder),
        }),
      );
    }
    const keep = new Set<string>();
    for (const j of [...jobs].reverse()) {
      if (keep.has(j.path) || (pending.has(j.path) && isDone(j))) {
        keep.add(j.path);
        for (const c of children(j)) keep.add(c.path);
      }
    }
    for (const j of jobs) if (!keep.has(j.path) && hasSome(j)) await cleanJob(j);
  } finally {
    for (const lock of held.reverse()) lock.release();
  }
}

/**
 * Jobs in the order their locks are taken: a job before its dependencies (as
 * a run takes them), by height (its longest chain of dependencies), then by
 * path — one order for every process whatever job it cleans, so two never
 * wait on each other's locks.
 */
function byLockOrder(jobs: Job[]): Job[] {
  const height = new Map<string, number>();
  const heightOf = (j: Job) => height.get(j.path) ?? 0;
  // dependencies first: a job's are measured before it
  for (const j of jobs) height.set(j.path, 1 + Math.max(0, ...children(j).map(heightOf)));
  return [...jobs].sort((a, b) =>
    heightOf(b) - heightOf(a) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)
  );
}

/** A job's dependencies: declared, then input jobs. */
function children(j: Job): Job[] {
  return [...j.deps, ...inputDeps(j)];
}

/**
 * A job and its dependencies (declared, then input jobs), each once,
 * dependencies depth-first before the job that needs them — walked on an
 * explicit stack, so a chain as deep as memory allows is walked (a recursive
 * walk ran the stack out at a few thousand levels under Deno).
 */
function dependenciesFirst(root: Job): Job[] {
  const out: Job[] = [];
  const seen = new Set<string>([root.path]);
  const stack = [{ job: root, next: children(root), i: 0 }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.i < top.next.length) {
      const d = top.next[top.i++]!;
      if (seen.has(d.path)) continue;
      seen.add(d.path);
      stack.push({ job: d, next: children(d), i: 0 });
    } else {
      stack.pop();
      out.push(top.job);
    }
  }
  return out;
}
