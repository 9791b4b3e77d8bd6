/**
 * A deployed job given a file as named (`saved_inputs_use.ts`, R114-2)
 * stores no result computed from another file (R122-1 [TS-FIX]). A task
 * reads the file it is given when it likes, so a file replaced by a rename,
 * removed or edited while its job runs would reach it, and the result
 * would be stored under a name digested from the bytes submitted. The job's
 * body is therefore followed, before its result is stored (and so before the
 * job is done), by a `stat` of each file of its own inputs given as named:
 * one whose device, inode, size or modification time is no longer what they
 * were when the job was built fails the job, naming the input and saying
 * that the file changed while the job ran. A file moved away, edited and
 * moved back has another modification time, so it is caught. What the check
 * cannot see: an edit in place that keeps both size and modification time
 * (the limit every check of a worker has, `saved_inputs.ts`), and a file
 * moved away, another put in its place and read, and the first moved back
 * before the body ends.
 *
 * Giving the task the saved link instead (R117-1) read the bytes submitted
 * whatever happened to the file, but a result made of the path it was given
 * (`String(doc)`) then named the link, which a local run removes at its end
 * and `workflow batch clean` with its batch directory; the done job, reused
 * by every later run, kept naming a deleted file.
 *
 * The job is not run again from the link: its result would name that link,
 * and the bytes submitted are those the user has replaced. A later run of
 * the same command builds its job from the file as it is then (another job
 * when its bytes differ); one that gives the same bytes, the same job, finds
 * it in error and computes it again from its own saved files.
 *
 * @module
 */
import { ScoutError } from "../../errors.ts";
import { fileStats } from "../../util/fs.ts";
import { errorMessage } from "../failure.ts";
import type { Job, Task } from "../job_types.ts";
import { sameIdentity } from "./saved_inputs.ts";
import type { OriginalFile } from "./saved_inputs_use.ts";

/** The files given as named that are among a job's own input values (a list's items too). */
function givenTo(job: Job, given: readonly OriginalFile[]): OriginalFile[] {
  if (given.length === 0) return [];
  const byFile = new Map(given.map((o) => [o.file, o]));
  const out = new Set<OriginalFile>();
  const add = (v: unknown): void => {
    if (typeof v === "string") {
      const o = byFile.get(v);
      if (o !== undefined) out.add(o);
    } else if (Array.isArray(v)) v.forEach(add);
  };
  Object.values(job.inputs).forEach(add);
  return [...out];
}

/** The first of these files no longer as it was when the job was built, and why; or null. */
function firstChanged(files: readonly OriginalFile[]): { file: string; why: string } | null {
  for (const o of files) {
    const st = fileStats(o.file);
    if (sameIdentity(st, o)) continue;
    const how = st === null ? "removed" : "replaced or edited";
    return {
      file: o.file,
      why: `the input file "${o.file}" (--${o.input}) changed while the job ran (${how})`,
    };
  }
  return null;
}

/** The failure of a job whose input file changed while it ran (and, maybe, of its body). */
function changedError(changed: { file: string; why: string }, failure?: unknown): ScoutError {
  const what = failure === undefined
    ? `${changed.why}: its result is not stored`
    : `${changed.why}, and the task failed: ${errorMessage(failure)}`;
  return new ScoutError(
    "deploy_failed",
    `${what}; run it again to compute it from the file as it is now`,
    { file: changed.file, ...(failure !== undefined ? { cause: failure } : {}) },
  );
}

/**
 * The job to run where files were given to it as named: its task's body
 * followed by a check (one `stat` each) of the files of its own inputs, a change failing
 * the job before its result is stored (a body that failed fails naming the
 * change too: a removed file's ENOENT says why); the job itself when it was
 * given no such file. A worker runs each job it is sent through this, a
 * dependency as its dependent: what it costs when nothing changed is a
 * `stat` per such file.
 *
 * @param job the job (built from the saved files, `withSavedFiles`)
 * @param given the files given as named, as they were when it was built
 * @returns the job, or a copy whose task checks its files after the body
 * @example
 * ```ts ignore
 * await produceJob(checkingGivenFiles(job, inputs.originals), opts);
 * ```
 */
export function checkingGivenFiles(job: Job, given: readonly OriginalFile[]): Job {
  const task = job.task;
  const files = givenTo(job, given);
  if (task === null || files.length === 0) return job;
  const run: Task["run"] = async (inputs, ctx) => {
    let value: unknown;
    try {
      value = await task.run(inputs, ctx);
    } catch (e) {
      const changed = firstChanged(files);
      throw changed === null ? e : changedError(changed, e);
    }
    const changed = firstChanged(files);
    if (changed !== null) throw changedError(changed);
    return value;
  };
  return { ...job, task: { ...task, run } };
}
