/**
 * The input files of a `--deploy local|slurm` run (R109-1, the library's
 * `deploy/saved_inputs.ts`): saved before the job is built — for SLURM under
 * `<batch base>/inputs/`, kept while a batch job names them, for a local run
 * in a temporary directory (under `TMPDIR`) removed at its end — and the job
 * built from the links and copies, here and in every worker (`--deploy-inputs
 * DIR`), so a file replaced or removed meanwhile changes nothing. A file the
 * task reads that could be neither linked nor copied is warned about. A worker
 * that still cannot build the job it was sent records the error in that job's
 * `.info`.
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve, sep } from "node:path";
import { usageError } from "../errors.ts";
import type { InputDef, Workflow } from "../workflow/mod.ts";
import type { SavedDir, UnsavedFile } from "../workflow/deploy/mod.ts";
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
  /** A worker: the directory and list it was given (what changed since). */
  saved?: SavedDir;
  /** Removes what was saved for this run alone (a local run's directory). */
  done: () => void;
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
 * The inputs a run builds its job from: as parsed (serial; no file named);
 * a worker's with the links and copies it was given; a deploy's with those
 * it saves first (a SLURM dry run saves none: its script shows how).
 *
 * @param provided the parsed input values
 * @param defs the task's recursive inputs
 * @param mode the deploy mode
 * @param opts options
 * @param io I/O
 * @returns the inputs, the workers' options and what to remove at the end
 * @throws ScoutError `deploy_failed` when a file cannot be saved, or a
 *   worker's saved files are gone; `usage` for `--deploy-inputs` outside a worker
 */
export async function deployInputs(
  provided: Record<string, unknown>,
  defs: readonly InputDef[],
  mode: "serial" | "local" | "slurm",
  opts: WorkflowTaskOptions & DeployOptions,
  io: Io,
): Promise<DeployInputs> {
  const none: DeployInputs = { provided, args: [], done: () => {} };
  if (opts.deployInputs === undefined && (mode === "serial" || isWorker(opts))) return none;
  const lib = await deployLib();
  if (opts.deployInputs !== undefined) {
    if (!isWorker(opts)) throw usageError("--deploy-inputs is for a deploy's workers");
    const dir = resolve(io.cwd, opts.deployInputs);
    const record = lib.loadSavedInputs(dir);
    return { ...none, ...lib.withSavedFiles(provided, record, dir), saved: { dir, record } };
  }
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
    return {
      ...lib.withSavedFiles(provided, record, dir),
      args: ["--deploy-inputs", dir],
      done: none.done,
    };
  }
  const tmp = mkdtempSync(join(tmpdir(), "scout-ai-inputs-"));
  const done = () => rmSync(tmp, { recursive: true, force: true });
  try {
    const { dir, record, unsaved } = lib.saveInputFiles(files, tmp);
    warnUnsaved(io, unsaved);
    return { ...lib.withSavedFiles(provided, record, dir), args: ["--deploy-inputs", dir], done };
  } catch (e) {
    done();
    throw e;
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
