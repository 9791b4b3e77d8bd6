/**
 * The jobs of a store as `system clean` sees them (`workflow.md` §2.5):
 * every job of every workflow and task directory of the jobs roots, with
 * its info and when it was last used. Reads only: the result file is
 * stat'ed, never read, so a scan leaves its access time alone.
 *
 * @module
 */
import { readdirSync, realpathSync } from "node:fs";
import { basename, join } from "node:path";
import { statsOf } from "../util/fs.ts";
import { infoPath, jobsIn, shortPath } from "./store.ts";
import { type JobInfo, readJobInfoSync } from "./info.ts";

/** A job found in a store. */
export interface StoreJob {
  /** Result path, as spelled under its jobs root (the spelling its lock is named by). */
  path: string;
  /** The same path through the real path of its task directory (provenance's spelling). */
  canonical: string;
  /**
   * Every spelling of it the clean knows — `path`, through each root that is
   * the same directory, and `canonical` — each naming a persist lock a run may
   * hold (R123-1).
   */
  spellings: string[];
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

function realDir(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

/** Where a job lies: its root (and the other spellings of that root), its task directory's real path, its scope. */
interface JobPlace {
  root: string;
  aliases: readonly string[];
  realTaskDir: string;
  inScope: boolean;
}

/**
 * One job of a task directory; null for a name that is no job: a directory
 * without an `.info` (a job name with a `/` made it, or anything else).
 */
function readJob(path: string, where: JobPlace): StoreJob | null {
  const result = statsOf(path);
  const info = statsOf(infoPath(path));
  if (info === null && (result === null || result.isDirectory())) return null;
  const read = info !== null ? readJobInfoSync(path) : { info: null, problem: null };
  const used = Math.max(
    result?.mtimeMs ?? 0,
    result?.atimeMs ?? 0,
    info?.mtimeMs ?? 0,
  );
  const canonical = join(where.realTaskDir, basename(path));
  const rel = path.slice(where.root.length);
  const spellings = [path, ...where.aliases.map((a) => a + rel), canonical];
  return {
    path,
    canonical,
    spellings: [...new Set(spellings)],
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
  const now = readJob(job.path, {
    root: job.root,
    aliases: [],
    realTaskDir,
    inScope: job.inScope,
  });
  return now === null ? null : { ...now, spellings: job.spellings };
}

/**
 * The jobs roots, each directory once (by real path; its first spelling
 * kept), with the other spellings of each.
 *
 * @param roots jobs roots, as spelled
 * @returns root → its other spellings, in the order given
 */
export function distinctRoots(roots: readonly string[]): Map<string, string[]> {
  const byReal = new Map<string, string>();
  const out = new Map<string, string[]>();
  for (const root of roots) {
    const real = realDir(root);
    const first = byReal.get(real);
    if (first === undefined) {
      byReal.set(real, root);
      out.set(root, []);
    } else if (first !== root && !out.get(first)!.includes(root)) out.get(first)!.push(root);
  }
  return out;
}

/**
 * Every job of the jobs roots, each directory once however it is spelled
 * (R123-1: two spellings of one root listed its jobs twice, and a clean
 * removed under one spelling the job it kept under the other):
 * `<root>/<Workflow>/<task>/<name>`.
 * Jobs outside `scope` are listed too (`inScope` false): a job that stays
 * keeps its dependencies, wherever they are.
 *
 * @param roots jobs roots
 * @param scope the workflows and tasks to clean
 * @returns the jobs, by root, workflow, task and name
 */
export function scanStore(roots: readonly string[], scope: StoreScope): StoreJob[] {
  const out: StoreJob[] = [];
  for (const [root, aliases] of distinctRoots(roots)) {
    for (const wf of subdirs(root)) {
      for (const task of subdirs(join(root, wf))) {
        const taskDir = join(root, wf, task);
        const inScope = (scope.workflows === null || scope.workflows.includes(wf)) &&
          (scope.tasks === null || scope.tasks.includes(task));
        const where = { root, aliases, realTaskDir: realDir(taskDir), inScope };
        for (const path of jobsIn(taskDir)) {
          const job = readJob(path, where);
          if (job !== null) out.push(job);
        }
      }
    }
  }
  return out;
}
