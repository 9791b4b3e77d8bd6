/**
 * The input files of a `--deploy local|slurm` run (R109-1, the library's
 * `deploy/saved_inputs*.ts`): saved once the job, built from the files as
 * named (as a serial run builds it), is found to have something to run —
 * for SLURM under `<batch base>/inputs/`, kept while a batch job names them,
 * for a local run in a temporary directory (under `TMPDIR`) removed at its
 * end unless a job may name it — and the job built again, here and in every
 * worker (`--deploy-inputs DIR`), from each file as named while it is the one
 * saved, else from its link or copy (R114-2), so a file replaced or removed
 * before a job is built changes nothing; one that changes while its job runs
 * fails that job rather than have its result stored (R122-1). A file the
 * task reads that could be neither linked nor copied is warned about. A
 * worker that still cannot build the job it was sent records the error in
 * that job's `.info`.
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve, sep } from "node:path";
import { usageError } from "../errors.ts";
import type { InputDef, Job, Workflow } from "../workflow/mod.ts";
import type { InputFile, SavedDir, SavedInputs, UnsavedFile } from "../workflow/deploy/mod.ts";
import type { Io } from "./io.ts";
import { warn } from "./io.ts";
import type { DeployOptions, WorkflowTaskOptions } from "./workflow_task_options.ts";
import { storeOptions, wfLib } from "./workflow_common.ts";

const deployLib = () => import("../workflow/deploy/mod.ts");

/** The inputs a deploy builds its job from, and what its workers are told of them. */
export interface DeployInputs {
  /** The input values to build the job from. */
  provided: Record<string, unknown>;
  /** Saved links and copies → the values as typed (`createJob`'s `typedAs`). */
  typedAs?: Map<string, string>;
  /** The workers' options naming the saved directory (`--deploy-inputs DIR`), or none. */
  args: string[];
  /** A SLURM dry run: the lines of its script that save the files. */
  script?: string[];
  /** The directory and list saved (a worker: given), when the job is built from them. */
  saved?: SavedDir;
  /** Whether a file the job was given as named changed since it was built (then build it again). */
  stale: () => boolean;
  /**
   * The job to run: where it was given files as named, one whose body is
   * followed by the check that they did not change while it ran
   * (`checkingGivenFiles`, R122-1).
   */
  checked: (job: Job) => Job;
  /**
   * Removes what was saved for this run alone (a local run's directory,
   * unless the `.info` of a job of `top`'s graph names a file in it; no
   * `top`: no job was built from it).
   */
  done: (top?: Job) => void;
}

/** Inputs as parsed: nothing saved, nothing to remove. */
export function asParsed(provided: Record<string, unknown>): DeployInputs {
  return { provided, args: [], stale: () => false, checked: (job) => job, done: () => {} };
}

/** Whether this process is a deploy's worker. */
export function isWorker(opts: DeployOptions): boolean {
  return Boolean(opts.deployWorker) || (opts.deployJob?.length ?? 0) > 0;
}

/**
 * The directory batch directories go under: `--batch-dir`, else the
 * default (`batchBase`).
 *
 * @param opts options
 * @param io I/O (cwd, env)
 * @returns the directory
 */
export async function slurmBatchBase(opts: DeployOptions, io: Io): Promise<string> {
  const { batchBase } = await deployLib();
  return batchBase(
    opts.batchDir !== undefined ? resolve(io.cwd, opts.batchDir) : undefined,
    io.env,
  );
}

/** Warns about each file the task reads that is only recorded (`saveInputFiles`). */
function warnUnsaved(io: Io, unsaved: readonly UnsavedFile[]): void {
  for (const u of unsaved) {
    warn(
      io,
      `input file "${u.file}" (--${u.input}) is not saved for the workers: ${u.why}; ` +
        "a worker that finds it changed stops",
    );
  }
}

/**
 * The inputs a run builds its job from: as parsed (serial, a deploy before
 * anything is saved); a worker's with the saved files it was given
 * (`--deploy-inputs`) standing for those changed since submission.
 *
 * @param provided the parsed input values
 * @param opts options
 * @param io I/O
 * @returns the inputs
 * @throws ScoutError `deploy_failed` when a worker's saved files are gone;
 *   `usage` for `--deploy-inputs` outside a worker
 */
export async function deployInputs(
  provided: Record<string, unknown>,
  opts: WorkflowTaskOptions & DeployOptions,
  io: Io,
): Promise<DeployInputs> {
  if (opts.deployInputs === undefined) return asParsed(provided);
  if (!isWorker(opts)) throw usageError("--deploy-inputs is for a deploy's workers");
  const lib = await deployLib();
  const dir = resolve(io.cwd, opts.deployInputs);
  const record = lib.loadSavedInputs(dir);
  return savedInputs(lib, provided, { dir, record }, asParsed(provided));
}

type DeployLib = Awaited<ReturnType<typeof deployLib>>;

/** The inputs built from a saved directory (`withSavedFiles`), over `base`. */
function savedInputs(
  lib: DeployLib,
  provided: Record<string, unknown>,
  saved: SavedDir,
  base: DeployInputs,
): DeployInputs {
  const { originals, ...use } = lib.withSavedFiles(provided, saved.record, saved.dir);
  return {
    ...base,
    ...use,
    saved,
    stale: () => lib.originalsChanged(originals),
    checked: (job) => lib.checkingGivenFiles(job, originals),
  };
}

/**
 * The input files of a deploy with jobs to run, saved for its workers (a
 * SLURM dry run saves none: its script shows how), and the inputs to build
 * the job from again (`saved`); as parsed when no input names a file.
 *
 * @param provided the parsed input values
 * @param defs the task's recursive inputs
 * @param mode the deploy mode
 * @param opts options
 * @param io I/O
 * @returns the inputs, the workers' options and what to remove at the end
 * @throws ScoutError `deploy_failed` when a file cannot be saved
 */
export async function saveForWorkers(
  provided: Record<string, unknown>,
  defs: readonly InputDef[],
  mode: "local" | "slurm",
  opts: WorkflowTaskOptions & DeployOptions,
  io: Io,
): Promise<DeployInputs> {
  const none = asParsed(provided);
  const lib = await deployLib();
  const files = lib.inputFiles(provided, defs, io.cwd);
  if (files.length === 0) return none;
  if (mode === "slurm") {
    const base = lib.savedInputsBase(await slurmBatchBase(opts, io));
    if (opts.dryRun) {
      const plan = lib.planInputFiles(files, base);
      warnUnsaved(io, plan.unsaved);
      return { ...none, args: ["--deploy-inputs", plan.dir], script: lib.savedInputsScript(plan) };
    }
    const { dir, record, unsaved } = lib.saveInputFiles(files, base);
    warnUnsaved(io, unsaved);
    return savedInputs(lib, provided, { dir, record }, { ...none, args: ["--deploy-inputs", dir] });
  }
  const tmp = mkdtempSync(join(tmpdir(), "scout-ai-inputs-"));
  try {
    const { dir, record, unsaved } = lib.saveInputFiles(files, tmp);
    warnUnsaved(io, unsaved);
    const done = (top?: Job) => keepWhileNamed(lib, io, { tmp, dir, record, files }, top);
    return savedInputs(lib, provided, { dir, record }, {
      ...none,
      args: ["--deploy-inputs", dir],
      done,
    });
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}

/**
 * The end of a local run: its saved files go, unless a file the task reads
 * was replaced or removed meanwhile and a job built since was given its saved
 * link or copy: the job's `.info` (maybe its result) names it, so the
 * directory stays, and a warning says where (R114-2). A link edited in place
 * holds other bytes, and a file no job's `.info` names is used by none: then
 * the directory goes, unwarned (`savedInUse`, R118-2).
 */
function keepWhileNamed(
  lib: DeployLib,
  io: Io,
  run: { tmp: string; dir: string; record: SavedInputs; files: readonly InputFile[] },
  top: Job | undefined,
): void {
  const jobs = top === undefined ? [] : lib.graphJobs(top).map((j) => j.path);
  const named = lib.savedInUse(run.record, run.files, run.dir, jobs);
  if (named.length === 0) {
    rmSync(run.tmp, { recursive: true, force: true });
    return;
  }
  for (const f of named) {
    const read = join(run.dir, f.saved!);
    warn(
      io,
      `input file "${f.file}" (--${f.input}) changed during the run: the jobs built since were ` +
        `given the file saved at submission, ${read}, which their .info (and a result made of ` +
        `its path) names; it is kept (remove ${run.tmp} when done with them)`,
    );
  }
}

/**
 * A worker that could not build its job: the error recorded in the `.info`
 * of each job it was sent (`--deploy-job`) that is in this job store and
 * that nothing else has become of (`recordUnbuilt`).
 *
 * @param wf the workflow
 * @param opts options (the job paths, `--jobs-dir`)
 * @param io I/O
 * @param error what failed
 */
export async function recordUnbuiltJobs(
  wf: Workflow,
  opts: WorkflowTaskOptions & DeployOptions,
  io: Io,
  error: unknown,
): Promise<void> {
  try {
    const { recordUnbuilt } = await deployLib();
    const store = (await wfLib()).storeFor(wf, storeOptions(opts, io, "read"));
    for (const path of opts.deployJob ?? []) {
      if (!isAbsolute(path) || !store.roots.some((r) => path.startsWith(r + sep))) continue;
      await recordUnbuilt(path, error, store.lockDir);
    }
  } catch { /* the error itself still ends the worker, on stderr */ }
}

/**
 * An error of building the job from saved copies, its message naming each
 * copy as the file it was saved from (`Unexpected token … (in "q.json")`).
 *
 * @param e what job creation threw
 * @param dep the inputs the job was built from
 * @param cwd directory typed names resolve against
 * @returns the error, its message changed in place
 */
export function namingTypedFiles(e: unknown, dep: DeployInputs, cwd: string): unknown {
  if (dep.typedAs === undefined || !(e instanceof Error)) return e;
  for (const [copy, typed] of dep.typedAs) {
    e.message = e.message.replaceAll(copy, resolve(cwd, typed));
  }
  return e;
}

/**
 * A warning of building the job from saved copies, each copy named by the
 * value typed, as a serial run names it (`q.txt: invalid UTF-8 replaced…`).
 *
 * @param text the warning
 * @param dep the inputs the job was built from
 * @returns the warning
 */
export function typedNames(text: string, dep: DeployInputs): string {
  let out = text;
  for (const [copy, typed] of dep.typedAs ?? []) out = out.replaceAll(copy, typed);
  return out;
}
