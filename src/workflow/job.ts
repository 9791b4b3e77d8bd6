/**
 * Job identity (`workflow.md` §1.3–§2): from a task and provided inputs to a
 * job record — coerced inputs, dependencies with input propagation and
 * overrides, non-default inputs, the job name (digest when needed) and its
 * path in the store. Nothing is written.
 *
 * @module
 */
import { type Build, buildJobs, type JobToBuild, newBuildState } from "./job_stack.ts";
import { type BuildContext, buildDeps } from "./job_deps.ts";
import { taskOf, type Workflow } from "./define.ts";
import { JOB, type Job } from "./job_types.ts";
import { plain } from "./job_refs.ts";
import { type JobStore, jobStore, shortPath, withJobsDir } from "./store.ts";
import { checkJobName, jobIdOf, jobName, locateJob } from "./job_name.ts";
import { assignInputs, type JobRequest, requireInputs } from "./job_inputs.ts";
import { ownRecord } from "../util/own_record.ts";

/** Options of {@link createJob}. */
export interface CreateJobOptions {
  /** Job name (else the `jobname` input's value, else `Default`). */
  jobname?: string;
  /** False: `jobname` is this job's alone, its dependencies named as under `Default` (§1.4). */
  nameDependencies?: boolean;
  /** Provided inputs by name (own and dependencies'; `Workflow#task` keys override dependencies). */
  inputs?: Record<string, unknown>;
  /** Store to use for every workflow involved (default: from env/cwd and each workflow's `jobsDir`). */
  store?: JobStore;
  /** Replace strings naming existing files by their content (CLI arguments only, §7.4 #2). */
  loadFiles?: boolean;
  /** Working directory (file inputs, default store). */
  cwd?: string;
  /** Environment (default store, `~/`). */
  env?: Record<string, string | undefined>;
  /**
   * Receives warnings (a select value outside its options, §1.3), each once
   * per call; the CLI prints them on stderr. Default: none reported.
   */
  warn?: (message: string) => void;
  /**
   * Input values to record (`provided_inputs`) as other values: a deploy's
   * worker builds the job from copies of the files the command line named,
   * saved when it was submitted, and records each as typed, as a serial
   * run does (R109-1).
   */
  typedAs?: ReadonlyMap<string, string>;
}

/**
 * The store a workflow's jobs go to: the explicit store, else the explicit
 * jobs directory (`--jobs-dir`), else `SCOUT_JOBS_DIR`, else the workflow's
 * `jobsDir`, else `$SCOUT_HOME/var/jobs` (cwd first on lookup).
 *
 * @param wf the workflow
 * @param opts explicit store or jobs directory, env, cwd
 * @returns the store
 */
export function storeFor(
  wf: Workflow,
  opts: {
    store?: JobStore;
    jobsDir?: string;
    env?: Record<string, string | undefined>;
    cwd?: string;
  } = {},
): JobStore {
  if (opts.store !== undefined) return opts.store;
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  if (opts.jobsDir !== undefined) return jobStore({ env, cwd, jobsDir: opts.jobsDir });
  const base = jobStore({ env, cwd });
  if (!env.SCOUT_JOBS_DIR && wf.jobsDir !== undefined) return withJobsDir(base, wf.jobsDir);
  return base;
}

/**
 * Creates a job: coerces and validates inputs, builds dependencies,
 * computes the name (with a digest when a provided input is non-default, §2.2)
 * and the path. Writes nothing.
 *
 * @param wf the workflow
 * @param taskName task name
 * @param opts job name, provided inputs, store, CLI file loading
 * @returns the job
 * @throws ScoutError `task_not_found` (with suggestions), `parameter` (missing
 *   required inputs — then its `inputs` field lists them, quoted —, wrong
 *   types, a job name with `/`)
 *
 * @example
 * ```ts
 * import { input, workflow } from "./define.ts";
 * import { createJob } from "./job.ts";
 * const wf = workflow("Baking", {
 *   jobsDir: "/tmp/jobs",
 *   tasks: { whisk: { type: "string", inputs: { eggs: input.integer({ default: 2 }) }, run: ({ eggs }) => `${eggs}` } },
 * });
 * createJob(wf, "whisk").shortPath; // "Baking/whisk/Default"
 * createJob(wf, "whisk", { inputs: { eggs: "2" }, jobname: "mine" }).name; // "mine"
 * ```
 */
export function createJob(wf: Workflow, taskName: string, opts: CreateJobOptions = {}): Job {
  const inputCtx = {
    loadFiles: opts.loadFiles ?? false,
    cwd: opts.cwd ?? process.cwd(),
    env: opts.env ?? process.env,
    warn: opts.warn ?? (() => {}),
    warned: new Set<string>(),
    ...(opts.typedAs !== undefined ? { typedAs: opts.typedAs } : {}),
  };
  const ctx: BuildContext = {
    ...inputCtx,
    ...newBuildState(),
    storeOf: (w) =>
      storeFor(w, { ...(opts.store !== undefined ? { store: opts.store } : {}), ...inputCtx }),
  };
  const task = taskOf(wf, taskName);
  if (opts.jobname !== undefined) checkJobName(opts.jobname, `${wf.name}/${task.name}`);
  // no prototype: an input called `toString` or `__proto__` is a key like any
  const inputs = ownRecord(opts.inputs);
  const root: JobToBuild = {
    wf,
    task,
    id: opts.jobname,
    provided: inputs,
    nameDeps: opts.nameDependencies ?? true,
  };
  return buildJobs(root, ctx, (j) => buildJob(j, ctx));
}

/**
 * Builds a job not built yet in this build: its id, own inputs,
 * dependencies (yielded to the build's work stack), name and record.
 * `nameDeps` false: the id is this job's alone (§1.4).
 */
function* buildJob(
  { wf, task, id: idIn, provided, nameDeps }: JobToBuild,
  ctx: BuildContext,
): Build<Job> {
  const where = `${wf.name}/${task.name}`;
  // §2.1: the id exists (and is shortened) before inputs are assigned; an
  // unprovided jobname input takes it.
  const id = jobIdOf(task, idIn, provided);
  const req: JobRequest = { wf, task, provided, where };
  requireInputs(req);
  const own = assignInputs(req, id, ctx);
  const { inputs, digestArray } = own;
  const depId = id !== "Default" && nameDeps ? id : undefined;
  const built = yield* buildDeps(req, { inputs, depId }, ctx);
  const { deps, compute } = built;
  // §2.2, §3.2: override keys (`Workflow#task`) are never non-default inputs.
  const nonDefault = [...new Set([...own.nonDefault, ...built.nonDefault])].filter((k) =>
    !k.includes("#")
  );
  const overridden = replacedByOverride(provided, deps);
  checkJobName(id, where);
  const name = jobName({
    id,
    task,
    provided,
    nonDefault,
    digestValues: digestArray,
    deps,
    overridden,
    env: ctx.env,
  });
  return jobRecord(req, { id, name, inputs, nonDefault, deps, compute, overridden }, ctx);
}

/** Scout: whether an override given to this job replaced a dependency at any depth. */
function replacedByOverride(provided: Record<string, unknown>, deps: Job[]): boolean {
  return Object.keys(provided).some((k) => k.includes("#") && provided[k] != null) &&
    deps.some((d) => d.overriddenTask !== undefined || d.overridden === true);
}

/** What {@link buildJob} worked out of a job, for {@link jobRecord}. */
interface JobParts {
  id: string;
  name: string;
  inputs: Record<string, unknown>;
  nonDefault: string[];
  deps: Job[];
  compute: Record<string, string[]>;
  overridden: boolean;
}

/** The job record: its path located in the store, its non-default provided inputs kept plain. */
function jobRecord({ wf, task, provided }: JobRequest, parts: JobParts, ctx: BuildContext): Job {
  const { name, nonDefault, overridden } = parts;
  const store = ctx.storeOf(wf);
  const path = locateJob(store, wf.name, task.name, name);
  const providedInputs = ownRecord();
  for (const n of nonDefault) {
    if (Object.hasOwn(provided, n)) providedInputs[n] = asTyped(plain(provided[n]), ctx.typedAs);
  }
  return {
    [JOB]: true,
    path,
    name,
    id: parts.id,
    shortPath: shortPath(path),
    workflowName: wf.name,
    taskName: task.name,
    workflow: wf,
    task,
    type: task.type,
    inputs: parts.inputs,
    inputNames: task.inputs.map((i) => i.name),
    providedInputs,
    nonDefaultInputs: nonDefault,
    deps: parts.deps,
    compute: parts.compute,
    store,
    ...(overridden ? { overridden } : {}),
  };
}

/** A provided value as typed: a saved copy (or a list's) → the value it stands for. */
function asTyped(v: unknown, typedAs: ReadonlyMap<string, string> | undefined): unknown {
  if (typedAs === undefined) return v;
  if (typeof v === "string") return typedAs.get(v) ?? v;
  return Array.isArray(v) ? v.map((x) => asTyped(x, typedAs)) : v;
}

export { jobAt, loadJob } from "./job_disk.ts";
export { truncateJobName } from "./job_name.ts";
