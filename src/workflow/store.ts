/**
 * The job store (`workflow.md` §2.5): where job directories live and how a
 * job's sidecar paths derive from its result path.
 *
 * ```
 * <jobsRoot>/<Workflow>/<task>/<name>[.ext]          result file (exists ⇔ done)
 * <jobsRoot>/<Workflow>/<task>/<name>[.ext].info     info sidecar (JSON)
 * <jobsRoot>/<Workflow>/<task>/<name>[.ext].files/   artifacts directory
 * <jobsRoot>/<Workflow>/<task>/.<name>[.ext]         tmp path a task may write its result to
 * ```
 *
 * Jobs roots are searched in order (`<cwd>/var/jobs`, then `$SCOUT_HOME/var/jobs`);
 * new jobs go under `$SCOUT_HOME/var/jobs`. An explicit jobs directory (option,
 * workflow `jobsDir`, or env `SCOUT_JOBS_DIR`) replaces the search.
 *
 * @module
 */
import { readdirSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { expandHome, homeDir, scoutHome } from "../config/home.ts";
import { md5hex } from "../util/hash.ts";
import { fitBytes, NAME_MAX, utf8Length } from "../util/name_bytes.ts";
import { exists, samePath } from "../util/fs.ts";

/** Where jobs are searched for and created. Plain data. */
export interface JobStore {
  /** Jobs roots in search order (absolute). */
  roots: string[];
  /** Root new jobs are created under. */
  createRoot: string;
  /** `SCOUT_HOME` (absolute). */
  home: string;
  /** Directory of the persist locks (`$SCOUT_HOME/tmp/persist_locks`). */
  lockDir: string;
  /** Working directory relative references resolve against. */
  cwd: string;
}

/** Options of {@link jobStore}. */
export interface JobStoreOptions {
  /** Environment (default `process.env`): `SCOUT_HOME`, `SCOUT_JOBS_DIR`, `HOME`. */
  env?: Record<string, string | undefined>;
  /** Working directory (default `process.cwd()`). */
  cwd?: string;
  /** Explicit jobs directory: the only root, searched and created in. */
  jobsDir?: string;
}

/**
 * Builds a job store description.
 *
 * @param opts env, cwd and an optional explicit jobs directory
 * @returns the store
 *
 * @example
 * ```ts
 * import { jobStore } from "./store.ts";
 * const store = jobStore({ env: { SCOUT_HOME: "/tmp/sh" }, cwd: "/work" });
 * store.createRoot; // "/tmp/sh/var/jobs"
 * store.roots; // ["/work/var/jobs", "/tmp/sh/var/jobs"]
 * ```
 */
export function jobStore(opts: JobStoreOptions = {}): JobStore {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const home = scoutHome(env);
  const lockDir = join(home, "tmp", "persist_locks");
  const explicit = opts.jobsDir ?? (env.SCOUT_JOBS_DIR ? env.SCOUT_JOBS_DIR : undefined);
  if (explicit !== undefined) {
    const root = resolve(cwd, expandHome(explicit, env));
    return { roots: [root], createRoot: root, home, lockDir, cwd };
  }
  const created = join(home, "var", "jobs");
  const local = join(cwd, "var", "jobs");
  return {
    roots: sameDir(local, created) ? [created] : [local, created],
    createRoot: created,
    home,
    lockDir,
    cwd,
  };
}

/**
 * Whether two paths name one directory: the same spelling, or the same real
 * path. [TS-FIX] Scout compares spellings: a `SCOUT_HOME` reached through a
 * symbolic link, or a cwd in the real directory behind one (`process.cwd()`
 * is a real path), made one directory two roots, its jobs two spellings
 * (two persist locks for one job, and `system clean` removing a dependency it
 * reported kept, R123-1). The spelling kept is `SCOUT_HOME`'s.
 */
const sameDir = samePath;

/**
 * A store rooted at one explicit directory, keeping `home`/`lockDir`/`cwd` of `base`.
 *
 * @param base the store to derive from
 * @param jobsDir the jobs directory (absolute or relative to `base.cwd`)
 * @returns the derived store
 */
export function withJobsDir(base: JobStore, jobsDir: string): JobStore {
  const root = resolve(base.cwd, jobsDir);
  return { ...base, roots: [root], createRoot: root };
}

/**
 * Jobs roots to search when *reading* references (provenance, `workflow info`):
 * the store's roots plus `~/.rbbt/var/jobs` (Ruby's legacy root) when there is a home.
 *
 * @param opts env and cwd (as {@link jobStore})
 * @returns absolute roots, without duplicates
 */
export function jobRoots(opts: JobStoreOptions = {}): string[] {
  const env = opts.env ?? process.env;
  const store = jobStore(opts);
  const home = homeDir(env);
  const roots = home === null ? store.roots : [...store.roots, join(home, ".rbbt", "var", "jobs")];
  return [...new Set(roots)];
}

/**
 * The path of a job in a jobs root.
 *
 * @param root jobs root
 * @param workflow workflow name
 * @param task task name
 * @param name job name including any extension
 * @returns `<root>/<workflow>/<task>/<name>`
 */
export function jobPathIn(root: string, workflow: string, task: string, name: string): string {
  return join(root, workflow, task, name);
}

/**
 * `.info` sidecar of a job.
 *
 * @param jobPath result path
 * @returns `<jobPath>.info`
 */
export function infoPath(jobPath: string): string {
  return jobPath + ".info";
}

/**
 * Artifacts directory of a job.
 *
 * @param jobPath result path
 * @returns `<jobPath>.files`
 */
export function filesDir(jobPath: string): string {
  return jobPath + ".files";
}

/**
 * The tmp path a task body may write its result to (renamed into place when
 * the body returns null).
 *
 * @param jobPath result path
 * @returns `<dir>/.<name>`
 */
export function tmpPath(jobPath: string): string {
  return join(dirname(jobPath), "." + basename(jobPath));
}

/**
 * `short_path` of a job: its last three components `Workflow/task/name[.ext]`.
 *
 * @param jobPath result path (absolute or relative)
 * @returns the short path
 *
 * @example
 * ```ts
 * import { shortPath } from "./store.ts";
 * shortPath("/h/.scout/var/jobs/Baking/whisk/Default"); // "Baking/whisk/Default"
 * ```
 */
export function shortPath(jobPath: string): string {
  const parts = jobPath.split(/[\\/]+/).filter((p) => p !== "");
  return parts.slice(-3).join("/");
}

/** Scout's lock names: longer than this many characters are shortened. */
const LOCK_NAME_CHARS = 160;
/** The most bytes of a lock name before its `.lock` (a name Scout cannot create beyond). */
const LOCK_NAME_BYTES = NAME_MAX - ".lock".length;

/**
 * The persist-lock file of a job (`workflow.md` §3.4), shared with Scout:
 * `<lockDir>/<N>.lock` with `N` = absolute result path + `.persist`,
 * ASCII whitespace (Ruby's `\s`: space, tab, LF, VT, FF, CR; not U+00A0 and
 * the like) → `_`, `/` → `·`; longer than 160 characters → first 151 + md5 of
 * the rest.
 *
 * [TS-FIX] Scout counts characters, so a path of non-ASCII characters (`·`
 * is 2 bytes, a CJK character 3) can give a lock name over 255 bytes, which
 * no file system creates: Scout cannot lock (nor run) such a job. Only then
 * is `N` its longest start (whole code points) of at most 218 bytes + md5 of
 * the rest, 250 bytes with the md5; every lock name Scout can create is kept.
 *
 * @param jobPath absolute result path
 * @param lockDir lock directory
 * @returns the lock file path
 *
 * @example
 * ```ts
 * import { lockPathFor } from "./store.ts";
 * lockPathFor("/home/u/.scout/var/jobs/Slow/nap/Default", "/l");
 * // "/l/·home·u·.scout·var·jobs·Slow·nap·Default.persist.lock"
 * ```
 */
export function lockPathFor(jobPath: string, lockDir: string): string {
  const full = (jobPath + ".persist").replace(/[ \t\n\v\f\r]/g, "_").replaceAll("/", "·");
  const chars = [...full];
  let n = chars.length > LOCK_NAME_CHARS
    ? chars.slice(0, 151).join("") + md5hex(chars.slice(151).join(""))
    : full;
  if (utf8Length(n) > LOCK_NAME_BYTES) n = fitBytes(full, LOCK_NAME_BYTES);
  return join(lockDir, n + ".lock");
}

/** Options of {@link resolveJobReference}. */
export interface ResolveJobOptions {
  /** Jobs roots to try (default: the store's roots). */
  roots: readonly string[];
  /** Directory relative references resolve against first. */
  cwd: string;
  /** Environment for `~/` expansion. */
  env?: Record<string, string | undefined>;
  /** What makes a candidate a job (default: its result file or `.info` exists). */
  isJob?: (candidate: string) => boolean;
}

/**
 * The paths a job reference may name, in the order they are tried: an
 * absolute path as is; a relative one against `cwd`, then `root/ref` per
 * root; then, for 3 components or more, `root/<last 3 components>` per root
 * (a relocated store). `~/` is expanded; a blank reference names nothing.
 *
 * @param ref the reference
 * @param opts roots, cwd, env
 * @returns absolute candidate paths (possibly repeated)
 *
 * @example
 * ```ts
 * import { jobReferenceCandidates } from "./store.ts";
 * jobReferenceCandidates("WF/t/Default", { roots: ["/jobs"], cwd: "/w" });
 * // ["/w/WF/t/Default", "/jobs/WF/t/Default", "/jobs/WF/t/Default"]
 * ```
 */
export function jobReferenceCandidates(
  ref: string,
  opts: Omit<ResolveJobOptions, "isJob">,
): string[] {
  const s = expandHome(String(ref).trim(), opts.env);
  if (s === "") return [];
  const candidates: string[] = [];
  if (isAbsolute(s)) candidates.push(s);
  else {
    candidates.push(resolve(opts.cwd, s));
    for (const root of opts.roots) candidates.push(join(root, s));
  }
  const parts = s.split(/[\\/]+/).filter((p) => p !== "");
  if (parts.length >= 3) {
    for (const root of opts.roots) candidates.push(join(root, ...parts.slice(-3)));
  }
  return candidates;
}

/**
 * Resolves a job reference (absolute path, relative path, short path
 * `Workflow/task/name`, or a relocated absolute path): the first of
 * {@link jobReferenceCandidates} whose result file or `.info` exists (or
 * that `opts.isJob` accepts).
 *
 * @param ref the reference
 * @param opts roots and cwd
 * @returns the absolute job path, or null when nothing exists
 */
export function resolveJobReference(ref: string, opts: ResolveJobOptions): string | null {
  const isJob = opts.isJob ?? ((c: string) => exists(c) || exists(infoPath(c)));
  return jobReferenceCandidates(ref, opts).find(isJob) ?? null;
}

/** Names beside the jobs of a task directory that are none (`X.files/`, `X.lock`, {@link JOB_SIDECARS}). */
const NO_JOB = /\.(?:files|lock|md5|pid|notify)$/;

/**
 * The files Scout may keep beside a job `X` besides its `.info`, `.files/`
 * and tmp result: `X.md5` (the digest a file input of `X` is read by),
 * `X.pid` and `X.notify`. Not jobs; they go with the job.
 */
export const JOB_SIDECARS: readonly string[] = [".md5", ".pid", ".notify"];

/**
 * The jobs of a task directory (`<root>/<Workflow>/<task>`), as result paths:
 * one per name, whether its result file, its `.info` or both are there
 * (`X.info` → `X`); `.files` directories, `.lock` files, dot names (a
 * task's tmp results) and the sidecars `X.md5`, `X.pid`, `X.notify` are no
 * jobs, as in Scout's job listing (R124-3; `X.pid.info` still names the job
 * `X.pid`). A directory that is missing or cannot be listed holds none.
 *
 * @param dir the task directory
 * @returns absolute job paths, sorted
 */
export function jobsIn(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return []; // no such task directory (or not one to list): no jobs there
  }
  const jobs = new Set<string>();
  for (const n of names) {
    if (n.startsWith(".") || NO_JOB.test(n)) continue;
    jobs.add(join(dir, n.endsWith(".info") ? n.slice(0, -".info".length) : n));
  }
  return [...jobs].sort();
}

/**
 * The jobs root holding a job path (its directory three levels up).
 *
 * @param jobPath absolute result path
 * @returns `<root>` of `<root>/<Workflow>/<task>/<name>`
 */
export function rootOf(jobPath: string): string {
  return dirname(dirname(dirname(jobPath)));
}
