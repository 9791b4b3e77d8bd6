/**
 * Direct-neighbour readers of a job on disk (`provenance.md` §1.1, §2.6, §3;
 * `workflow.md` §2.5, §3): reference resolution across job roots, the `.info`
 * sidecar, dependencies, the `.files/log/**` chat files and the result chat.
 * Never recursive, never silent about unreadable evidence: failures are
 * returned to the caller, which decides (the traversal reports them).
 *
 * @module
 */
import { existsSync, statSync } from "node:fs";
import { basename, dirname, resolve, sep } from "node:path";
import { jobRoots, resolveJobReference } from "../workflow/store.ts";
import { readJobInfoSync } from "../workflow/info.ts";
import type { JobInfo, JobRef } from "./types.ts";
import { canonicalPath } from "./paths.ts";
import { pathKind } from "../util/path_kind.ts";

/** Where to resolve job references. */
export interface JobResolveOptions {
  /** Directory relative references resolve against first. */
  cwd: string;
  /** Job roots (`<root>/<Workflow>/<task>/<name>`), in priority order. */
  jobRoots: readonly string[];
  /** Environment for `~/` expansion (default `process.env`). */
  env?: Record<string, string | undefined>;
}

/**
 * The default job roots: the job store's search list (`<cwd>/var/jobs`,
 * `$SCOUT_HOME/var/jobs`, or `$SCOUT_JOBS_DIR` alone) plus `~/.rbbt/var/jobs`.
 *
 * @param cwd working directory
 * @param env environment (`SCOUT_HOME`, `SCOUT_JOBS_DIR`, `HOME`)
 * @returns absolute job roots
 */
export function defaultJobRoots(
  cwd: string,
  env: Record<string, string | undefined> = process.env,
): string[] {
  return jobRoots({ cwd, env });
}

/**
 * Whether a path is a job on disk for provenance: its `.info` sidecar or its
 * `.files` directory exists (a bare file of that name is not a job).
 *
 * @param jobPath absolute job path `P`
 * @returns true when `P.info` or `P.files` exists
 */
export function isJobPath(jobPath: string): boolean {
  return existsSync(jobPath + ".info") || existsSync(jobPath + ".files");
}

/**
 * The store root a job path implies (R105-5): `<root>` of
 * `<root>/<Workflow>/<task>/<name>` when the job's `.info` names that workflow
 * and task (so a job placed anywhere else implies nothing). A job in a
 * workflow's own `jobsDir` carries short `meta: job=` markers that resolve
 * only under that root.
 *
 * @param jobPath absolute job path `P`
 * @param info the job's info when already read (else `P.info` is read)
 * @returns the store root, or null when the path does not show one
 *
 * @example
 * ```ts ignore
 * import { jobStoreRootOf } from "./jobs.ts";
 * jobStoreRootOf("/data/jobs/RvApp/talk/Default_1.chat"); // "/data/jobs" (its .info: RvApp, talk)
 * ```
 */
export function jobStoreRootOf(jobPath: string, info?: JobInfo | null): string | null {
  const known = info ?? readJobInfoSync(jobPath).info as JobInfo | null;
  const taskDir = dirname(jobPath);
  const workflowDir = dirname(taskDir);
  const root = dirname(workflowDir);
  if (known === null || root === workflowDir) return null;
  const same = (name: unknown, dir: string) => typeof name === "string" && name === basename(dir);
  return same(known.task_name, taskDir) && same(known.workflow, workflowDir) ? root : null;
}

/**
 * The job roots of a walk from `rootPath`: `roots`, then the store root the
 * root implies when it is a job ({@link jobStoreRootOf}), when not already there.
 *
 * @param roots the job roots searched first, in order
 * @param rootPath the walk's root, absolute
 * @param info the root job's info when already read
 * @returns the roots, without duplicates
 */
export function withOwnStoreRoot(
  roots: readonly string[],
  rootPath: string,
  info?: JobInfo | null,
): string[] {
  const own = isJobPath(rootPath) ? jobStoreRootOf(rootPath, info) : null;
  return [...new Set(own === null ? roots : [...roots, own])];
}

/** Where a walk starts: the root, whether it is a job, and the job roots. */
export interface ProvenanceRoot {
  /** The root, absolute. */
  path: string;
  /** `job` when {@link isJobPath} holds for it, else `chat` (not checked further). */
  rootType: "chat" | "job";
  /**
   * The extra job roots (searched first), then the default ones, then the
   * store a job root lies in ({@link jobStoreRootOf}); no duplicates.
   */
  jobRoots: string[];
}

/**
 * Where a walk from a ROOT argument starts (`provenance.md` §10.1): the path
 * against `cwd`, a job when its `.info` or `.files` exists (else a chat, which
 * the caller checks is a file), and the job roots — the ones given (`--jobs-dir`)
 * before {@link defaultJobRoots}, then a job's own store root.
 *
 * @param given the root as given
 * @param o cwd, env, extra job directories
 * @returns the root
 */
export function provenanceRoot(
  given: string,
  o: { cwd: string; env?: Record<string, string | undefined>; jobsDirs?: readonly string[] },
): ProvenanceRoot {
  const path = resolve(o.cwd, given);
  const jobRoots = [
    ...(o.jobsDirs ?? []).map((d) => resolve(o.cwd, d)),
    ...defaultJobRoots(o.cwd, o.env),
  ];
  // a pipe (`<(…)`) is a chat: no job is a stream, and its `.info` is not looked for
  const job = pathKind(path) !== "stream" && isJobPath(path);
  return {
    path,
    rootType: job ? "job" : "chat",
    jobRoots: job ? withOwnStoreRoot(jobRoots, path) : [...new Set(jobRoots)],
  };
}

/**
 * Resolves a job reference to a job node (`provenance.md` §2.6): a `meta
 * job=` marker (usually the short path `Workflow/task/Name`), a receipt's
 * `job=` or a dependency path. Candidates: an absolute path as is; a relative
 * one against `cwd`, then under each job root; then, for ≥3 components, the
 * last three under each job root (relocated stores). The first candidate
 * that is a job ({@link isJobPath}: `.info` or `.files` present) wins.
 *
 * @param ref the raw reference (numbers are stringified)
 * @param o cwd, job roots
 * @returns the job (canonical path, info not read) or null when unresolved
 */
export function resolveJobNode(ref: unknown, o: JobResolveOptions): JobRef | null {
  if (ref === null || ref === undefined) return null;
  const path = resolveJobReference(String(ref), {
    cwd: o.cwd,
    env: o.env,
    roots: o.jobRoots.map((r) => resolve(o.cwd, r)),
    isJob: isJobPath,
  });
  return path === null ? null : { kind: "job", path: canonicalPath(path, o.cwd), info: null };
}

/**
 * A test of whether a canonical job path lies inside one of the job roots
 * (the roots are canonicalized once; each test is a string comparison). A
 * chat's `job=` reference that resolves elsewhere — an absolute path outside
 * the stores, or `..` climbing out of one — is not followed.
 *
 * @param o cwd and job roots
 * @returns the test
 *
 * @example
 * ```ts
 * import { insideJobRoots } from "./jobs.ts";
 * const inside = insideJobRoots({ cwd: "/w", jobRoots: ["jobs"] });
 * [inside("/w/jobs/Wf/t/N"), inside("/etc/x")]; // [true, false] (when /w is no symlink)
 * ```
 */
export function insideJobRoots(o: JobResolveOptions): (jobPath: string) => boolean {
  const roots = o.jobRoots.map((r) => {
    const c = canonicalPath(r, o.cwd);
    return c.endsWith(sep) ? c : c + sep;
  });
  return (jobPath) => roots.some((r) => jobPath.startsWith(r));
}

/** Result of reading a `.info` sidecar for provenance. */
export type JobInfoRead =
  | { info: JobInfo | null; error: null }
  | { info: null; error: string };

/**
 * Reads `P.info` with the job store's tolerant reader, but keeps "absent"
 * and "unreadable" apart: missing → `{info: null}`; unreadable, not JSON or
 * not a JSON object (e.g. a Ruby Marshal dump) → `{error}` (never a made-up
 * `noinfo` record).
 *
 * @param jobPath canonical job path `P`
 * @returns the info or why it could not be read
 */
export function readJobNodeInfo(jobPath: string): JobInfoRead {
  const read = readJobInfoSync(jobPath);
  if (read.problem !== null) return { info: null, error: read.problem };
  return { info: read.info as JobInfo | null, error: null };
}

/**
 * The raw dependency entries of a job's info: each a path string or an array
 * whose last element is the path (`[workflow, task, path]`).
 *
 * @param info the job's info (null → none)
 * @returns raw entries, in order
 */
export function jobDependencies(info: JobInfo | null): unknown[] {
  const deps = info?.dependencies;
  if (deps === undefined || deps === null) return [];
  return Array.isArray(deps) ? deps : [deps];
}

/**
 * The path of a dependency entry (an array's last element), or the entry
 * itself when it is not an array.
 *
 * @param entry a raw dependency entry
 * @returns the reference to resolve
 */
export function dependencyReference(entry: unknown): unknown {
  return Array.isArray(entry) ? entry[entry.length - 1] : entry;
}

/**
 * The chat files under `P.files/log/` (`provenance.md` §3): the job store's
 * one walker of a job's logs, with the rules this section fixes (dot names
 * skipped, symlinked directories not descended, dangling symlinks dropped,
 * real paths in UTF-8 byte order) and unlistable directories returned.
 */
export { jobLogChatFiles as directJobChatFiles } from "../workflow/files.ts";
export type { JobLogFiles } from "../workflow/files.ts";

/**
 * The job's result file when it is a chat: `P` itself when `info.type` is
 * `chat` and `P` is a regular file.
 *
 * @param job the job (info read)
 * @returns `P` or null
 */
export function jobResultChatFile(job: JobRef): string | null {
  if (job.info?.type !== "chat") return null;
  try {
    return statSync(job.path).isFile() ? job.path : null;
  } catch {
    return null;
  }
}

/**
 * True when a job exists at `P`: its result, `.info` or `.files` is there.
 *
 * @param jobPath absolute job path
 * @returns whether any of the three exists
 */
export function jobExists(jobPath: string): boolean {
  return existsSync(jobPath) || existsSync(jobPath + ".info") || existsSync(jobPath + ".files");
}
