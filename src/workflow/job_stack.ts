/**
 * The build of a job and its dependencies on an explicit work stack: each
 * job's build is a generator that yields the dependency jobs it needs and
 * receives them built, so a chain of dependencies nests on the heap, not on
 * the call stack. A chain a thousand levels deep ran the stack out when the
 * build recursed (R89-4); now the depth is bounded by memory alone. Jobs are
 * memoised per build, and a job re-entered while it is being built is a
 * dependency cycle, named (R88-3).
 *
 * @module
 */
import { ScoutError } from "../errors.ts";
import type { Task, Workflow } from "./define.ts";
import { isJob, type Job } from "./job_types.ts";
import { isSymbolRef } from "./job_refs.ts";

/** A job to build: workflow, task, job name given, provided inputs. */
export interface JobToBuild {
  wf: Workflow;
  task: Task;
  /** The job name given, if any. */
  id: string | undefined;
  provided: Record<string, unknown>;
  /** False: the job name is this job's alone, its dependencies named as under `Default` (§1.4). */
  nameDeps: boolean;
}

/**
 * A job's build: it yields each dependency job it needs built, in order,
 * receives that job, and returns its own.
 */
export type Build<T> = Generator<JobToBuild, T, Job>;

/** What one build keeps across its jobs. */
export interface BuildState {
  /** The jobs built so far, by identity ({@link memoKey}). */
  memo: Map<string, Job>;
  /**
   * The jobs being built now, outermost first: identity key to `Workflow/task`
   * (R88-3). The same key re-entered is a dependency cycle.
   */
  building: Map<string, string>;
}

/** A fresh state for one build. */
export function newBuildState(): BuildState {
  return { memo: new Map(), building: new Map() };
}

/** A job whose build is under way: its generator and identity. */
interface Frame {
  gen: Build<Job>;
  key: string;
}

/** What the next step feeds the job on top of the stack: a job built, or an error. */
type Feed = { job: Job | undefined } | { error: unknown };

/**
 * Builds `root` and, depth first in the order they are asked for, the
 * dependencies its build yields — without recursion: the builds under way are
 * frames on a stack. A dependency's error is thrown into the job that asked
 * for it, as a call would have thrown it.
 *
 * @param root the job to build
 * @param state the memo and the jobs being built
 * @param build a job's build
 * @returns the root job
 * @throws whatever a build throws; ScoutError `parameter` on a dependency cycle
 */
export function buildJobs(
  root: JobToBuild,
  state: BuildState,
  build: (j: JobToBuild) => Build<Job>,
): Job {
  const frames: Frame[] = [];
  const enter = (j: JobToBuild): Feed => {
    const key = memoKey(j.wf, j.task, j.id, j.provided);
    const cached = state.memo.get(key);
    if (cached !== undefined) return { job: cached };
    enterBuild(state, key, `${j.wf.name}/${j.task.name}`, j.wf.file);
    frames.push({ gen: build(j), key });
    return { job: undefined };
  };
  let feed = enter(root);
  while (frames.length > 0) {
    const top = frames[frames.length - 1]!;
    let step: IteratorResult<JobToBuild, Job>;
    try {
      step = "error" in feed ? top.gen.throw(feed.error) : top.gen.next(feed.job!);
    } catch (error) {
      frames.pop();
      state.building.delete(top.key);
      feed = { error };
      continue;
    }
    if (step.done) {
      frames.pop();
      state.memo.set(top.key, step.value);
      state.building.delete(top.key);
      feed = { job: step.value };
      continue;
    }
    try {
      feed = enter(step.value);
    } catch (error) {
      feed = { error };
    }
  }
  if ("error" in feed) throw feed.error;
  return feed.job!;
}

/**
 * Enters the job with identity `key` (task `where`) into the build in
 * progress, or throws when it is already being built: a dependency cycle
 * (R88-3: `a` needing `b` needing `a` ran the stack out). The same task with
 * other inputs (a chain counting down) is another job, not a cycle.
 *
 * @throws ScoutError `parameter` naming the cycle and the workflow file
 */
function enterBuild(s: BuildState, key: string, where: string, file: string | undefined): void {
  if (s.building.has(key)) {
    const path = [...s.building.keys()];
    const cycle = path.slice(path.indexOf(key)).map((k) => s.building.get(k)!);
    throw new ScoutError("parameter", `Dependency cycle: ${[...cycle, where].join(" → ")}`, {
      task: where,
      ...(file !== undefined ? { file } : {}),
    });
  }
  s.building.set(key, where);
}

/** A job's identity within one build: workflow, task, job name and provided inputs. */
export function memoKey(
  wf: Workflow,
  task: Task,
  id: string | undefined,
  provided: Record<string, unknown>,
): string {
  const parts = Object.keys(provided).sort().map((k) => {
    const v = provided[k];
    if (isJob(v)) return `${k}=@${v.path}`;
    if (isSymbolRef(v)) return `${k}=:${v.symbol}`;
    try {
      return `${k}=${JSON.stringify(v)}`;
    } catch {
      return `${k}=?${String(v)}`;
    }
  });
  return `${wf.name}\0${task.name}\0${id ?? ""}\0${parts.join("\0")}`;
}
