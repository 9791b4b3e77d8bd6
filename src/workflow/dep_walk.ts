/**
 * A job's declared dependencies at any depth, in the order a recursive walk
 * visits them, on an explicit stack: a chain as deep as memory allows is
 * walked (a recursive walk runs the stack out at a few thousand levels).
 *
 * @module
 */
import type { Job } from "./job_types.ts";

/**
 * The jobs reachable from `deps` through declared dependencies, depth-first
 * pre-order (a dependency, then its own dependencies, then the next one),
 * each path once.
 *
 * @param deps the jobs to start from (a job's `deps`)
 * @param include whether a job is taken; one that is not is neither listed
 *   nor walked through (a done job's dependencies, for example)
 * @returns the jobs, in visiting order
 */
export function dependenciesDepthFirst(
  deps: readonly Job[],
  include: (job: Job) => boolean = () => true,
): Job[] {
  const out: Job[] = [];
  const seen = new Set<string>();
  const stack = [...deps].reverse();
  while (stack.length > 0) {
    const job = stack.pop()!;
    if (seen.has(job.path) || !include(job)) continue;
    seen.add(job.path);
    out.push(job);
    for (let i = job.deps.length - 1; i >= 0; i--) stack.push(job.deps[i]!);
  }
  return out;
}
