/**
 * Job identity (`workflow.md` §1.3–§2): from a task and provided inputs to a
 * job record — coerced inputs, dependencies with input propagation and
 * overrides, non-default inputs, the job name (digest when needed) and its
 * path in the store. Nothing is written.
 *
 * @module
 */
import {
  type BuildDepth,
  depthCounted,
  enterBuild,
  memoKey,
  newBuildDepth,
  tooDeep,
} from "./job_depth.ts";
import { ScoutError } from "../errors.ts";
import {
  type DepSpec,
  depTaskOf,
  depWorkflow,
  type Task,
  taskOf,
  type Workflow,
} from "./define.ts";
import { isJob, JOB, type Job } from "./job_types.ts";
import { jobAt } from "./job_disk.ts";
import { plain, plainAll, type RefScope, resolveRefs } from "./job_refs.ts";
import { type JobStore, jobStore, shortPath, withJobsDir } from "./store.ts";
import { checkJobName, jobIdOf, jobName, locateJob } from "./job_name.ts";
import { assignInputs, type InputContext, type JobRequest, requireInputs } from "./job_inputs.ts";

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
}

interface BuildContext extends InputContext {
  store?: JobStore;
  memo: Map<string, Job>;
  /** Dependency depth of the job being built now, and the deepest reached (R89-4). */
  depth: BuildDepth;
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
  const ctx: BuildContext = {
    ...(opts.store !== undefined ? { store: opts.store } : {}),
    loadFiles: opts.loadFiles ?? false,
    cwd: opts.cwd ?? process.cwd(),
    env: opts.env ?? process.env,
    memo: new Map(),
    warn: opts.warn ?? (() => {}),
    warned: new Set(),
    depth: newBuildDepth(),
  };
  const task = taskOf(wf, taskName);
  if (opts.jobname !== undefined) checkJobName(opts.jobname, `${wf.name}/${task.name}`);
  const inputs = { ...(opts.inputs ?? {}) };
  try {
    return buildJob(wf, task, opts.jobname, inputs, ctx, opts.nameDependencies ?? true);
  } catch (e) {
    throw tooDeep(e, `${wf.name}/${task.name}`, ctx.depth) ?? e;
  }
}

/**
 * Builds a job (memoised per build): its id, own inputs, dependencies, name
 * and record. `nameDeps` false: the id is this job's alone (§1.4).
 */
function buildJob(
  wf: Workflow,
  task: Task,
  idIn: string | undefined,
  provided: Record<string, unknown>,
  ctx: BuildContext,
  nameDeps = true,
): Job {
  const key = memoKey(wf, task, idIn, provided);
  const cached = ctx.memo.get(key);
  if (cached !== undefined) return cached;
  const where = `${wf.name}/${task.name}`;
  const leave = enterBuild(ctx.depth, key, where, wf.file);
  try {
    const job = buildNew(wf, task, idIn, provided, ctx, nameDeps);
    ctx.memo.set(key, job);
    return job;
  } finally {
    leave();
  }
}

/** Builds a job not built yet in this build (see {@link buildJob}). */
function buildNew(
  wf: Workflow,
  task: Task,
  idIn: string | undefined,
  provided: Record<string, unknown>,
  ctx: BuildContext,
  nameDeps: boolean,
): Job {
  const where = `${wf.name}/${task.name}`;
  // §2.1: the id exists (and is shortened) before inputs are assigned; an
  // unprovided jobname input takes it.
  const id = jobIdOf(task, idIn, provided);
  const req: JobRequest = { wf, task, provided, where };
  requireInputs(req);
  const own = assignInputs(req, id, ctx);
  const { inputs, digestArray } = own;
  const depId = id !== "Default" && nameDeps ? id : undefined;
  const { deps, compute, nonDefault: depsNonDefault } = depthCounted(
    ctx.depth,
    where,
    () => buildDeps(req, { inputs, depId }, ctx),
  );
  // §2.2, §3.2: override keys (`Workflow#task`) are never non-default inputs.
  const nonDefault = [...new Set([...own.nonDefault, ...depsNonDefault])].filter((k) =>
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
  const store = ctx.store ?? storeFor(wf, ctx);
  const path = locateJob(store, wf.name, task.name, name);
  const providedInputs: Record<string, unknown> = {};
  for (const n of nonDefault) if (n in provided) providedInputs[n] = plain(provided[n]);
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

/** A job's dependencies as built: the jobs, their compute hints, the non-default inputs they bring. */
interface BuiltDeps {
  deps: Job[];
  compute: Record<string, string[]>;
  nonDefault: string[];
}

/** One dependency being built: its spec and workflow, and the job that depends on it. */
interface DepSite {
  req: JobRequest;
  dep: DepSpec;
  dwf: Workflow;
  /** The dependent job's own inputs. */
  inputs: Record<string, unknown>;
  /** The job name dependencies take (§1.4), if any. */
  depId: string | undefined;
  built: BuiltDeps;
  ctx: BuildContext;
}

/**
 * Builds a task's dependencies in order (§1.4, §3.2): an override given as
 * `Workflow#task` replaces one, a `resolve` block yields jobs or options,
 * else the dependency is built from the provided inputs and its own.
 */
function buildDeps(
  req: JobRequest,
  own: { inputs: Record<string, unknown>; depId: string | undefined },
  ctx: BuildContext,
): BuiltDeps {
  const built: BuiltDeps = { deps: [], compute: {}, nonDefault: [] };
  for (const dep of req.task.deps) {
    const dwf = depWorkflow(req.wf, dep);
    if (dwf === undefined) {
      throw new ScoutError(
        "workflow_not_found",
        `Workflow "${String(dep.workflow)}" of a dependency of ${req.where} is not loaded`,
      );
    }
    const site: DepSite = { req, dep, dwf, ...own, built, ctx };
    const override = req.provided[`${dwf.name}#${dep.task}`];
    if (override !== undefined && override !== null) built.deps.push(overrideDep(site, override));
    else if (dep.resolve !== undefined) addResolvedDeps(site);
    else addDep(site, { ...req.provided, ...(dep.inputs ?? {}) }, dep.inputs ?? {});
  }
  return built;
}

/** What the references in a dependency's options (to inputs, earlier dependencies) resolve against. */
function refScope({ req, inputs, built }: DepSite): RefScope {
  return { provided: req.provided, inputs, deps: built.deps, task: req.task };
}

/** The job an override (`Workflow#task` given a job or its path) puts in a dependency's place. */
function overrideDep({ dep, dwf, ctx }: DepSite, override: unknown): Job {
  const j = isJob(override) ? override : jobAt(String(override), {
    store: ctx.store ?? storeFor(dwf, ctx),
    cwd: ctx.cwd,
    env: ctx.env,
  });
  return { ...j, overriddenTask: dep.task };
}

/** The jobs a dependency's `resolve` block yields: jobs as they are, options as jobs built. */
function addResolvedDeps(site: DepSite): void {
  const { req, dep, built } = site;
  const blockOptions: Record<string, unknown> = {
    ...plainAll(req.provided),
    ...site.inputs,
    ...plainAll(resolveRefs(dep.inputs ?? {}, refScope(site))),
  };
  const res = dep.resolve!(site.depId, blockOptions, [...built.deps]);
  for (const item of Array.isArray(res) ? res : [res]) {
    if (isJob(item)) {
      built.deps.push(item);
      built.nonDefault.push(...item.nonDefaultInputs.filter((n) => !(n in blockOptions)));
    } else {
      addDep(site, { ...blockOptions, ...(item as Record<string, unknown>) }, blockOptions);
    }
  }
}

/** Loads the dependency job with these options and records what it brings. */
function addDep(
  site: DepSite,
  stepOptions: Record<string, unknown>,
  pinned: Record<string, unknown>,
): void {
  const { dep, built } = site;
  const j = loadDep(site, stepOptions, pinned);
  built.deps.push(j);
  built.nonDefault.push(...j.nonDefaultInputs.filter((n) => !(n in (dep.inputs ?? {}))));
  hints(built.compute, j, dep);
}

/**
 * A dependency's job from its step options: `task`, `workflow` and
 * `jobname` options pick another task, workflow or name; `inputs` (else the
 * rest) are its inputs, over the definition's own, references resolved.
 */
function loadDep(
  site: DepSite,
  stepOptions: Record<string, unknown>,
  definitionOptions: Record<string, unknown>,
): Job {
  const { dep, dwf } = site;
  const opts = { ...stepOptions };
  let wf = dwf;
  let taskName = dep.task;
  let id = dep.jobname ?? site.depId;
  if (typeof opts.task === "string") taskName = opts.task;
  if (opts.workflow !== undefined) {
    const w = depWorkflow(dwf, { workflow: opts.workflow as string | Workflow });
    if (w === undefined) {
      throw new ScoutError(
        "workflow_not_found",
        `Workflow "${String(opts.workflow)}" is not loaded`,
      );
    }
    wf = w;
  }
  if (typeof opts.jobname === "string") id = opts.jobname;
  delete opts.task;
  delete opts.workflow;
  delete opts.jobname;
  const stepInputs: Record<string, unknown> = {
    ...definitionOptions,
    ...(opts.inputs !== undefined && typeof opts.inputs === "object"
      ? opts.inputs as Record<string, unknown>
      : opts),
  };
  delete stepInputs.inputs;
  const resolved = resolveRefs(stepInputs, refScope(site));
  return buildJob(wf, depTaskOf(site.req, wf, taskName), id, resolved, site.ctx);
}

function hints(compute: Record<string, string[]>, job: Job, dep: DepSpec): void {
  const h = [...(dep.compute ?? [])];
  if (dep.canfail) h.push("canfail");
  if (dep.produce) h.push("produce");
  if (dep.stream) h.push("stream");
  if (h.length > 0) compute[job.path] = h;
}

export { jobAt, loadJob } from "./job_disk.ts";
export { truncateJobName } from "./job_name.ts";
