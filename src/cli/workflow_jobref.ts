/**
 * The JOB argument of `workflow info`: a job path, a short path
 * `Workflow/task/name`, the job's `.info` file or `.files` directory, or a
 * prefix of one job's name (`Baking/cake/Default` for `Default_<digest>.txt`,
 * the name a run with non-default inputs gets). A job named exactly so, its
 * result file's extension aside (`Default` for `Default.json`), is taken
 * before the jobs whose names only start with it.
 *
 * @module
 */
import { basename, dirname, extname, relative, sep } from "node:path";
import { expandHome } from "../config/home.ts";
import { ScoutError, usageError } from "../errors.ts";
import { exists, isDirectory } from "../util/fs.ts";
import type { ResolveJobOptions } from "../workflow/store.ts";
import {
  infoPath,
  jobReferenceCandidates,
  jobsIn,
  resolveJobReference,
} from "../workflow/store.ts";

/** A resolved JOB argument. */
export interface JobMatch {
  /** Absolute result path of the job. */
  path: string;
  /** True when the argument was a name prefix (say which job was taken). */
  byPrefix: boolean;
}

/** A job's own path for a sidecar: `X.info` → `X`, `X.files` (or `X.files/…`) → `X`. */
function ownerOf(ref: string): string | null {
  const t = ref.replace(/[\\/]+$/, "");
  if (t.endsWith(".info")) return t.slice(0, -".info".length);
  const i = t.lastIndexOf(".files");
  if (i > 0 && (i + 6 === t.length || /[\\/]/.test(t[i + 6]!))) return t.slice(0, i);
  return null;
}

/** Job paths in the directories a reference's candidates lie in, whose names start with its base. */
function prefixMatches(ref: string, opts: ResolveJobOptions): string[] {
  const base = basename(expandHome(ref.trim(), opts.env));
  if (base === "" || base.startsWith(".")) return [];
  const found = new Set<string>();
  for (const dir of new Set(jobReferenceCandidates(ref, opts).map((c) => dirname(c)))) {
    for (const job of jobsIn(dir)) {
      // a prefix may reach into the info file's name (`X.json.i`), as it did before jobsIn
      const name = basename(job);
      if (name.startsWith(base) || `${name}.info`.startsWith(base)) found.add(job);
    }
  }
  return [...found].sort();
}

/**
 * The one match named `base` itself, or `base` and an extension (the task's:
 * `Default.json` for `Default`), which wins over names that only start with
 * `base` (`Default_<digest>.json`; R94-3); null when none or several are.
 */
function namedMatch(matches: string[], ref: string, opts: ResolveJobOptions): string | null {
  const base = basename(expandHome(ref.trim(), opts.env));
  const named = matches.filter((m) => {
    const name = basename(m);
    return name === base || (extname(name) !== "" && name === base + extname(name));
  });
  return named.length === 1 ? named[0]! : null;
}

/**
 * A directory without a `.info` beside it is no job (R106-7): a task
 * directory (`Slow/nap/`, two levels below a jobs root: its jobs are named)
 * or a workflow's.
 *
 * @returns the path, when it may be a job
 * @throws ScoutError `usage` naming the directory
 */
function notADirectory(ref: string, path: string, roots: readonly string[]): string {
  if (!isDirectory(path) || exists(infoPath(path))) return path;
  const depth = Math.min(
    ...roots.map((r) => relative(r, path)).filter((p) => p !== "" && !p.startsWith(".."))
      .map((p) => p.split(sep).length),
  );
  if (depth !== 2) throw usageError(`"${ref}" is a directory, not a job`);
  const jobs = jobsIn(path).map((j) => `"${basename(j)}"`);
  const shown = jobs.length === 0
    ? "it holds no jobs"
    : `give one of its jobs: ${jobs.slice(0, 5).join(", ")}${jobs.length > 5 ? ", …" : ""}`;
  throw usageError(`"${ref}" is a task directory, not a job (${shown})`);
}

/**
 * Resolves the JOB argument of `workflow info`: as a job reference (see
 * `resolveJobReference`), as the job of a `.info` file or `.files` directory,
 * as the job named by the last component and an extension (`Default` for
 * `Default.json`), or as the one job whose name starts with it.
 *
 * @param ref the argument
 * @param opts roots, cwd, env
 * @returns the job, or null when nothing matches
 * @throws ScoutError `job_not_found` when a prefix matches several jobs (they are listed);
 *   `usage` for a directory that is no job (a task's)
 */
export function findJob(ref: string, opts: ResolveJobOptions): JobMatch | null {
  const owner = ownerOf(ref);
  for (const r of owner === null ? [ref] : [owner, ref]) {
    const path = resolveJobReference(r, opts);
    if (path !== null) return { path: notADirectory(ref, path, opts.roots), byPrefix: false };
  }
  const matches = prefixMatches(owner ?? ref, opts);
  const named = namedMatch(matches, owner ?? ref, opts);
  if (named !== null) return { path: named, byPrefix: false };
  if (matches.length === 1) return { path: matches[0]!, byPrefix: true };
  if (matches.length > 1) {
    const shown = matches.slice(0, 5).map((m) => `"${m}"`).join(", ");
    throw new ScoutError(
      "job_not_found",
      `Job "${ref}" matches ${matches.length} jobs: ${shown}${
        matches.length > 5 ? ", …" : ""
      } (give the full name)`,
    );
  }
  return null;
}
