/**
 * The context a task body runs with (`workflow.md` §1.2): its inputs, its
 * dependencies, its files and its info.
 *
 * @module
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { ScoutError } from "../errors.ts";
import { fileError } from "../util/fs.ts";
import { ownRecord } from "../util/own_record.ts";
import type { Workflow } from "./define.ts";
import type { Task } from "./define.ts";
import { isJob, type Job, type JobContext } from "./job_types.ts";
import { jobFile } from "./files.ts";
import { readJobInfo, updateJobInfo, writeJobInfo } from "./info.ts";
import { deserializeResult } from "./result.ts";
import { filesDir, tmpPath } from "./store.ts";

/** What the context needs from the runner. */
export interface ContextHooks {
  /** Loads (running it first when needed) a job's result. */
  load(job: Job): Promise<unknown>;
  /** Called after a custom status was logged. */
  onStatus?(job: Job, status: string): void;
  /** Whether info writes happen (false for `exec`). */
  persist: boolean;
  /**
   * The running job's info, kept in memory by the runner (it holds the lock):
   * `merge` applies Scout's merge rule, `replace` overwrites keys. Without it the
   * context reads and rewrites the file.
   */
  info?: {
    merge(patch: Record<string, unknown>): Promise<void>;
    replace(patch: Record<string, unknown>): Promise<void>;
  };
  /** Aborted on interrupt. */
  signal: AbortSignal;
  /** Body values already computed for some inputs (e.g. `exec` of input dependencies). */
  inputs?: Record<string, unknown>;
}

/**
 * Finds a dependency by task name: direct dependencies first, then depth-first.
 *
 * @param job the job
 * @param taskName task name
 * @returns the dependency or undefined
 */
export function findStep(job: Job, taskName: string): Job | undefined {
  // the recursive search's order (a job's direct dependencies, then each
  // dependency's search in turn) on an explicit stack: a chain 10,000 deep ran
  // the stack out
  const searched = new Set<Job>();
  const stack = [job];
  while (stack.length > 0) {
    const j = stack.pop()!;
    if (searched.has(j)) continue; // searched already: found nothing
    searched.add(j);
    const direct = j.deps.find((d) => d.taskName === taskName || d.overriddenTask === taskName);
    if (direct !== undefined) return direct;
    for (let i = j.deps.length - 1; i >= 0; i--) stack.push(j.deps[i]!);
  }
  return undefined;
}

/**
 * Own inputs over the dependencies' recursive inputs (first occurrence wins).
 *
 * @param job the job
 * @returns input values by name (a record without a prototype: an input
 *   called `toString` is a key like any)
 */
export function jobRecursiveInputs(job: Job): Record<string, unknown> {
  const out = ownRecord();
  const seen = new Set<string>();
  // depth-first, each job once, on an explicit stack (a deep chain ran the stack out)
  const stack = [job];
  while (stack.length > 0) {
    const j = stack.pop()!;
    if (seen.has(j.path)) continue;
    seen.add(j.path);
    for (const [k, v] of Object.entries(j.inputs)) if (!Object.hasOwn(out, k)) out[k] = v;
    for (let i = j.deps.length - 1; i >= 0; i--) stack.push(j.deps[i]!);
  }
  return out;
}

/**
 * The values the body receives: jobs given as input values (input
 * dependencies) become their result loaded as the input's type, or their
 * path for `path`/`file`/`folder`/no-load inputs.
 *
 * @param job the job
 * @param given values already computed for some inputs (taken as they are)
 * @returns own input values by name (a record without a prototype)
 */
export function bodyInputs(
  job: Job,
  given: Record<string, unknown> = {},
): Record<string, unknown> {
  const out = ownRecord();
  for (const [name, value] of Object.entries(job.inputs)) {
    if (Object.hasOwn(given, name)) {
      out[name] = given[name];
      continue;
    }
    const def = job.task?.inputs.find((i) => i.name === name);
    if (!isJob(value) || def === undefined) {
      out[name] = value;
      continue;
    }
    const asPath = ["path", "file", "folder"].includes(def.type) || def.noload || def.nofile ||
      def.asfile || def.stream;
    if (asPath) {
      out[name] = value.path;
      continue;
    }
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(value.path);
    } catch (e) {
      throw fileError(value.path, e);
    }
    out[name] = deserializeResult(bytes, def.type === "chat" ? "text" : def.type);
  }
  return out;
}

/**
 * Builds the job context for a body.
 *
 * @param job the job (with its workflow and task)
 * @param hooks loading, status reporting, persistence, signal
 * @returns the context
 */
export function jobContext(job: Job, hooks: ContextHooks): JobContext {
  const wf = job.workflow as Workflow;
  const task = job.task as Task;
  const write = async (patch: Record<string, unknown>) => {
    if (!hooks.persist) return;
    if (hooks.info !== undefined) await hooks.info.merge(patch);
    else await updateJobInfo(job.path, patch);
  };
  const ctx: JobContext = {
    job,
    path: job.path,
    shortPath: job.shortPath,
    name: job.id,
    workflow: wf,
    task,
    inputs: bodyInputs(job, hooks.inputs),
    get recursiveInputs() {
      // computed on use: walking a deep chain for every job would be quadratic
      return jobRecursiveInputs(job);
    },
    dependencies: job.deps,
    filesDir: filesDir(job.path),
    tmpPath: tmpPath(job.path),
    step: (name) => findStep(job, name),
    load: (ref) => {
      const target = typeof ref === "string" ? findStep(job, ref) : ref;
      if (target === undefined) {
        throw new ScoutError(
          "job_not_found",
          `Job ${job.shortPath} has no dependency "${String(ref)}"`,
          { file: job.path },
        );
      }
      return hooks.load(target);
    },
    file: (rel) => {
      const p = jobFile(job.path, rel);
      if (hooks.persist) mkdirSync(dirname(p), { recursive: true });
      return p;
    },
    log: async (status, message) => {
      await write(message === undefined ? { status } : { status, messages: [message] });
      hooks.onStatus?.(job, status);
    },
    message: (message) => write({ message }),
    setInfo: (key, value) => write({ [key]: value }),
    updateInfo: async (patch) => {
      if (!hooks.persist) return;
      if (hooks.info !== undefined) return await hooks.info.replace(patch);
      const { info } = await readJobInfo(job.path);
      await writeJobInfo(job.path, { ...(info ?? {}), ...patch });
    },
    helpers: {},
    signal: hooks.signal,
  };
  for (const [name, fn] of Object.entries(wf.helpers)) {
    ctx.helpers[name] = (...args: unknown[]) => fn(ctx, ...args);
  }
  return ctx;
}

/**
 * Whether a job's result file exists (done ⇔ result exists, §4).
 *
 * @param job the job
 * @returns true when done
 */
export function isDone(job: Job): boolean {
  return existsSync(job.path);
}
