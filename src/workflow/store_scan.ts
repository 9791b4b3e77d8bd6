/**
 * The jobs of a store as `system clean` sees them (`workflow.md` §2.5):
 * every job of every workflow and task directory of the jobs roots, with
 * its info and when it was last used. Reads only: the result file is
 * stat'ed, never read, so a scan leaves its access time alone.
 *
 * @module
 */
import { readdirSync, realpathSync, type Stats, statSync } from "node:fs";
import { basename, join } from "node:path";
import { infoPath, jobsIn, shortPath } from "./store.ts";
import { type JobInfo, readJobInfoSync } from "./info.ts";

/** A job found in a store. */
export interface StoreJob {
  /** Result path, as spelled under its jobs root (the spelling its lock is named by). */
  path: string;
  /** The same path through the real path of its task directory (provenance's spelling). */
  canonical: string;
  /** `Workflow/task/name`. */
  shortPath: string;
  /** The jobs root it lies in. */
  root: string;
  /** Among the workflows and tasks asked for (the others are read for their dependencies only). */
  inScope: boolean;
  /** Its result exists. */
  done: boolean;
  /** Its info (null: no `.info`; `{status: "noinfo"}` when unreadable). */
  info: JobInfo | null;
  /** Why the info could not be read, or null. */
  problem: string | null;
  /** When it was last used (ms): the newest of the result's modification and access, the info's modification. */
  lastUsedMs: number;
}

/** Which workflows and tasks are cleaned (null: every one). */
export interface StoreScope {
  /** Workflow names, or null for every workflow. */
  workflows: readonly string[] | null;
  /** Task names, or null for every task. */
  tasks: readonly string[] | null;
}

/** The entries of a directory that are directories (dot names left out); none when it cannot be listed. */
function subdirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => !e.name.startsWith(".") && (e.isDirectory() || e.isSymbolicLink()))
      .map((e) => e.name).sort();
  } catch {
    return []; // no such root (or not one to list): no jobs there
  }
}

function stats(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

function realDir(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

/**
 * One job of a task directory; null for a name that is no job: a directory
 * without an `.info` (a job name with a `/` made it, or anything else).
 */
function readJob(
  path: string,
  where: { root: string; realTaskDir: string; inScope: boolean },
): StoreJob | null {
  const result = stats(path);
  const info = stats(infoPath(path));
  if (info === null && (result === null || result.isDirectory())) return null;
  const read = info !== null ? readJobInfoSync(path) : { info: null, problem: null };
  const used = Math.max(
    result?.mtimeMs ?? 0,
    result?.atimeMs ?? 0,
    info?.mtimeMs ?? 0,
  );
  return {
    path,
    canonical: join(where.realTaskDir, basename(path)),
    shortPath: shortPath(path),
    root: where.root,
    inScope: where.inScope,
    done: result !== null,
    info: read.info,
    problem: read.problem,
    lastUsedMs: used,
  };
}

/**
 * A job read again from disk (its status, info and use may have changed
 * since it was listed).
 *
 * @param job the job as listed
 * @returns the job as it is now, or null when nothing of it is left
 */
export function rereadJob(job: StoreJob): StoreJob | null {
  const realTaskDir = job.canonical.slice(0, job.canonical.length - basename(job.path).length - 1);
  return readJob(job.path, { root: job.root, realTaskDir, inScope: job.inScope });
}

/**
 * Every job of the jobs roots, each root once: `<root>/<Workflow>/<task>/<name>`.
 * Jobs outside `scope` are listed too (`inScope` false): a job that stays
 * keeps its dependencies, wherever they are.
 *
 * @param roots jobs roots
 * @param scope the workflows and tasks to clean
 * @returns the jobs, by root, workflow, task and name
 */
export function scanStore(roots: readonly string[], scope: StoreScope): StoreJob[] {
  const out: StoreJob[] = [];
  for (const root of new Set(roots)) {
    for (const wf of subdirs(root)) {
      for (const task of subdirs(join(root, wf))) {
        const taskDir = join(root, wf, task);
        const inScope = (scope.workflows === null || scope.workflows.includes(wf)) &&
          (scope.tasks === null || scope.tasks.includes(task));
        const where = { root, realTaskDir: realDir(taskDir), inScope };
        for (const path of jobsIn(taskDir)) {
          const job = readJob(path, where);
          if (job !== null) out.push(job);
        }
      }
    }
  }
  return out;
}
