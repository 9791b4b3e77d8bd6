/**
 * `scout-ai system clean [WORKFLOW [TASK]] [--older AGE] [--keep CHAT]…
 * [--dry-run] [--json]` — Scout's `scout system clean`: stale locks, then the
 * jobs of the workflows named (comma lists; `all` for every one) that will
 * never finish, and with `--older` the done jobs unused for that long
 * (`workflow/store_clean.ts` says what is never removed). Without a
 * WORKFLOW only the stale locks go, as in Scout.
 *
 * `--json` (version 1): `{"version":1,"dryRun","olderSeconds","roots",
 * "removed":[{"path","shortPath","status","lastUsed","bytes"}],
 * "kept":[{"path","shortPath","status","reason"}],
 * "failed":[{"path","shortPath","error"}],"locks":[path…],"warnings":[line…],
 * "bytes"}` (`warnings`: each job that stays whose dependencies cannot be
 * known, R124-1).
 *
 * @module
 */
import { usageError } from "../errors.ts";
import { AGE_FORMS, ageProblem, formatAge, formatBytes, parseAge } from "../util/age.ts";
import type { CleanOutcome, RemovedJob } from "../workflow/store_clean.ts";
import type { Io } from "./io.ts";
import { paint, warn } from "./io.ts";
import { checkJobsDir } from "./jobs_dir.ts";
import { scanProgress } from "./scan_progress.ts";
import { realPart, realRoots } from "./store_part.ts";
import { keptJobs } from "./clean_keep.ts";
import { checkCleanNames } from "./clean_names.ts";
import { workflowsByPath } from "./clean_paths.ts";
import { escapeLine } from "../provenance/one_line.ts";
import { middleShorten } from "../provenance/labels.ts";
import { jsonText } from "../util/json_text.ts";

/**
 * Text as a report line shows it: control characters escaped (R125-7: a job
 * named `evil\nname` printed a second, forged line) and at most 400
 * characters (a path thousands of characters deep, shortened in the middle).
 * The JSON report keeps every name as it is.
 */
function shown(text: string): string {
  return middleShorten(escapeLine(text), 400);
}

/** Options of `system clean`. */
export interface SystemCleanOptions {
  /** WORKFLOW: a name or a workflow's path, a comma list, or `all`; none: stale locks only. */
  workflow?: string;
  /** TASK: a name or a comma list. */
  task?: string;
  /** `--older AGE`, as typed. */
  older?: string;
  /** `--keep CHAT`, repeatable. */
  keep?: string[];
  /** `--jobs-dir`: the only jobs root. */
  jobsDir?: string;
  /** `--dry-run`. */
  dryRun?: boolean;
  /** `--json`. */
  json?: boolean;
}

/**
 * Reads an `--older` value.
 *
 * @param text the value as typed (undefined: not given)
 * @param flag the flag, for the error
 * @returns milliseconds, or null when not given
 * @throws ScoutError `usage` when it is no age
 */
export function olderOption(text: string | undefined, flag = "--older"): number | null {
  if (text === undefined) return null;
  const ms = parseAge(text);
  if (ms === null) {
    const why = ageProblem(text);
    throw usageError(`${flag}: "${text}" is not an age${why ? `: ${why}` : ""} (${AGE_FORMS})`);
  }
  return ms;
}

function names(list: string | undefined): string[] | null {
  if (list === undefined || list === "all") return null;
  return list.split(",").map((s) => s.trim()).filter((s) => s !== "");
}

/** Checks the arguments before anything is read or removed. */
function checkArguments(opts: SystemCleanOptions): number | null {
  const olderMs = olderOption(opts.older);
  if (opts.workflow === "." || opts.workflow?.split(",").includes(".")) {
    throw usageError(
      "WORKFLOW '.' (Scout's jobs of the current directory) is not supported: " +
        "name the directory with --jobs-dir",
    );
  }
  if (opts.task !== undefined && opts.workflow === undefined) {
    throw usageError("TASK goes after a WORKFLOW");
  }
  return olderMs;
}

/**
 * `system clean`.
 *
 * @param opts options
 * @param io injected I/O
 * @returns exit code: 0, or 1 when a job could not be removed
 */
export async function runSystemClean(opts: SystemCleanOptions, io: Io): Promise<number> {
  const olderMs = checkArguments(opts);
  const { jobStore } = await import("../workflow/store.ts");
  const jobsDir = opts.jobsDir !== undefined ? checkJobsDir(opts.jobsDir, io.cwd) : undefined;
  const store = jobStore({ env: io.env, cwd: io.cwd, ...(jobsDir ? { jobsDir } : {}) });
  const dryRun = Boolean(opts.dryRun);
  // R125: in a store the group may write, only the links its user made are followed
  const lockSweepDir = realPart(
    store.home,
    ["tmp", "persist_locks"],
    io,
    "its stale locks are not swept",
  );
  if (opts.workflow === undefined) {
    return await sweepLocksOnly(store.lockDir, lockSweepDir, { opts, io, olderMs });
  }
  const { scanStore } = await import("../workflow/store_scan.ts");
  const { cleanStore } = await import("../workflow/store_clean.ts");
  const named = jobsDir !== undefined || Boolean(io.env.SCOUT_JOBS_DIR);
  // R137-3: a path (`fixtures/workflows/Baking`) stands for its workflow's name
  const byPath = await workflowsByPath(names(opts.workflow), io);
  const scope = { workflows: byPath.workflows, tasks: names(opts.task) };
  const progress = scanProgress(io);
  const jobs = scanStore(store.roots, scope, {
    realRoot: realRoots(store, named, io),
    onLink: (link) => {
      progress.clear();
      warn(io, `not following ${link}: a symbolic link in the store; the jobs through it stay`);
    },
    onJob: progress.job,
  });
  progress.clear();
  // R128-2: a misspelled name matched nothing and the clean said "0 jobs", exit 0
  await checkCleanNames(scope, jobs, io, byPath.found);
  const keep = await keptJobs(opts.keep ?? [], store.roots, io);
  const outcome = await cleanStore(jobs, {
    olderMs,
    keep,
    lockDir: store.lockDir,
    lockSweepDir,
    env: io.env,
    dryRun,
    ...(opts.json ? {} : { onRemoved: (r: RemovedJob) => removedLine(r, io, dryRun) }),
  });
  report(outcome, { opts, io, olderMs, roots: store.roots });
  return outcome.failed.length > 0 ? 1 : 0;
}

/** `system clean` without WORKFLOW: the stale locks alone are swept (or listed). */
async function sweepLocksOnly(
  lockDir: string,
  lockSweepDir: string | null,
  shown: { opts: SystemCleanOptions; io: Io; olderMs: number | null },
): Promise<number> {
  const { opts, io } = shown;
  const { sweepStaleLocks } = await import("../workflow/store_clean_remove.ts");
  const locks = sweepStaleLocks(lockDir, Boolean(opts.dryRun), lockSweepDir);
  report({ removed: [], kept: [], failed: [], warnings: [], locks }, { ...shown, roots: [] });
  if (!opts.json) {
    io.stderr.write(
      "No WORKFLOW given: only stale locks were looked at. Name workflows, or 'all', " +
        "to clean jobs (scout-ai system clean all --older 90d --dry-run)\n",
    );
  }
  return 0;
}

function removedLine(r: RemovedJob, io: Io, dryRun: boolean): void {
  const verb = dryRun ? "would remove" : "removed";
  const age = formatAge(Date.now() - r.job.lastUsedMs);
  io.stdout.write(
    `${verb} ${shown(r.job.path)} (${r.status}, last used ${age} ago, ${formatBytes(r.bytes)})\n`,
  );
}

interface ReportContext {
  opts: SystemCleanOptions;
  io: Io;
  olderMs: number | null;
  roots: readonly string[];
}

/** Prints what a clean did: JSON, or the kept and failed jobs and a summary line. */
function report(o: CleanOutcome, c: ReportContext): void {
  const { io, opts } = c;
  const dryRun = Boolean(opts.dryRun);
  const bytes = o.removed.reduce((n, r) => n + r.bytes, 0);
  if (opts.json) {
    io.stdout.write(jsonText(cleanJson(o, c, bytes)) + "\n");
    return;
  }
  for (const lock of o.locks) {
    io.stdout.write(`${dryRun ? "would remove" : "removed"} stale lock ${shown(lock)}\n`);
  }
  for (const w of o.warnings) warn(io, shown(w));
  for (const k of o.kept) {
    io.stderr.write(`kept ${shown(k.job.path)} (${k.status}): ${shown(k.reason)}\n`);
  }
  for (const f of o.failed) {
    io.stderr.write(
      `${paint(io, "stderr", "red", "scout-ai:")} cannot remove ${shown(f.job.path)}: ${
        shown(f.error)
      }\n`,
    );
  }
  if (opts.workflow === undefined) return;
  const jobs = (n: number) => `${n} job${n === 1 ? "" : "s"}`;
  const parts = [
    `${jobs(o.removed.length)} ${dryRun ? "would be removed" : "removed"} (${formatBytes(bytes)})`,
    `${o.kept.length} kept`,
  ];
  if (o.failed.length > 0) parts.push(`${o.failed.length} not removable`);
  if (o.locks.length > 0) {
    parts.push(`${o.locks.length} stale lock${o.locks.length > 1 ? "s" : ""}`);
  }
  io.stdout.write(parts.join(", ") + "\n");
}

function cleanJson(o: CleanOutcome, c: ReportContext, bytes: number) {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    version: 1,
    dryRun: Boolean(c.opts.dryRun),
    olderSeconds: c.olderMs === null ? null : c.olderMs / 1000,
    roots: c.roots,
    removed: o.removed.map((r) => ({
      path: r.job.path,
      shortPath: r.job.shortPath,
      status: r.status,
      lastUsed: iso(r.job.lastUsedMs),
      bytes: r.bytes,
    })),
    kept: o.kept.map((k) => ({
      path: k.job.path,
      shortPath: k.job.shortPath,
      status: k.status,
      reason: k.reason,
    })),
    failed: o.failed.map((f) => ({ path: f.job.path, shortPath: f.job.shortPath, error: f.error })),
    locks: o.locks,
    warnings: o.warnings,
    bytes,
  };
}
