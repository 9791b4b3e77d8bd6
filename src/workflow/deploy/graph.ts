/**
 * The job graph a deploy runs: every job reachable from the top one
 * (declared dependencies and jobs given as inputs), once, dependencies first.
 *
 * @module
 */
import type { Job } from "../job_types.ts";
import { isDone } from "../context.ts";
import { inputDeps } from "../outdated.ts";

/**
 * A job's direct dependencies (declared and given as inputs), unique by path.
 *
 * @param job the job
 * @returns the dependencies
 */
export function directDeps(job: Job): Job[] {
  const out = new Map<string, Job>();
  for (const d of [...job.deps, ...inputDeps(job)]) if (!out.has(d.path)) out.set(d.path, d);
  return [...out.values()];
}

/**
 * Every job of the graph in dependency order (a job after all its
 * dependencies), each path once.
 *
 * @param top the top job
 * @returns the jobs, `top` last
 */
export function graphJobs(top: Job): Job[] {
  const order: Job[] = [];
  const seen = new Set<string>();
  // Iterative post-order: deep graphs must not overflow the stack.
  const stack: { job: Job; expanded: boolean }[] = [{ job: top, expanded: false }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (item.expanded) {
      if (!seen.has(item.job.path)) {
        seen.add(item.job.path);
        order.push(item.job);
      }
      continue;
    }
    if (seen.has(item.job.path)) continue;
    stack.push({ job: item.job, expanded: true });
    const deps = directDeps(item.job);
    for (let i = deps.length - 1; i >= 0; i--) {
      if (!seen.has(deps[i]!.path)) stack.push({ job: deps[i]!, expanded: false });
    }
  }
  return order;
}

/**
 * The jobs that still have to run: not done, with a task definition here
 * (jobs known only from disk cannot be computed), in dependency order. A
 * done job's dependencies are not visited: its result stands.
 *
 * @param top the top job
 * @param redo paths of jobs to count as not done although their result
 *   exists (what `--clean`/`--recompute` would remove, in a dry run)
 * @returns pending jobs, dependencies first
 */
export function pendingJobs(top: Job, redo?: ReadonlySet<string>): Job[] {
  const needed = new Set<string>();
  const walk = [top];
  while (walk.length > 0) {
    const j = walk.pop()!;
    if (needed.has(j.path) || j.task === null) continue;
    if (isDone(j) && !redo?.has(j.path)) continue;
    needed.add(j.path);
    walk.push(...directDeps(j));
  }
  return graphJobs(top).filter((j) => needed.has(j.path));
}
