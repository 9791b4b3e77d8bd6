/**
 * The jobs of a store as `system clean` sees them (`workflow.md` §2.5):
 * every job of every workflow and task directory of the jobs roots, with
 * its info and when it was last used. Reads only: the result file is
 * stat'ed, never read, so a scan leaves its access time alone. Any other
 * read of a result — a run using it, `llm prov` walking it — is a use, as
 * for Scout's `system clean -o` (the result's `Open.atime`), R147-3.
 *
 * @module
 */
import { readdirSync, realpathSync } from "node:fs";
import { basename, join } from "node:path";
import { statsOf } from "../util/fs.ts";
import { lastUsed } from "../util/used_time.ts";
import { storePart } from "../util/owned_links.ts";
import { infoPath, jobsIn, shortPath } from "./store.ts";
import type { JobInfo } from "./info.ts";
import { readStoreJobInfo } from "./info_marshal.ts";

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
  /**
   * What a clean reads of its info ({@link storeJobInfo}; null: no `.info`;
   * `{status: "noinfo"}` when unreadable), JSON or a Ruby Marshal dump (R124-1).
   */
  info: StoreJobInfo | null;
  /** Why the info could not be read, or null. */
  problem: string | null;
  /**
   * When it was last used (ms): the newest of the result's modification and
   * access, the info's modification; one dated beyond the clock skew ahead
   * counts as its file's change time (`util/used_time.ts`, R163-2).
   */
  lastUsedMs: number;
  /** The newest of those times dated beyond the clock skew ahead, not counted; null when none is. */
  futureMs: number | null;
}

/** The fields of a job's info a clean reads: its status, process, SLURM job and dependencies. */
export type StoreJobInfo =
  & Pick<JobInfo, "status" | "pid" | "pid_hostname" | "dependencies" | "inputs">
  & { batch_job?: unknown; batch_system?: unknown };

/** The longest input value taken for a job's path (Linux's `PATH_MAX`). */
const PATH_MAX = 4096;

/**
 * What a clean reads of a job's info (R147-2): its status, `pid` and
 * `pid_hostname`, SLURM job (`batch_job`, `batch_system`), `dependencies`,
 * and of its `inputs` only the values that may be a job's path (a string
 * starting with `/`, no longer than a path can be). An agent job stores its
 * chat whole in `provided_inputs` and `inputs` (Ruby parity): a scan that
 * kept each info held ~200 MB per job of a 100 MB info.
 *
 * @param info a job's info, as read
 * @returns those fields of it (null for null)
 *
 * @example
 * ```ts
 * import { storeJobInfo } from "./store_scan.ts";
 * storeJobInfo({ status: "done", inputs: ["a long chat", "/jobs/Wf/t/Default"], type: "chat" });
 * // { status: "done", inputs: ["/jobs/Wf/t/Default"] }
 * ```
 */
export function storeJobInfo(info: JobInfo | null): StoreJobInfo | null {
  if (info === null) return null;
  const out: StoreJobInfo = {};
  for (const k of ["status", "pid", "pid_hostname", "batch_job", "batch_system"] as const) {
    if (info[k] !== undefined) (out as Record<string, unknown>)[k] = info[k];
  }
  if (info.dependencies !== undefined) out.dependencies = info.dependencies;
  if (Array.isArray(info.inputs)) {
    out.inputs = info.inputs.filter((v) =>
      typeof v === "string" && v.startsWith("/") && v.length <= PATH_MAX
    );
  }
  return out;
}

/** Which workflows and tasks are cleaned (null: every one). */
export interface StoreScope {
  /** Workflow names, or null for every workflow. */
  workflows: readonly string[] | null;
  /** Task names, or null for every task. */
  tasks: readonly string[] | null;
}

/** A workflow or task directory: its name, and its real path. */
interface StoreDir {
  name: string;
  real: string;
}

/**
 * The entries of a directory `real` (a real path) that are directories, dot
 * names left out; none when it cannot be listed. [TS-FIX] (R125-1) A
 * symbolic link is followed only when this user (or root) made it
 * (`ownLink`: a workflow's jobs kept on a scratch file system through the
 * user's own link are cleaned): in a store the group may write, another
 * member's link named as a workflow or task would make its target's files
 * jobs to clean (Scout's `Dir.glob` follows it). Each link not followed is
 * told to `onLink`.
 */
function subdirs(real: string, onLink: (path: string) => void): StoreDir[] {
  let entries;
  try {
    entries = readdirSync(real, { withFileTypes: true });
  } catch {
    return []; // no such root (or not one to list): no jobs there
  }
  const out: StoreDir[] = [];
  for (const e of entries) {
    if (e.name.startsWith(".")) continue;
    if (e.isDirectory()) out.push({ name: e.name, real: join(real, e.name) });
    else if (e.isSymbolicLink()) {
      const part = storePart(real, [e.name]);
      if ("real" in part && statsOf(part.real)?.isDirectory()) {
        out.push({ name: e.name, real: part.real });
      } else if ("link" in part) onLink(join(real, e.name));
    }
  }
  return out.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
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
  const read = info !== null ? readStoreJobInfo(path) : { info: null, problem: null };
  const used = lastUsed([
    ...(result !== null
      ? [{ times: [result.mtimeMs, result.atimeMs], ctimeMs: result.ctimeMs }]
      : []),
    ...(info !== null ? [{ times: [info.mtimeMs], ctimeMs: info.ctimeMs }] : []),
  ], Date.now());
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
    info: storeJobInfo(read.info), // the rest dropped as soon as read (R147-2)
    problem: read.problem,
    lastUsedMs: used.ms,
    futureMs: used.futureMs,
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
 * kept), with the other spellings of each and its real path.
 *
 * @param roots jobs roots, as spelled
 * @param realOf a root's real path (null: not to be read); default: every link followed
 * @returns root → its real path and other spellings, in the order given
 */
export function distinctRoots(
  roots: readonly string[],
  realOf: (root: string) => string | null = realDir,
): Map<string, { real: string; aliases: string[] }> {
  const byReal = new Map<string, string>();
  const out = new Map<string, { real: string; aliases: string[] }>();
  for (const root of roots) {
    const real = realOf(root);
    if (real === null) continue;
    const first = byReal.get(real);
    if (first === undefined) {
      byReal.set(real, root);
      out.set(root, { real, aliases: [] });
    } else if (first !== root && !out.get(first)!.aliases.includes(root)) {
      out.get(first)!.aliases.push(root);
    }
  }
  return out;
}

/** Options of {@link scanStore}. */
export interface ScanOptions {
  /**
   * A root's real path, or null when it is not to be read (a link another
   * user made, `util/owned_links.ts`); default: its links followed (roots
   * are the caller's choice).
   */
  realRoot?: (root: string) => string | null;
  /** Told of each symbolic link met as a workflow or task directory (not followed). */
  onLink?: (path: string) => void;
  /** Told of each job read (a progress line's count, R147-4). */
  onJob?: () => void;
}

/**
 * Every job of the jobs roots, each directory once however it is spelled
 * (R123-1: two spellings of one root listed its jobs twice, and a clean
 * removed under one spelling the job it kept under the other):
 * `<root>/<Workflow>/<task>/<name>`, walked from the root's real path.
 * Jobs outside `scope` are listed too (`inScope` false): a job that stays
 * keeps its dependencies, wherever they are. A workflow or task directory
 * that is a symbolic link another user made is not followed (R125-1).
 *
 * @param roots jobs roots
 * @param scope the workflows and tasks to clean
 * @param o the roots' real paths, where links met and jobs read are told
 * @returns the jobs, by root, workflow, task and name
 */
export function scanStore(
  roots: readonly string[],
  scope: StoreScope,
  o: ScanOptions = {},
): StoreJob[] {
  const out: StoreJob[] = [];
  const onLink = o.onLink ?? (() => {});
  for (const [root, { real, aliases }] of distinctRoots(roots, o.realRoot)) {
    for (const wf of subdirs(real, onLink)) {
      for (const task of subdirs(wf.real, onLink)) {
        const inScope = (scope.workflows === null || scope.workflows.includes(wf.name)) &&
          (scope.tasks === null || scope.tasks.includes(task.name));
        // the real path of the task directory: no link but the user's own below the real root
        const where = { root, aliases, realTaskDir: task.real, inScope };
        for (const path of jobsIn(join(root, wf.name, task.name))) {
          const job = readJob(path, where);
          if (job !== null) out.push(job);
          o.onJob?.();
        }
      }
    }
  }
  return out;
}
