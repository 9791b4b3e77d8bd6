/**
 * The job of `workflow task`: built from the command line as a serial run
 * builds it; for a deploy, built again from the input files saved for its
 * workers once it has something to run (R114-3); a worker's from the saved
 * files it was given, again when a file it got as named changed (R114-2).
 *
 * @module
 */
import { isScoutError, ScoutError } from "../errors.ts";
import type { InputDef, Job, Workflow } from "../workflow/mod.ts";
import type { Io } from "./io.ts";
import { warn } from "./io.ts";
import { storeOptions, wfLib } from "./workflow_common.ts";
import { parseInputArgs, readStdinInput } from "./workflow_inputs.ts";
import { readPipeInputs } from "./workflow_pipe_inputs.ts";
import { deployMode } from "./workflow_deploy.ts";
import type { WorkflowTaskOptions } from "./workflow_task_options.ts";
import type { WorkerInputs } from "./workflow_deploy.ts";
import {
  type DeployInputs,
  deployInputs,
  isWorker,
  namingTypedFiles,
  recordUnbuiltJobs,
  saveForWorkers,
  typedNames,
} from "./workflow_deploy_inputs.ts";

/** The task a command line names, checked, with the inputs it and its dependencies take. */
export interface ResolvedTask {
  wf: Workflow;
  task: string;
  inputs: InputDef[];
}

/** A job as the command line builds it, the inputs it was built from, and the values parsed. */
export interface BuiltJob {
  job: Job;
  inputs: DeployInputs;
  provided: Record<string, unknown>;
}

/**
 * The job the command line asks for, built as a serial run builds it (a
 * worker: from the saved files it was given); a worker that cannot build it
 * records the error in the jobs it was sent.
 */
export async function builtJob(
  resolved: ResolvedTask,
  opts: WorkflowTaskOptions,
  io: Io,
): Promise<BuiltJob> {
  try {
    const provided = await parsedInputs(resolved, opts, io);
    const inputs = await deployInputs(provided, opts, io);
    return { job: await jobOf(resolved, provided, inputs, opts, io), inputs, provided };
  } catch (e) {
    if (isWorker(opts)) await recordUnbuiltJobs(resolved.wf, opts, io, e);
    throw e;
  }
}

/**
 * A deploy's job once the files its inputs name are saved for its workers,
 * built again from them (the same job while each file is the one saved);
 * the job as built, nothing saved, when it has nothing to run (R114-3).
 */
export async function forWorkers(
  resolved: ResolvedTask,
  built: BuiltJob,
  redo: readonly Job[],
  mode: "local" | "slurm",
  opts: WorkflowTaskOptions,
  io: Io,
): Promise<{ job: Job; inputs: DeployInputs }> {
  const { pendingJobs } = await import("../workflow/deploy/mod.ts");
  if (pendingJobs(built.job, new Set(redo.map((j) => j.path))).length === 0) return built;
  const inputs = await saveForWorkers(built.provided, resolved.inputs, mode, opts, io);
  if (inputs.saved === undefined) return { job: built.job, inputs }; // none, or a dry run's plan
  return { job: await jobOf(resolved, built.provided, inputs, opts, io, QUIET), inputs };
}

/**
 * A worker's job, built again from its saved files once a file it was given
 * as named changed since (the same job: its name digests the bytes
 * submitted, which the saved file holds); each job it runs checks the files
 * it was given as named after its body (R122-1).
 */
export function workerJob(
  resolved: ResolvedTask,
  built: BuiltJob,
  opts: WorkflowTaskOptions,
  io: Io,
): WorkerInputs {
  let { job, inputs } = built;
  return {
    ...(inputs.saved !== undefined ? { saved: inputs.saved } : {}),
    current: async () => {
      if (!inputs.stale()) return job;
      inputs = await deployInputs(built.provided, opts, io);
      job = await jobOf(resolved, built.provided, inputs, opts, io, QUIET);
      return job;
    },
    checked: (j) => inputs.checked(j), // of the inputs the graph was last built from
  };
}

/**
 * Warns when `--jobs-dir` (where this job is stored) is given to a task with
 * an input of that name, `--jobs_dir` (ChatAnalyst's: where its chats' jobs
 * are), and that input is not: one letter apart, easily taken for the other.
 */
function jobsDirLookAlike(
  opts: { jobsDir?: string },
  inputs: readonly { name: string }[],
  provided: Record<string, unknown>,
  io: Io,
): void {
  if (opts.jobsDir === undefined || provided.jobs_dir !== undefined) return;
  if (!inputs.some((i) => i.name === "jobs_dir")) return;
  warn(
    io,
    `--jobs-dir sets where this task's job is stored (${opts.jobsDir}); ` +
      "the task's own input is --jobs_dir, not given",
  );
}

/**
 * A bad value on the command line is a usage error (exit 2, as an unknown
 * input is): the library's `parameter` error that names missing inputs, an
 * input whose value does not parse (bad JSON in a file it names), or a job
 * name that is not one path component (`--jobname a/b`, or the jobname
 * input's value). Any other error — a job name a dependency of the workflow
 * file sets, say — is returned as it is.
 *
 * @param e what job creation threw
 * @param given the command line's job name and input values
 * @returns the error to throw
 */
export function commandLineAsUsage(
  e: unknown,
  given: { jobname?: string | undefined; provided: Record<string, unknown> },
): unknown {
  if (!isScoutError(e, "parameter")) return e;
  const named = Array.isArray(e.inputs) ||
    // a value that does not parse (a schema's verdict on a parsed value stays a failure)
    (typeof e.input === "string" && Object.hasOwn(given.provided, e.input) &&
      isScoutError(e.cause, "json_parse")) ||
    (typeof e.jobname === "string" &&
      (e.jobname === given.jobname || Object.values(given.provided).includes(e.jobname)));
  if (!named) return e;
  return new ScoutError("usage", e.message, {
    cause: e,
    ...(e.inputs !== undefined ? { inputs: e.inputs } : {}),
    ...(e.input !== undefined ? { input: e.input } : {}),
    workflow: e.workflow,
    task: e.task,
  });
}

/**
 * The input values of the command line (`--<input>` arguments, stdin, pipes).
 *
 * @throws ScoutError `usage` for an unknown input
 */
async function parsedInputs(
  { wf, task, inputs }: ResolvedTask,
  opts: WorkflowTaskOptions,
  io: Io,
): Promise<Record<string, unknown>> {
  const lib = await wfLib();
  const provided = parseInputArgs(opts.args, inputs, {
    where: `${wf.name}/${task}`,
    cwd: io.cwd,
    nearNames: lib.nearNames,
  });
  await readStdinInput(provided, inputs, io);
  await readPipeInputs(provided, inputs, io, {
    deploy: deployMode(opts),
    loadsFile: lib.loadsFileValue,
  });
  jobsDirLookAlike(opts, inputs, provided, io);
  return provided;
}

/** A job built again: its warnings (a file's invalid UTF-8…) were given when it was first built. */
const QUIET = { quiet: true };

/**
 * The job of these inputs (`dep`: as parsed, or with saved files standing
 * for some), in the store of `--jobs-dir` or the workflow's; `quiet`: no
 * warning printed (a job built again).
 *
 * @throws ScoutError `usage` for a missing required input or a value that does not parse
 */
async function jobOf(
  { wf, task }: ResolvedTask,
  provided: Record<string, unknown>,
  dep: DeployInputs,
  opts: WorkflowTaskOptions,
  io: Io,
  { quiet = false } = {},
): Promise<Job> {
  const lib = await wfLib();
  const store = lib.storeFor(wf, storeOptions(opts, io, "write"));
  try {
    return lib.createJob(wf, task, {
      inputs: dep.provided,
      ...(opts.jobname !== undefined ? { jobname: opts.jobname } : {}),
      loadFiles: true,
      cwd: io.cwd,
      env: io.env,
      store,
      warn: quiet ? () => {} : (m: string) => warn(io, typedNames(m, dep)),
      ...(dep.typedAs !== undefined ? { typedAs: dep.typedAs } : {}),
    });
  } catch (e) {
    dep.done();
    throw commandLineAsUsage(namingTypedFiles(e, dep, io.cwd), { jobname: opts.jobname, provided });
  }
}
