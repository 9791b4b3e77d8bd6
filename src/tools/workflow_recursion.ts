/**
 * The recursion guard of task tools (`workflow.md` §6.3 "Potential recursive
 * call"): which jobs the current async context runs inside, and which this
 * process runs for tool calls.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Job } from "../workflow/job_types.ts";
import { jobState, thisHost } from "../workflow/state.ts";

/** Paths of the tool-started jobs whose bodies the current async context runs inside. */
const enclosingJobs = new AsyncLocalStorage<ReadonlySet<string>>();
/** Jobs this process is running for tool calls (path → calls waiting on it). */
const toolRuns = new Map<string, number>();

/**
 * Whether running `job` now would wait for itself (§6.3 "Potential recursive
 * call"): the caller is inside the body of that job, started by a tool call
 * (tracked through the async context), or the job is being computed in this
 * process by something other than a tool call (a `workflow task`, an agent's
 * chat task). Sibling calls of one batch naming the same job share its run.
 *
 * @param job the job about to run
 * @returns true when it would wait for itself
 */
export async function recursiveCall(job: Job): Promise<boolean> {
  if (enclosingJobs.getStore()?.has(job.path)) return true;
  if (toolRuns.has(job.path)) return false;
  const state = await jobState(job.path);
  return state.running && state.info?.pid === process.pid &&
    (state.info.pid_hostname === undefined || state.info.pid_hostname === thisHost());
}

/**
 * Runs a tool call's job inside its async context, counted among the tool
 * runs of this process while it runs.
 *
 * @param job the job
 * @param run computes it
 * @returns what `run` returns
 */
export async function runForTool(job: Job, run: () => Promise<unknown>): Promise<unknown> {
  const enclosing = new Set(enclosingJobs.getStore() ?? []).add(job.path);
  toolRuns.set(job.path, (toolRuns.get(job.path) ?? 0) + 1);
  try {
    return await enclosingJobs.run(enclosing, run);
  } finally {
    const n = toolRuns.get(job.path)! - 1;
    if (n === 0) toolRuns.delete(job.path);
    else toolRuns.set(job.path, n);
  }
}
