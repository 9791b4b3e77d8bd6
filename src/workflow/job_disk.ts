/**
 * Jobs found on disk: a job path (or a Scout job written by Ruby) read back
 * as a {@link Job} with its dependencies, from its `.info` or its path.
 *
 * @module
 */
import { isAbsolute, resolve } from "node:path";
import { ScoutError } from "../errors.ts";
import { ownRecord } from "../util/own_record.ts";
import { JOB, type Job } from "./job_types.ts";
import { infoDependencies, readJobInfoSync } from "./info.ts";
import { type JobStore, jobStore, resolveJobReference, rootOf, shortPath } from "./store.ts";

/** A Map: a job named `x.constructor` has no type of Object.prototype's. */
const TYPE_BY_EXT = new Map([["json", "json"], ["yaml", "yaml"], ["tsv", "tsv"], ["chat", "chat"]]);

/**
 * A job known from disk (a Scout-made job, an override, a reference from a
 * chat): path resolved over the store's roots (relocation by the last three
 * components), names and type from its info (else from the path), and its
 * dependencies from the info, relocated the same way.
 *
 * @param ref absolute or relative path, or short path `Workflow/task/name`
 * @param opts store, cwd and env
 * @returns the job (workflow and task are null)
 * @throws ScoutError `job_not_found` when nothing exists for the reference
 */
export function jobAt(
  ref: string,
  opts: { store?: JobStore; cwd?: string; env?: Record<string, string | undefined> } = {},
): Job {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const store = opts.store ?? jobStore({ env, cwd });
  const found = resolveJobReference(ref, { roots: store.roots, cwd, env });
  if (found === null) {
    throw new ScoutError("job_not_found", `Job not found: "${ref}"`, { reference: ref });
  }
  return diskJob(found, { store, cwd, env, seen: new Map() });
}

interface DiskWalk {
  store: JobStore;
  cwd: string;
  env: Record<string, string | undefined>;
  /** Jobs built so far by path (shared dependencies are one record). */
  seen: Map<string, Job>;
}

/** A job read whose dependencies are being read: the references its info lists, and the next. */
interface DiskFrame {
  job: Job;
  refs: string[];
  next: number;
}

/**
 * The job at a resolved path, its dependencies resolved over its own root
 * first, depth-first in the order its info lists them — on an explicit
 * stack: a chain of 10,000 dependencies ran the call stack out.
 */
function diskJob(found: string, walk: DiskWalk): Job {
  const root = openJob(found, walk);
  const stack: DiskFrame[] = root.refs === undefined ? [] : [{ ...root, refs: root.refs, next: 0 }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.next >= top.refs.length) {
      stack.pop();
      continue;
    }
    const ref = top.refs[top.next++]!;
    // A dependency that exists nowhere stays out of `deps` (the info still lists it).
    const at = resolveJobReference(ref, {
      roots: top.job.store.roots,
      cwd: walk.cwd,
      env: walk.env,
    });
    if (at === null) continue;
    const dep = openJob(at, { ...walk, store: top.job.store });
    top.job.deps.push(dep.job);
    if (dep.refs !== undefined) stack.push({ job: dep.job, refs: dep.refs, next: 0 });
  }
  return root.job;
}

/**
 * The job record at a resolved path, its dependencies still to read (their
 * references), or the record read already (no references).
 */
function openJob(found: string, walk: DiskWalk): { job: Job; refs?: string[] } {
  const { store, cwd, seen } = walk;
  const path = isAbsolute(found) ? found : resolve(cwd, found);
  const prior = seen.get(path);
  if (prior !== undefined) return { job: prior };
  const { info } = readJobInfoSync(path);
  const parts = path.split("/");
  const name = parts.at(-1)!;
  const ext = /\.([a-z]+)$/.exec(name)?.[1];
  const inputNames = Array.isArray(info?.input_names) ? info.input_names.map(String) : [];
  const inputs = ownRecord(); // input names from the info: `toString` is a key like any
  if (Array.isArray(info?.inputs)) inputNames.forEach((n, i) => inputs[n] = info.inputs![i]);
  const job: Job = {
    [JOB]: true,
    path,
    name,
    id: /^(.*?)(?:_[a-f0-9]{32})?(?:\.[^.]*)?$/.exec(name)?.[1] ?? name,
    shortPath: shortPath(path),
    workflowName: typeof info?.workflow === "string" ? info.workflow : parts.at(-3) ?? "",
    taskName: typeof info?.task_name === "string" ? info.task_name : parts.at(-2) ?? "",
    workflow: null,
    task: null,
    type: typeof info?.type === "string" ? info.type : TYPE_BY_EXT.get(ext ?? "") ?? "binary",
    inputs,
    inputNames,
    providedInputs: info?.provided_inputs && typeof info.provided_inputs === "object"
      ? ownRecord(info.provided_inputs as Record<string, unknown>)
      : ownRecord(),
    nonDefaultInputs: Array.isArray(info?.non_default_inputs)
      ? info.non_default_inputs.map(String)
      : [],
    deps: [],
    compute: {},
    store: { ...store, roots: [...new Set([rootOf(path), ...store.roots])] },
  };
  seen.set(path, job);
  return { job, refs: infoDependencies(info) };
}

/**
 * Loads a job from disk by reference (DESIGN name for {@link jobAt}): an
 * absolute or relative path, a short path `Workflow/task/name`, or a path
 * from another machine (relocated by its last three components).
 *
 * @param ref the job reference
 * @param opts store, cwd and env
 * @returns the job (workflow and task are null; use `loadJobResult`, `jobInfo`)
 * @throws ScoutError `job_not_found`
 *
 * @example
 * ```ts ignore
 * import { loadJob } from "./job.ts";
 * const job = loadJob("Baking/whisk/Default");
 * job.deps.map((d) => d.shortPath);
 * ```
 */
export function loadJob(
  ref: string,
  opts: { store?: JobStore; cwd?: string; env?: Record<string, string | undefined> } = {},
): Job {
  return jobAt(ref, opts);
}
