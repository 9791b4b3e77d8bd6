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
import { acquireLock } from "./lock.ts";

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
 * [TS-FIX] R148-2: a job another live process is computing, waited for (its
 * persist lock taken, then let go) instead of refused: when that run ends
 * with the job done, its result was computed after this clean was asked for,
 * so it is the fresh result a `--recompute` wants and is kept; else (it
 * failed) the job is cleaned. Several `--recompute`s of one job started
 * together so compute it once, and all succeed with that result.
 *
 * @returns whether the job was computed meanwhile (true: keep it)
 * @throws ScoutError `job_not_finished` when, the lock held, its info still
 *   names another live process (one computing it without the lock)
 */
async function awaitRunning(job: Job, onLongWait?: CleanWaitNotice): Promise<boolean> {
  if (isDone(job)) return false;
  const { running, info } = await jobState(job.path);
  if (!running || info?.pid === process.pid) return false;
  const lock = await acquireLock(job.path, job.store.lockDir, {
    onLongWait: (file, holder) => onLongWait?.(job, file, holder),
  });
  try {
    if (isDone(job)) return true;
    await refuseRunning(job);
    return false;
  } finally {
    lock.release();
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
 * info or a result. Jobs known only from disk (no task) are left alone. One
 * another process is computing is waited for, and kept when that run leaves
 * it done ({@link awaitRunning}).
 *
 * @param job the job
 * @param onLongWait tells a wait on another process past a few seconds
 */
export async function cleanJobRecursive(job: Job, onLongWait?: CleanWaitNotice): Promise<void> {
  for (const j of dependenciesFirst(job)) {
    if (j.task === null || !(existsSync(infoPath(j.path)) || existsSync(j.path))) continue;
    if (!await awaitRunning(j, onLongWait)) await cleanJob(j);
  }
}

/**
 * {@link cleanJob} for `--clean`: a job another process is computing is
 * waited for, and kept when that run leaves it done ({@link awaitRunning}).
 *
 * @param job the job
 * @param onLongWait tells a wait on another process past a few seconds
 */
export async function cleanJobWaiting(job: Job, onLongWait?: CleanWaitNotice): Promise<void> {
  if (!await awaitRunning(job, onLongWait)) await cleanJob(job);
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
  const children = (j: Job) => [...j.deps, ...inputDeps(j)];
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
