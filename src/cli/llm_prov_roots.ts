/**
 * The ROOTs of `scout-ai llm prov` checked before the walk (`provenance.md`
 * §10.1): each a chat file or a job path, with an error naming the ROOT at
 * fault — one that is not there, a directory, a job's `.info`, stdin — and
 * the job roots the walk searches. Several ROOTs (`llm prov logs/*.chat`,
 * R134-1) are walked together, as one traversal.
 *
 * @module
 */
import { accessSync, closeSync, constants, openSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { ScoutError, usageError } from "../errors.ts";
import { exists, fileError, isFile } from "../util/fs.ts";
import { pathKind } from "../util/path_kind.ts";
import type { JobRef } from "../provenance/types.ts";
import type { ProvenanceReport } from "../provenance/report.ts";
import type { Io } from "./io.ts";
import { checkJobsDir } from "./jobs_dir.ts";
import { findJob } from "./workflow_jobref.ts";

/** Our message for a missing ROOT, which says what ROOT is. */
export const MISSING_ROOT_TEXT = "Missing ROOT: a chat file or a job path";

type Provenance = typeof import("../provenance/mod.ts");

/** One ROOT: as given, its absolute path, and whether it is a chat or a job. */
export interface ProvRootOne {
  given: string;
  root: string;
  rootType: "chat" | "job";
}

/** Where the walk starts: the first ROOT (the only one, mostly), every ROOT, the job roots. */
export interface ProvRoot extends ProvRootOne {
  /** Every ROOT, in the order given (one for one ROOT). */
  all: ProvRootOne[];
  jobRoots: string[];
}

/**
 * The ROOTs as given, checked for what no walk takes: none, an empty one,
 * stdin (`-`).
 *
 * @param roots the ROOT arguments
 * @returns them
 * @throws ScoutError `usage`
 */
export function givenRoots(roots: readonly string[]): readonly string[] {
  if (roots.length === 0 || roots.some((r) => r === "")) throw usageError(MISSING_ROOT_TEXT);
  if (roots.includes("-")) {
    throw usageError("prov needs a file: a chat read from stdin has no provenance to walk");
  }
  return roots;
}

/**
 * `--jobs-dir` and each ROOT checked before the walk: an error naming what
 * a ROOT is instead of a chat or a job. The job roots are the first ROOT's,
 * then what the others add (a job's own store).
 *
 * @param given the ROOTs as given
 * @param o `--jobs-dir`
 * @param io injected I/O
 * @param p the provenance module
 * @returns the roots
 * @throws ScoutError naming the ROOT at fault
 */
export function checkRoots(
  given: readonly string[],
  o: { jobsDirs?: string[] },
  io: Io,
  p: Provenance,
): ProvRoot {
  for (const dir of o.jobsDirs ?? []) checkJobsDir(dir, io.cwd);
  const all: ProvRootOne[] = [];
  const jobRoots: string[] = [];
  for (const g of given) {
    const r = checkRoot(g, o, io, p);
    all.push({ given: g, root: r.root, rootType: r.rootType });
    jobRoots.push(...r.jobRoots);
  }
  return { ...all[0]!, all, jobRoots: [...new Set(jobRoots)] };
}

function checkRoot(
  given: string,
  opts: { jobsDirs?: string[] },
  io: Io,
  p: Provenance,
): { root: string; rootType: "chat" | "job"; jobRoots: string[] } {
  const where = {
    cwd: io.cwd,
    env: io.env,
    ...(opts.jobsDirs === undefined ? {} : { jobsDirs: opts.jobsDirs }),
  };
  let { path: root, rootType, jobRoots } = p.provenanceRoot(given, where);
  const job = rootType === "chat" ? storedJob(given, root, jobRoots, io) : null;
  if (job !== null) ({ path: root, rootType, jobRoots } = p.provenanceRoot(job, where));
  if (rootType === "chat") checkChatRoot(given, root, p);
  if (rootType === "chat" && root.endsWith(".info") && p.isJobPath(root.slice(0, -5))) {
    throw new ScoutError(
      "invalid_input",
      `${given} is a job's info file, not a chat; llm prov takes the job path: ` +
        given.replace(/\.info$/, ""),
    );
  }
  return { root, rootType, jobRoots };
}

/**
 * The job a ROOT that is no file names as `workflow info` takes it (R165-4):
 * the short path `Workflow/task/name` a `meta: job=` line or `workflow task`
 * prints, or a prefix of one job's name (said on stderr), looked up in the
 * job roots. A file of that name relative to cwd is always the ROOT itself.
 *
 * @returns the job's absolute path, or null
 * @throws ScoutError `job_not_found` when a prefix names several jobs
 */
function storedJob(given: string, root: string, jobRoots: string[], io: Io): string | null {
  if (pathKind(root) !== null || exists(root)) return null;
  const match = findJob(given, { roots: jobRoots, cwd: io.cwd, env: io.env });
  if (match === null) return null;
  if (match.byPrefix) io.stderr.write(`scout-ai: "${given}" matched ${match.path}\n`);
  return match.path;
}

/**
 * The walk's roots: the one ROOT's path (its kind given apart), or each
 * ROOT — a chat's path, a job's reference.
 *
 * @param where the checked roots
 * @returns what `provenanceReport` takes
 */
export function walkRoots(where: ProvRoot): string | (string | JobRef)[] {
  if (where.all.length === 1) return where.root;
  return where.all.map((r) =>
    r.rootType === "job" ? { kind: "job" as const, path: r.root, info: null } : r.root
  );
}

/**
 * The error for a directory given as ROOT (neither a chat file nor a job):
 * what is expected, and the job it is the `.files` of, or a chat in it.
 */
function notARoot(given: string, dir: string, isJob: (path: string) => boolean): ScoutError {
  let hint = "";
  const job = dir.replace(/\.files\/*$/, "");
  if (job !== dir && isJob(job)) hint = `: the job is ${given.replace(/\.files\/*$/, "")}`;
  else {
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch { /* unreadable: no example */ }
    const chat = names.filter((n) => n.endsWith(".chat") && isFile(join(dir, n))).sort()[0];
    if (chat !== undefined) hint = `: e.g. ${join(given, chat)}`;
  }
  return new ScoutError(
    "invalid_input",
    `${given} is a directory; llm prov takes a chat file or a job path ` +
      `(one with a .info or .files beside it)${hint}`,
  );
}

/**
 * A chat ROOT that is there and can be read: a regular file is opened (and
 * closed), a pipe (`<(…)`) only checked, since it can be read once — the
 * walk's read.
 */
function checkChatRoot(given: string, root: string, p: Provenance): void {
  const kind = pathKind(root);
  if (kind === "directory") throw notARoot(given, root, p.isJobPath);
  if (kind === null && !exists(root)) {
    throw new ScoutError("root_not_found", `Chat not found: ${given}`);
  }
  if (kind === "other") {
    throw new ScoutError("io", `Cannot read "${given}": not a file, a pipe or a terminal`, {
      file: given,
    });
  }
  try {
    if (kind === "file") closeSync(openSync(root, "r"));
    else accessSync(root, constants.R_OK); // a pipe, or what cannot be looked at
  } catch (e) {
    throw fileError(given, e);
  }
}

/**
 * The error of a walk that could not read a root chat (a pipe's read that
 * failed): the walk goes on past unreadable evidence, but without the root
 * there is nothing to show.
 *
 * @param report the report
 * @param id the root chat's node id
 * @param given the ROOT as given
 * @throws ScoutError `io` naming it
 */
export function checkRootRead(report: ProvenanceReport, id: string, given: string): void {
  const w = report.warnings.find((w) =>
    w.code === "chat_unreadable" && w.node === id && w.relation === null
  );
  if (w === undefined) return;
  const why = w.message.replace(/^Cannot read chat ".*?": /s, "").replace(
    / \(chat_unreadable\)$/,
    "",
  );
  throw new ScoutError("io", `Cannot read chat "${given}": ${why}`, { file: given });
}
