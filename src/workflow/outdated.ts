/**
 * Dependencies given as inputs and the outdated rule (`workflow.md` §4): when
 * a done job must be recomputed because a dependency changed.
 *
 * @module
 */
import { existsSync, statSync } from "node:fs";
import { isJob, type Job } from "./job_types.ts";
import { readJobInfo } from "./info.ts";
import { infoPath } from "./store.ts";
import { isRecoverableError } from "./state.ts";

function mtime(path: string): number | null {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

/**
 * A job's jobs given as input values that are not also declared dependencies.
 *
 * @param job the job
 * @returns those jobs
 */
export function inputDeps(job: Job): Job[] {
  return Object.values(job.inputs).filter(isJob).filter((j) => !job.deps.includes(j));
}

/**
 * Whether a done job is outdated (§4, defined once): a recursive dependency
 * that has an info file (and is not in an unrecoverable error) has a result
 * newer than the job's, or has info but no result.
 *
 * @param job the job
 * @param env environment (recoverable-error rule)
 * @returns true when it should be recomputed
 */
export async function isOutdated(
  job: Job,
  env: Record<string, string | undefined> = process.env,
): Promise<boolean> {
  const mine = mtime(job.path);
  if (mine === null) return false;
  const seen = new Set<string>();
  const stack = [...job.deps, ...inputDeps(job)];
  while (stack.length > 0) {
    const d = stack.pop()!;
    if (seen.has(d.path)) continue;
    seen.add(d.path);
    stack.push(...d.deps, ...inputDeps(d));
    if (!existsSync(infoPath(d.path))) continue;
    const dm = mtime(d.path);
    if (dm === null) {
      const { info } = await readJobInfo(d.path);
      if (info?.status === "error" && !isRecoverableError(info, env)) continue;
      return true;
    }
    if (dm > mine) return true;
  }
  return false;
}
