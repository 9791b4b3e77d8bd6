/**
 * How deep a job's dependencies nest while it is built (R89-4): a chain of
 * dependencies is built recursively, and one a thousand levels deep ran the
 * stack out with a bare "Maximum call stack size exceeded"; the build now
 * fails naming the depth it reached. A job re-entered while it is being
 * built is a dependency cycle, named (R88-3).
 *
 * @module
 */
import { ScoutError } from "../errors.ts";
import type { Task, Workflow } from "./define.ts";
import { isJob } from "./job_types.ts";
import { isSymbolRef } from "./job_refs.ts";

/** Dependency depth of the job being built now, and the deepest reached, with its task. */
export interface BuildDepth {
  now: number;
  deepest: number;
  where: string;
  /**
   * The jobs being built now, outermost first: identity key (task and
   * inputs) to task (R88-3). The same key re-entered is a dependency cycle.
   */
  building: Map<string, string>;
}

/** A fresh depth count for one build. */
export function newBuildDepth(): BuildDepth {
  return { now: 0, deepest: 0, where: "", building: new Map() };
}

/**
 * Enters the job with identity `key` (task `where`) into the build in
 * progress, or throws when it is already being built: a dependency cycle
 * (R88-3: `a` needing `b` needing `a` ran the stack out). The same task with
 * other inputs (a chain counting down) is another job, not a cycle.
 *
 * @returns a function that leaves the job again
 * @throws ScoutError `parameter` naming the cycle and the workflow file
 */
export function enterBuild(
  d: BuildDepth,
  key: string,
  where: string,
  file: string | undefined,
): () => void {
  if (d.building.has(key)) {
    const path = [...d.building.keys()];
    const cycle = path.slice(path.indexOf(key)).map((k) => d.building.get(k)!);
    throw new ScoutError("parameter", `Dependency cycle: ${[...cycle, where].join(" → ")}`, {
      task: where,
      ...(file !== undefined ? { file } : {}),
    });
  }
  d.building.set(key, where);
  return () => d.building.delete(key);
}

/** Runs `build` (a job's dependencies) one dependency level deeper, counting the deepest. */
export function depthCounted<T>(d: BuildDepth, where: string, build: () => T): T {
  d.now++;
  if (d.now > d.deepest) {
    d.deepest = d.now;
    d.where = where;
  }
  try {
    return build();
  } finally {
    d.now--;
  }
}

/**
 * The error of a build whose dependencies nested deeper than the stack holds
 * (R89-4: a chain of 1,000 dependencies exhausted it), naming the depth, or
 * undefined for any other error.
 */
export function tooDeep(e: unknown, where: string, depth: BuildDepth): ScoutError | undefined {
  if (!(e instanceof RangeError) || !/call stack/i.test(e.message)) return undefined;
  return new ScoutError(
    "parameter",
    `Dependencies of ${where} nest too deep to build: the stack ran out at dependency depth ` +
      `${depth.deepest} (${depth.where}); a chain this long cannot be built in one job`,
    { cause: e },
  );
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
