/**
 * A job's dependencies before it runs (`workflow.md` §4): a done one is
 * kept unless outdated (then cleaned and rerun); one in an unrecoverable
 * error fails the run with its recorded error, unless the job may do without
 * it (`canfail`); the others run first — or, when the run computes only the
 * job itself, are an error.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { ScoutError } from "../errors.ts";
import type { Job } from "./job_types.ts";
import { isDone } from "./context.ts";
import { infoError, readJobInfo } from "./info.ts";
import { infoPath } from "./store.ts";
import { isRecoverableError } from "./state.ts";
import { inputDeps, isOutdated } from "./outdated.ts";
import { cleanJob } from "./clean.ts";

/** What {@link dependenciesToRun} needs of the run's options. */
export interface DependencyOptions {
  /** Environment (`SCOUT_NO_RECOVERABLE_ERROR`, outdated checks). */
  env?: Record<string, string | undefined>;
  /** `"require-done"`: a dependency that is not done is an error. */
  dependencies?: "run" | "require-done";
}

/** A failure as a job's info records it. */
export interface RecordedFailure {
  /** The exception's message. */
  message: string;
  /** Its Ruby class (`ScoutException` when the info names none). */
  rubyClass: string;
  /** Its backtrace. */
  backtrace: string[];
}

/**
 * The failure a job's info records when the job is in an unrecoverable error
 * (§4: status `error` and a deliberate Scout exception, or any error under
 * `SCOUT_NO_RECOVERABLE_ERROR=true`): such a job is reported, not rerun.
 *
 * @param job the job
 * @param env environment (the recoverable-error rule)
 * @returns the recorded failure, or null (no info, not in error, recoverable)
 */
export async function unrecoverableFailure(
  job: Job,
  env?: Record<string, string | undefined>,
): Promise<RecordedFailure | null> {
  if (!existsSync(infoPath(job.path))) return null;
  const { info } = await readJobInfo(job.path);
  if (info?.status !== "error" || isRecoverableError(info, env)) return null;
  const err = infoError(info);
  return {
    message: err?.message ?? "error recorded in its info",
    rubyClass: err?.className ?? "ScoutException",
    backtrace: Array.isArray(info.backtrace) ? info.backtrace.map(String) : [],
  };
}

/** Whether a dependency needs running (an outdated one is cleaned first), or fails the run. */
async function prepareDependency(
  job: Job,
  dep: Job,
  opts: DependencyOptions,
): Promise<"skip" | "run"> {
  if (isDone(dep)) {
    if (dep.task !== null && await isOutdated(dep, opts.env)) {
      await cleanJob(dep);
      return "run";
    }
    return "skip";
  }
  const failed = await unrecoverableFailure(dep, opts.env);
  if (failed) {
    if (job.compute[dep.path]?.includes("canfail")) return "skip";
    const { message, rubyClass, backtrace } = failed;
    // The dependency's own error (as its info records it) is the cause a parent records.
    const own = new ScoutError("job_failed", message, { rubyClass, backtrace });
    throw new ScoutError("job_failed", `Job "${dep.shortPath}" failed: ${message}`, {
      file: dep.path,
      job: dep.path,
      rubyClass,
      backtrace,
      cause: own,
    });
  }
  return "run";
}

/**
 * The dependencies (declared, then input jobs) a job needs run before it,
 * outdated ones cleaned.
 *
 * @param job the job
 * @param opts environment, and whether dependencies may run
 * @returns the dependencies to run, in order
 * @throws ScoutError `job_failed` with a dependency's recorded error;
 *   `dependency_not_done` under `require-done` when any is to run
 */
export async function dependenciesToRun(job: Job, opts: DependencyOptions): Promise<Job[]> {
  const plan: Job[] = [];
  for (const d of [...job.deps, ...inputDeps(job)]) {
    if (await prepareDependency(job, d, opts) === "run") plan.push(d);
  }
  if (opts.dependencies === "require-done" && plan.length > 0) {
    throw new ScoutError(
      "dependency_not_done",
      `Dependency "${plan[0]!.shortPath}" of "${job.shortPath}" is not done; ` +
        "this run computes only the job itself",
      { file: job.path, job: job.path },
    );
  }
  return plan;
}
