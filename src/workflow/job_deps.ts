/**
 * A job's dependencies as its build works them out (`workflow.md` §1.4,
 * §3.2): overrides given as `Workflow#task`, `resolve` blocks, input
 * propagation and references to inputs and earlier dependencies. Each
 * dependency job is yielded to the build's work stack (`job_stack.ts`), which
 * builds it and hands it back: nothing here recurses.
 *
 * @module
 */
import { ScoutError } from "../errors.ts";
import { type DepSpec, depTaskOf, depWorkflow, type Workflow } from "./define.ts";
import { isJob, type Job } from "./job_types.ts";
import { jobAt } from "./job_disk.ts";
import { plainAll, type RefScope, resolveRefs } from "./job_refs.ts";
import type { JobStore } from "./store.ts";
import { ownRecord } from "../util/own_record.ts";
import type { InputContext, JobRequest } from "./job_inputs.ts";
import type { Build, BuildState, JobToBuild } from "./job_stack.ts";

/** What a job's build needs: input assignment, the store of each workflow, the build's state. */
export interface BuildContext extends InputContext, BuildState {
  /** The store a workflow's jobs go to in this build. */
  storeOf: (wf: Workflow) => JobStore;
}

/** A job's dependencies as built: the jobs, their compute hints, the non-default inputs they bring. */
export interface BuiltDeps {
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
 *
 * @param req the dependent job
 * @param own its own inputs, and the job name its dependencies take
 * @param ctx the build
 * @returns the dependencies (a build: each dependency job is yielded to be built)
 */
export function* buildDeps(
  req: JobRequest,
  own: { inputs: Record<string, unknown>; depId: string | undefined },
  ctx: BuildContext,
): Build<BuiltDeps> {
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
    else if (dep.resolve !== undefined) yield* addResolvedDeps(site);
    else yield* addDep(site, ownRecord(req.provided, dep.inputs), ownRecord(dep.inputs));
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
    store: ctx.storeOf(dwf),
    cwd: ctx.cwd,
    env: ctx.env,
  });
  return { ...j, overriddenTask: dep.task };
}

/** The jobs a dependency's `resolve` block yields: jobs as they are, options as jobs built. */
function* addResolvedDeps(site: DepSite): Build<void> {
  const { req, dep, built } = site;
  const blockOptions = ownRecord(
    plainAll(req.provided),
    site.inputs,
    plainAll(resolveRefs(dep.inputs ?? {}, refScope(site))),
  );
  const res = dep.resolve!(site.depId, blockOptions, [...built.deps]);
  for (const item of Array.isArray(res) ? res : [res]) {
    if (isJob(item)) {
      built.deps.push(item);
      built.nonDefault.push(
        ...item.nonDefaultInputs.filter((n) => !Object.hasOwn(blockOptions, n)),
      );
    } else {
      yield* addDep(site, ownRecord(blockOptions, item as Record<string, unknown>), blockOptions);
    }
  }
}

/** Loads the dependency job with these options and records what it brings. */
function* addDep(
  site: DepSite,
  stepOptions: Record<string, unknown>,
  pinned: Record<string, unknown>,
): Build<void> {
  const { dep, built } = site;
  const j = yield loadDep(site, stepOptions, pinned);
  built.deps.push(j);
  // own keys: a dependency's input `toString` is not fixed by Object.prototype's
  built.nonDefault.push(...j.nonDefaultInputs.filter((n) => !Object.hasOwn(dep.inputs ?? {}, n)));
  hints(built.compute, j, dep);
}

/**
 * The dependency job to build from its step options: `task`, `workflow` and
 * `jobname` options pick another task, workflow or name; `inputs` (else the
 * rest) are its inputs, over the definition's own, references resolved.
 */
function loadDep(
  site: DepSite,
  stepOptions: Record<string, unknown>,
  definitionOptions: Record<string, unknown>,
): JobToBuild {
  const { dep, dwf } = site;
  const opts = ownRecord(stepOptions);
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
  const stepInputs = ownRecord(
    definitionOptions,
    opts.inputs !== undefined && typeof opts.inputs === "object"
      ? opts.inputs as Record<string, unknown>
      : opts,
  );
  delete stepInputs.inputs;
  const provided = resolveRefs(stepInputs, refScope(site));
  return { wf, task: depTaskOf(site.req, wf, taskName), id, provided, nameDeps: true };
}

function hints(compute: Record<string, string[]>, job: Job, dep: DepSpec): void {
  const h = [...(dep.compute ?? [])];
  if (dep.canfail) h.push("canfail");
  if (dep.produce) h.push("produce");
  if (dep.stream) h.push("stream");
  if (h.length > 0) compute[job.path] = h;
}
