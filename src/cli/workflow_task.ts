/**
 * `scout-ai workflow task`: runs a task as a persisted job and prints its
 * result (or its path, or JSON).
 *
 * @module
 */
import { commandLineError, isScoutError, ScoutError, usageError } from "../errors.ts";
import type { InputDef, Job, RunEvent, Workflow } from "../workflow/mod.ts";
import type { Io } from "./io.ts";
import { paint, warn } from "./io.ts";
import { statusLine } from "./status_line.ts";
import { failureJson, printResult } from "./workflow_task_result.ts";
import { interruptWord } from "./ask_interrupt.ts";
import { reportInterrupts } from "../workflow/interrupt.ts";
import { loadWorkflowArgument, storeOptions, wfLib } from "./workflow_common.ts";
import { taskHelp, workflowHelp } from "./workflow_help.ts";
import { parseInputArgs, readStdinInput } from "./workflow_inputs.ts";
import { shadowedInputs, shadowWarnings } from "./workflow_task_escape.ts";
import type { WorkflowTaskOptions } from "./workflow_task_options.ts";
import { deployMode, runDeployWorker, runLocalDeploy } from "./workflow_deploy.ts";
import { runSlurmDeploy } from "./workflow_deploy_slurm.ts";
import {
  type DeployInputs,
  deployInputs,
  isWorker,
  namingTypedFiles,
  recordUnbuiltJobs,
} from "./workflow_deploy_inputs.ts";

function progress(io: Io): { onEvent: (e: RunEvent) => void; done: () => void } {
  const line = statusLine(io);
  return {
    onEvent: (e) => {
      const what = e.type === "wait" ? "waiting for another process" : e.status;
      line.show(what, e.job.shortPath);
    },
    done: () => line.clear(),
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

type WfLib = Awaited<ReturnType<typeof wfLib>>;

/** The task a command line names, checked, with the inputs it and its dependencies take. */
interface ResolvedTask {
  wf: Workflow;
  task: string;
  inputs: InputDef[];
}

/**
 * `workflow task`: creates the job (inputs from `--<input>` arguments), runs
 * it unless done, prints the result (or the path, or JSON).
 *
 * @param opts command options
 * @param io injected I/O
 * @returns exit code
 */
export async function runWorkflowTask(opts: WorkflowTaskOptions, io: Io): Promise<number> {
  if (opts.workflow === undefined) throw usageError("Missing WORKFLOW argument");
  const resolved = await resolveTask(opts.workflow, opts, io);
  if (resolved === null) return 0;
  // after the task is known: an option named like one of its inputs was warned about
  const mode = deployMode(opts);
  if (mode !== "serial" && opts.args.includes("-")) {
    throw usageError(`An input read from stdin ("-") cannot go with --deploy ${mode}`);
  }
  const lib = await wfLib();
  const { job, inputs } = await builtJob(resolved, mode, opts, io);
  try {
    // a dry run removes nothing: it counts what the clean would remove as not done
    const redo = await cleanFirst(lib, job, opts, mode === "slurm" && Boolean(opts.dryRun));
    if (isWorker(opts)) return await runDeployWorker(job, opts, io, inputs.saved);
    if (mode === "slurm") return await runSlurmDeploy(job, opts, io, redo, inputs);
    return await runAndPrint(job, mode, opts, io, inputs.args);
  } finally {
    inputs.done();
  }
}

/**
 * The job the command line asks for ({@link jobFromArgs}); a worker that
 * cannot build it records the error in the jobs it was sent.
 */
async function builtJob(
  resolved: ResolvedTask,
  mode: "serial" | "local" | "slurm",
  opts: WorkflowTaskOptions,
  io: Io,
): Promise<{ job: Job; inputs: DeployInputs }> {
  try {
    return await jobFromArgs(resolved, mode, opts, io);
  } catch (e) {
    if (isWorker(opts)) await recordUnbuiltJobs(resolved.wf, opts, io, e);
    throw e;
  }
}

/**
 * `--recompute` (the job and its dependencies) and `--clean` (the job):
 * removes their results and infos, or in a dry run only lists them.
 *
 * @returns the jobs a dry run would clean (none otherwise)
 */
async function cleanFirst(
  lib: WfLib,
  job: Job,
  opts: WorkflowTaskOptions,
  dryRun: boolean,
): Promise<Job[]> {
  if (!opts.recompute && !opts.clean) return [];
  if (dryRun) return await lib.cleanTargets(job, Boolean(opts.recompute));
  if (opts.recompute) await lib.cleanJobRecursive(job);
  else await lib.cleanJob(job);
  return [];
}

/**
 * Loads the workflow and checks the task; answers help instead (the
 * workflow's tasks when no TASK is given, or the task's with `--help`).
 *
 * @returns the task, or null when help was printed
 * @throws ScoutError `usage` for a missing TASK after inputs or options, or
 *   a task the workflow has not
 */
async function resolveTask(
  workflow: string,
  opts: WorkflowTaskOptions,
  io: Io,
): Promise<ResolvedTask | null> {
  const lib = await wfLib();
  const wf = await loadWorkflowArgument(workflow, io);
  if (opts.task === undefined) {
    // `workflow task WF` alone: the documented way to list its tasks, an answer;
    // with inputs or options the TASK was left out, a usage error (a script's empty $TASK)
    if (!opts.help && opts.onlyWorkflow === false) {
      // --json alone: the tasks as JSON are `workflow list`'s (R81-14)
      const json = opts.json
        ? `; 'scout-ai workflow list ${workflow} --json' lists them as JSON`
        : "";
      throw usageError(
        `Missing TASK after ${workflow} (its tasks: ${Object.keys(wf.tasks).join(", ")}${json})`,
      );
    }
    io.stdout.write(workflowHelp(wf, workflow));
    return null;
  }
  try {
    lib.taskOf(wf, opts.task);
  } catch (e) {
    // a task the workflow has not is a mistake of the command line, as an unknown input is
    if (!isScoutError(e, "task_not_found")) throw e;
    throw commandLineError(e);
  }
  const inputs = lib.recursiveInputs(wf, opts.task);
  const shadowed = shadowedInputs(inputs, opts.optionFlags ?? []);
  if (opts.help) {
    // the help of a task whose dependency is broken says so (running it would fail)
    for (const problem of lib.brokenDependencies(wf, opts.task)) warn(io, problem);
    io.stdout.write(taskHelp(wf, opts.task, inputs, workflow, opts.helpOptions, shadowed));
    return null;
  }
  for (
    const w of shadowWarnings({
      where: `${wf.name}/${opts.task}`,
      file: wf.file,
      command: `scout-ai workflow task ${workflow} ${opts.task}`,
      shadowed,
      givenOptions: opts.givenOptions ?? [],
      args: opts.args,
    })
  ) warn(io, w);
  return { wf, task: opts.task, inputs };
}

/**
 * The job the command line asks for: inputs from the `--<input>` arguments
 * (and stdin), in the store of `--jobs-dir` or the workflow's; under a
 * deploy, built from the input files saved for its workers.
 *
 * @throws ScoutError `usage` for an unknown input or a missing required one
 */
async function jobFromArgs(
  { wf, task, inputs }: ResolvedTask,
  mode: "serial" | "local" | "slurm",
  opts: WorkflowTaskOptions,
  io: Io,
): Promise<{ job: Job; inputs: DeployInputs }> {
  const lib = await wfLib();
  const provided = parseInputArgs(opts.args, inputs, {
    where: `${wf.name}/${task}`,
    cwd: io.cwd,
    nearNames: lib.nearNames,
  });
  await readStdinInput(provided, inputs, io);
  jobsDirLookAlike(opts, inputs, provided, io);
  const store = lib.storeFor(wf, storeOptions(opts, io, "write"));
  const dep = await deployInputs(provided, inputs, mode, opts, io);
  try {
    const job = lib.createJob(wf, task, {
      inputs: dep.provided,
      ...(opts.jobname !== undefined ? { jobname: opts.jobname } : {}),
      loadFiles: true,
      cwd: io.cwd,
      env: io.env,
      store,
      warn: (m: string) => warn(io, m),
      ...(dep.typedAs !== undefined ? { typedAs: dep.typedAs } : {}),
    });
    return { job, inputs: dep };
  } catch (e) {
    dep.done();
    throw commandLineAsUsage(namingTypedFiles(e, dep, io.cwd), { jobname: opts.jobname, provided });
  }
}

/**
 * Runs the job here (serial; after its graph's workers for `--deploy
 * local`) with progress on a TTY, then prints the result, its path, or JSON
 * (on failure too, then rethrows).
 *
 * @returns exit code
 */
async function runAndPrint(
  job: Job,
  mode: "serial" | "local",
  opts: WorkflowTaskOptions,
  io: Io,
  workerInputs: readonly string[],
): Promise<number> {
  const lib = await wfLib();
  const p = progress(io);
  let result: unknown;
  const unreport = reportInterrupts((signal, aborted) => {
    p.done();
    interruptNotice(io, signal, aborted);
  });
  try {
    const stopped = mode === "local" ? await runLocalDeploy(job, opts, io, workerInputs) : null;
    if (stopped !== null) {
      p.done();
      interruptNotice(io, stopped.signal, stopped.aborted);
      return SIGNAL_EXIT[stopped.signal] ?? 1;
    }
    result = await lib.runJob(job, { onEvent: p.onEvent, env: io.env });
  } catch (e) {
    p.done();
    if (opts.json) io.stdout.write(await failureJson(lib, job, e));
    throw e;
  } finally {
    unreport();
  }
  p.done();
  printResult(lib, job, result, opts, io);
  return 0;
}

/** The exit code of a run a signal stopped (128 + its number), as serial mode exits. */
const SIGNAL_EXIT: Record<string, number> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

/**
 * The one line a SIGINT/SIGTERM ending the run leaves on stderr, naming the
 * jobs it recorded aborted: `scout-ai: Interrupted (job "<path>" recorded as aborted)`.
 */
function interruptNotice(io: Io, signal: string, aborted: string[]): void {
  const jobs = aborted.map((path) => `"${path}"`).join(", ");
  const what = aborted.length === 0
    ? ""
    : ` (${aborted.length === 1 ? "job" : "jobs"} ${jobs} recorded as aborted)`;
  io.stderr.write(`${paint(io, "stderr", "red", "scout-ai:")} ${interruptWord(signal)}${what}
`);
}
