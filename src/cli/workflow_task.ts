/**
 * `scout-ai workflow task`: runs a task as a persisted job and prints its
 * result (or its path, or JSON).
 *
 * @module
 */
import { commandLineError, isScoutError, usageError } from "../errors.ts";
import type { Job, RunEvent } from "../workflow/mod.ts";
import type { Io } from "./io.ts";
import { paint, warn } from "./io.ts";
import { type StatusLine, statusLine } from "./status_line.ts";
import { escapeLine } from "../provenance/one_line.ts";
import { lockWaitText } from "./lock_wait.ts";
import { failureJson, interruptJson, printResult } from "./workflow_task_result.ts";
import { interruptWord } from "./ask_interrupt.ts";
import { reportInterrupts } from "../workflow/interrupt.ts";
import { loadWorkflowArgument, wfLib } from "./workflow_common.ts";
import { taskHelp, workflowHelp } from "./workflow_help.ts";
import { helpWidth } from "./help_fit.ts";
import { shadowedInputs, shadowWarnings } from "./workflow_task_escape.ts";
import type { WorkflowTaskOptions } from "./workflow_task_options.ts";
import { deployMode, runDeployWorker, runLocalDeploy } from "./workflow_deploy.ts";
import { runSlurmDeploy } from "./workflow_deploy_slurm.ts";
import { isWorker } from "./workflow_deploy_inputs.ts";
import { secretInputsWarning } from "./workflow_secret_inputs.ts";
import { builtJob, forWorkers, type ResolvedTask, workerJob } from "./workflow_task_job.ts";

/**
 * The run's progress line. Once `done` erased it (the run ended, or a signal
 * stopped it) nothing is drawn again: the events a body still emits while an
 * interrupted run's exit waits for it to settle would redraw the line below
 * the `Interrupted` notice and leave it on the screen (R141-3).
 */
function progress(io: Io): { onEvent: (e: RunEvent) => void; done: () => void } {
  const line = statusLine(io);
  let ended = false;
  return {
    onEvent: (e) => {
      if (ended) return;
      if (e.type === "long_wait") return longWait(io, line, e);
      const what = e.type === "wait" ? "waiting for another process" : e.status;
      line.show(what, e.job.shortPath);
    },
    done: () => {
      ended = true;
      line.clear();
    },
  };
}

/**
 * A wait on another process's lock past a few seconds, told once in one plain
 * line, terminal or not (R125-5): the progress line shows only on a terminal,
 * and a batch job waiting printed nothing. The lock's file and its holder's
 * text are another process's, kept to one line.
 */
function longWait(io: Io, line: StatusLine, e: Extract<RunEvent, { type: "long_wait" }>): void {
  line.clear();
  warn(io, `${escapeLine(e.job.shortPath)}: ${lockWaitText(e.lock, e.holder)}`);
  line.show("waiting for another process", e.job.shortPath);
}

type WfLib = Awaited<ReturnType<typeof wfLib>>;

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
  const built = await builtJob(resolved, opts, io);
  if (!isWorker(opts)) {
    // a worker's command line is its deploy's, warned about there
    const w = secretInputsWarning(
      built.provided,
      `${resolved.wf.name}/${resolved.task}`,
      mode === "slurm",
    );
    if (w !== undefined) warn(io, w);
  }
  let { job, inputs } = built;
  try {
    // a dry run removes nothing: it counts what the clean would remove as not done
    const redo = await cleanFirst(lib, job, opts, mode === "slurm" && Boolean(opts.dryRun), io);
    if (isWorker(opts)) {
      return await runDeployWorker(job, opts, io, workerJob(resolved, built, opts, io));
    }
    if (mode !== "serial") {
      ({ job, inputs } = await forWorkers(resolved, built, redo, mode, opts, io));
    }
    if (mode === "slurm") return await runSlurmDeploy(job, opts, io, redo, inputs);
    return await runAndPrint(job, mode, opts, io, inputs.args);
  } finally {
    inputs.done(job);
  }
}

/**
 * `--recompute` (the job and its dependencies) and `--clean` (the job):
 * removes their results and infos, or in a dry run only lists them. One
 * another process is computing is waited for and its result kept (R148-2),
 * a wait past a few seconds told as a run's is.
 *
 * @returns the jobs a dry run would clean (none otherwise)
 */
async function cleanFirst(
  lib: WfLib,
  job: Job,
  opts: WorkflowTaskOptions,
  dryRun: boolean,
  io: Io,
): Promise<Job[]> {
  if (!opts.recompute && !opts.clean) return [];
  if (dryRun) return await lib.cleanTargets(job, Boolean(opts.recompute));
  const told = (j: Job, lock: string, holder: string) =>
    warn(io, `${escapeLine(j.shortPath)}: ${lockWaitText(lock, holder)}`);
  if (opts.recompute) await lib.cleanJobRecursive(job, told);
  else await lib.cleanJobWaiting(job, told);
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
    io.stdout.write(workflowHelp(wf, workflow, helpWidth(io, "stdout")));
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
    const width = helpWidth(io, "stdout");
    io.stdout.write(taskHelp(wf, opts.task, inputs, workflow, opts.helpOptions, shadowed, width));
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
  let documented = false;
  // the stderr line; when the run ends by it, under --json the document too, with the
  // job's fields (R137-6): before the CLI's, which then prints none
  const stop = (signal: string, aborted: string[], ends: boolean) => {
    p.done();
    const what = interruptNotice(io, signal, aborted);
    // (a signal's: not another cause, as the CLI's document)
    if (!opts.json || !ends || documented || !(signal in SIGNAL_EXIT)) return;
    io.stdout.write(interruptJson(lib, job, signal, what));
    documented = true;
  };
  // not exiting (held): the run goes on to fail, and prints that document
  const unreport = reportInterrupts((signal, aborted, exiting) => stop(signal, aborted, exiting));
  try {
    const stopped = mode === "local" ? await runLocalDeploy(job, opts, io, workerInputs) : null;
    if (stopped !== null) {
      stop(stopped.signal, stopped.aborted, true);
      return SIGNAL_EXIT[stopped.signal] ?? 1;
    }
    result = await lib.runJob(job, { onEvent: p.onEvent, env: io.env });
  } catch (e) {
    p.done();
    if (opts.json && !documented) io.stdout.write(await failureJson(lib, job, e));
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
 *
 * @returns its text after `scout-ai: `
 */
function interruptNotice(io: Io, signal: string, aborted: string[]): string {
  const jobs = aborted.map((path) => `"${path}"`).join(", ");
  const what = aborted.length === 0
    ? ""
    : ` (${aborted.length === 1 ? "job" : "jobs"} ${jobs} recorded as aborted)`;
  const text = `${interruptWord(signal)}${what}`;
  io.stderr.write(`${paint(io, "stderr", "red", "scout-ai:")} ${text}\n`);
  return text;
}
