/**
 * The deploy side of `workflow task`: `--deploy local|slurm` (the graph's
 * jobs run by worker processes or SLURM batch jobs of this same program —
 * the SLURM side in `workflow_deploy_slurm.ts`) and the internal worker
 * modes those use (`--deploy-worker` reads job paths on stdin; `--deploy-job
 * PATH` runs the named jobs): each computes only the named job, never its
 * dependencies.
 *
 * @module
 */
import { availableParallelism } from "node:os";
import { isAbsolute, resolve, sep } from "node:path";
import { createInterface } from "node:readline";
import { ScoutError, usageError } from "../errors.ts";
import { interruptJobs } from "../workflow/interrupt.ts";
import type { Job } from "../workflow/mod.ts";
import type { DeployRules, SavedDir } from "../workflow/deploy/mod.ts";
import type { Io } from "./io.ts";
import { warn } from "./io.ts";
import { readInput } from "./input.ts";
import { statusLine } from "./status_line.ts";
import type { DeployOptions, WorkflowTaskOptions } from "./workflow_task_options.ts";
import { END_OF_OPTIONS, splitAtEnd } from "./workflow_task_escape.ts";
import { keepIgnored, listenableSignals } from "../util/ignored_signals.ts";

const deployLib = () => import("../workflow/deploy/mod.ts");

/**
 * The deploy mode asked for, checked: an option of another mode
 * (`--dry-run`, `--wait`, `--batch-dir` without slurm, `--cpus` without
 * local, `--deploy-rules` with serial) is a usage error.
 *
 * @param opts command options
 * @returns serial, local or slurm
 * @throws ScoutError `usage` naming the option and the mode it needs
 */
export function deployMode(opts: DeployOptions): "serial" | "local" | "slurm" {
  const m = (opts.deploy ?? "serial").toLowerCase();
  if (m !== "serial" && m !== "local" && m !== "slurm") {
    throw usageError(`Unknown --deploy "${opts.deploy}": use serial, local or slurm`);
  }
  if (opts.cpus !== undefined && !/^[1-9]\d*$/.test(opts.cpus)) {
    throw usageError(`--cpus "${opts.cpus}" must be a whole number ≥ 1`);
  }
  if ((opts.dryRun || opts.wait) && m !== "slurm") {
    throw usageError("--dry-run and --wait go with --deploy slurm");
  }
  // an option of another mode would be ignored: say so rather than run without it (R79-13)
  if (opts.batchDir !== undefined && m !== "slurm") {
    throw usageError("--batch-dir goes with --deploy slurm (where its batch directories go)");
  }
  if (opts.cpus !== undefined && m !== "local") {
    throw usageError(
      `--cpus goes with --deploy local${
        m === "slurm" ? " (a batch job's CPUs come from --deploy-rules: cpus)" : ""
      }`,
    );
  }
  if (opts.deployRules !== undefined && m === "serial") {
    throw usageError("--deploy-rules goes with --deploy local or slurm (a serial run uses none)");
  }
  return m;
}

/**
 * The command line a worker or batch job runs: this program, `workflow
 * task`, the same workflow, task, inputs, job name and jobs directory, then
 * the worker's own options — and last the inputs given after `--`, which
 * must stay behind every option.
 *
 * @param opts the command's options
 * @param io I/O (cwd, env)
 * @returns the argv, given the worker's options (`--deploy-worker`, `--deploy-job P`…)
 */
export async function workerArgv(
  opts: WorkflowTaskOptions,
  io: Io,
): Promise<(options: readonly string[]) => string[]> {
  const { selfCommand } = await deployLib();
  const wf = opts.workflow!;
  // A path keeps working from the batch job's directory; a name is looked up the same way.
  const wfArg = wf.includes("/") && !isAbsolute(wf) ? resolve(io.cwd, wf) : wf;
  // inputs after `--` (named like an option) stay after it, behind every option
  const { before, after } = splitAtEnd(opts.args);
  const head = [
    ...selfCommand(io.env),
    "workflow",
    "task",
    wfArg,
    opts.task!,
    ...before,
    ...(opts.jobname !== undefined ? ["--jobname", opts.jobname] : []),
    ...(opts.jobsDir !== undefined ? ["--jobs-dir", resolve(io.cwd, opts.jobsDir)] : []),
  ];
  const tail = opts.args.includes(END_OF_OPTIONS) ? [END_OF_OPTIONS, ...after] : [];
  return (options) => [...head, ...options, ...tail];
}

/** What a worker knows of its job: the input files saved for it, and the job to run from. */
export interface WorkerInputs {
  /** The input files saved at submission (`--deploy-inputs`), if any. */
  saved?: SavedDir;
  /** The top job now: built again once a file it was given as named changed (R114-2). */
  current: () => Promise<Job>;
  /**
   * A job of the graph as run: one given files as named checks after its
   * body that none changed while it ran, else fails unstored (R122-1).
   */
  checked?: (job: Job) => Job;
}

/**
 * Worker mode: runs the named jobs of `top`'s graph (from `--deploy-job`, or
 * one path per stdin line with `--deploy-worker`), each without its
 * dependencies, replying on stdout per job. Before each, the graph is built
 * again from the saved files when a file it was given as named changed
 * (`inputs.current`); a job is not run once a saved file is no longer as
 * submitted (`changedSavedFile`, R109-1): the worker says so and records it
 * in the job's `.info`; a job given a file as named that changes while it
 * runs fails without storing its result (`inputs.checked`, R122-1).
 *
 * @param top the top job
 * @param opts options (which jobs)
 * @param io I/O
 * @param inputs the input files saved at submission, and the job built from them
 * @returns exit code (1 when a job failed)
 */
export async function runDeployWorker(
  top: Job,
  opts: DeployOptions,
  io: Io,
  inputs: WorkerInputs = { current: () => Promise.resolve(top) },
): Promise<number> {
  const { WORKER_MARK, batchJobFields } = await deployLib();
  const batchJob = opts.deployJob !== undefined && opts.deployJob.length > 0;
  // a SLURM batch job records itself in the info of each job it computes, as Scout's does once
  // done; [TS-FIX] from setup on, so the job stays queued to another --deploy (R122-2)
  const batchInfo = batchJob ? batchJobFields(io.env) : {};
  const { runOne, shortPathOf } = await workerRunner(top, io, inputs, batchInfo);
  if (batchJob) {
    for (const p of opts.deployJob ?? []) {
      const err = await runOne(p);
      if (err !== null) {
        io.stderr.write(`scout-ai: ${err}\n`);
        return 1;
      }
      io.stderr.write(`scout-ai: done ${shortPathOf(p)}\n`);
    }
    return 0;
  }
  const lines = createInterface({ input: process.stdin });
  const end = stopWithParent(lines);
  try {
    for await (const line of lines) {
      if (line.trim() === "") continue;
      const p = sentPath(line);
      end.busy = true;
      const err = await runOne(p);
      end.busy = false;
      const q = JSON.stringify(p);
      io.stdout.write(
        err === null ? `${WORKER_MARK}done\t${q}\n` : `${WORKER_MARK}error\t${q}\t${err}\n`,
      );
    }
  } finally {
    end.release();
  }
  return 0;
}

/**
 * A worker's job runner ({@link runDeployWorker}): runs one job of `top`'s
 * graph by path — the graph built again first when a file it was given as
 * named changed — and returns null, or why the job did not run or failed. A
 * job it computes records `batchInfo` in its info, from its setup on.
 */
async function workerRunner(
  top: Job,
  io: Io,
  inputs: WorkerInputs,
  batchInfo: Record<string, string>,
) {
  const lib = await import("../workflow/mod.ts");
  const { graphJobs, changedInputFile, changedSavedFile, recordUnbuilt } = await deployLib();
  const { saved } = inputs;
  // the job sent does not stay `waiting` for a batch job that ends here (R109-1)
  const unbuilt = async (path: string, why: string) => {
    if (!inStore(path, top)) return;
    await recordUnbuilt(path, new ScoutError("deploy_failed", why), top.store.lockDir)
      .catch(() => false);
  };
  let byPath = new Map(graphJobs(top).map((j) => [j.path, j]));
  const runOne = async (path: string): Promise<string | null> => {
    try {
      const now = await inputs.current();
      if (now !== top) [top, byPath] = [now, new Map(graphJobs(now).map((j) => [j.path, j]))];
    } catch (e) {
      const why = oneLine(e);
      await unbuilt(path, why);
      return why;
    }
    const job = byPath.get(path) ?? [...byPath.values()].find((j) => j.shortPath === path);
    if (job === undefined) {
      const changed = saved !== undefined ? changedInputFile(saved.record, saved.dir) : null;
      const why = notInGraph(path, top, changed);
      await unbuilt(path, why);
      return why;
    }
    const changed = saved !== undefined ? changedSavedFile(saved.record, saved.dir) : null;
    if (changed !== null) {
      const why = `Job "${job.shortPath}" failed: ${changed}`;
      await unbuilt(job.path, why);
      return why;
    }
    try {
      const run = inputs.checked?.(job) ?? job;
      await lib.produceJob(run, { env: io.env, dependencies: "require-done", batchInfo });
      return null;
    } catch (e) {
      return oneLine(e);
    }
  };
  const shortPathOf = (path: string) => byPath.get(path)?.shortPath ?? path;
  return { runOne, shortPathOf };
}

/** An error's message on one line. */
function oneLine(e: unknown): string {
  return ((e as Error)?.message ?? String(e)).replace(/\s+/g, " ");
}

/**
 * The job path of a line a `--deploy local` parent sent: a JSON string, so a
 * path with a newline in it (a `SCOUT_HOME`, a `--jobname`) travels as one
 * line (R102-6); a line that is no JSON string is taken as it is, trimmed.
 */
function sentPath(line: string): string {
  try {
    const p: unknown = JSON.parse(line);
    if (typeof p === "string") return p;
  } catch { /* not JSON */ }
  return line.trim();
}

/** What the parent's end means to a worker, set while it runs a job. */
interface WorkerEnd {
  /** Whether a job runs. */
  busy: boolean;
  /** Removes the listeners. */
  release: () => void;
}

/** What a worker records as the cause when its parent is gone. */
const PARENT_GONE = "the end of its --deploy local process";

/**
 * A `--deploy-worker` stops with its parent (R84-4): workers lead their
 * own process groups, so a SIGKILL of the command's group misses them; the
 * end of its stdin (the parent's pipe) while a job runs aborts that job
 * (recorded `aborted`, as on SIGTERM) and ends the worker. A SIGHUP the
 * parent passes on is recorded as SIGHUP.
 */
function stopWithParent(lines: ReturnType<typeof createInterface>): WorkerEnd {
  const onHup = () => interruptJobs("SIGHUP");
  const end: WorkerEnd = {
    busy: false,
    release: () => void process.removeListener("SIGHUP", onHup),
  };
  lines.on("close", () => {
    if (!end.busy) return;
    interruptJobs(PARENT_GONE);
    process.exit(1); // held by no one here; never left running without a parent
  });
  // not when the worker started with SIGHUP ignored: it stays ignored (R107-2)
  for (const s of listenableSignals(["SIGHUP"])) process.on(s, onHup);
  keepIgnored();
  return end;
}

/** Whether a job path is under one of the top job's store roots. */
function inStore(path: string, top: Job): boolean {
  return isAbsolute(path) && top.store.roots.some((r) => path.startsWith(r + sep));
}

/**
 * Why a worker cannot run a job path: not in the graph — and, when the path
 * is under none of this store's roots, that the store differs (a batch job
 * without the submitting shell's `SCOUT_HOME`); else the input file that
 * changed since the job was submitted (`changed`), or what may have (R109-1).
 */
function notInGraph(path: string, top: Job, changed: string | null): string {
  const what = `Job "${path}" is not in the graph of ${top.shortPath}`;
  const { roots, home } = top.store;
  if (!isAbsolute(path)) return what;
  if (inStore(path, top)) {
    return `${what}: ${
      changed ??
        "the job its inputs make now is not the one submitted (did its workflow, or a file or " +
          "directory an input names, change since?)"
    }`;
  }
  return `${what}: it is not under this job store (${roots.join(", ")}; SCOUT_HOME ${home}); ` +
    "does this process have the submitting shell's SCOUT_HOME (or --jobs-dir)?";
}

/**
 * The rules of `--deploy-rules`, read and checked, if given; a rule naming a
 * task that a workflow of `top`'s graph does not have is warned about (it
 * would never apply).
 *
 * @param opts options
 * @param io I/O (cwd, warnings)
 * @param top the top job
 * @returns the rules, or undefined
 */
export async function rulesOf(
  opts: DeployOptions,
  io: Io,
  top: Job,
): Promise<DeployRules | undefined> {
  if (opts.deployRules === undefined) return undefined;
  const { graphJobs, loadRules, parseRules, unknownRuleTasks } = await deployLib();
  // R128-7: `-` reads stdin, which a deploy leaves alone (an input from stdin is refused)
  const rules = opts.deployRules === "-"
    ? await parseRules((await readInput("-", io, { what: "the deploy rules" })).text, "<stdin>")
    : await loadRules(resolve(io.cwd, opts.deployRules), opts.deployRules);
  const workflows = new Set(graphJobs(top).map((j) => j.workflow).filter((w) => w !== null));
  for (const u of unknownRuleTasks(rules, [...workflows])) {
    const where = `${rules.file}${u.line !== undefined ? `:${u.line}` : ""}`;
    warn(
      io,
      `deploy rules ${u.path} (${where}): ${u.workflow} has no task "${u.task}"; its rules never apply`,
    );
  }
  return rules;
}

/** A local deploy ended by a signal: which, and the jobs it recorded `aborted`. */
export interface LocalStop {
  /** The signal's name. */
  signal: string;
  /** Paths of the jobs recorded `aborted`. */
  aborted: string[];
}

/** The signals that stop a local deploy (a supervisor's `kill PID`, Ctrl-C, a closed terminal). */
const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * `--deploy local`: runs the pending jobs in worker processes, then returns
 * (the caller loads the top result as in a serial run). In a real process
 * SIGINT, SIGTERM and SIGHUP stop it: the workers are stopped and the jobs
 * they ran recorded `aborted` (R81-4); a second signal waits for that too.
 *
 * @param top the top job
 * @param opts command options
 * @param io I/O
 * @param inputs the workers' options naming the saved input files (`--deploy-inputs DIR`)
 * @returns null, or how a signal stopped it
 */
export async function runLocalDeploy(
  top: Job,
  opts: WorkflowTaskOptions & DeployOptions,
  io: Io,
  inputs: readonly string[] = [],
): Promise<LocalStop | null> {
  const { deployLocal } = await deployLib();
  const rules = await rulesOf(opts, io, top);
  const cpus = opts.cpus !== undefined ? Number(opts.cpus) : availableParallelism();
  const line = statusLine(io);
  const stop = new AbortController();
  const real = typeof process !== "undefined" && io.env === process.env;
  // none the process started with ignored (nohup: SIGHUP) is taken: it stays ignored (R107-2)
  const handlers = (real ? listenableSignals(STOP_SIGNALS) : []).map((sig) =>
    [sig, () => stop.abort(sig)] as const
  );
  for (const [sig, h] of handlers) process.on(sig, h);
  keepIgnored();
  try {
    const report = await deployLocal(top, {
      cpus,
      ...(rules !== undefined ? { rules } : {}),
      workerArgv: (await workerArgv(opts, io))(["--deploy-worker", ...inputs]),
      cwd: io.cwd,
      env: io.env,
      stop: stop.signal,
      onOutput: (t) => io.stderr.write(t),
      onEvent: (e) =>
        line.show(`${e.type} (${e.running} running, ${e.left} left)`, e.job.shortPath),
    });
    return report.stopped ?? null;
  } finally {
    for (const [sig, h] of handlers) process.removeListener(sig, h);
    line.clear({ always: true });
  }
}
