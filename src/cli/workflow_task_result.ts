/**
 * How `workflow task` prints a job's result once it is done (serially, or
 * after `--deploy local`, or `--deploy slurm --wait`): its text, its bytes,
 * its path (`--print-path`) or JSON.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { isScoutError, thrownMessage } from "../errors.ts";
import { fileError } from "../util/fs.ts";
import type { Job } from "../workflow/mod.ts";
import type { Io } from "./io.ts";
import { writeBytes } from "./io.ts";
import type { wfLib } from "./workflow_common.ts";
import type { WorkflowTaskOptions } from "./workflow_task_options.ts";
import { jsonText } from "../util/json_text.ts";

type WfLib = Awaited<ReturnType<typeof wfLib>>;

/**
 * A result as `--json` carries it: a binary one as its text (per the job's type).
 *
 * @param lib the workflow library
 * @param job the job
 * @param result its loaded result
 * @returns the JSON value
 */
export function resultJsonValue(lib: WfLib, job: Job, result: unknown): unknown {
  return result instanceof Uint8Array ? lib.resultText(result, job.type) : result;
}

/**
 * Prints a run's result: as JSON, its job's path, its bytes (binary), or its
 * text as its result file holds it, ending in a newline (R158-3): an `array`
 * one item a line, a `float` `2.0`, as Scout's CLI prints the file (the
 * loaded value shown as JSON gave `["a","b"]`).
 *
 * @param lib the workflow library
 * @param job the job
 * @param result its result
 * @param opts `--json`, `--print-path`
 * @param io I/O
 */
export function printResult(
  lib: WfLib,
  job: Job,
  result: unknown,
  opts: WorkflowTaskOptions,
  io: Io,
): void {
  if (opts.json) {
    const value = resultJsonValue(lib, job, result);
    io.stdout.write(
      jsonText({
        version: 1,
        path: job.path,
        shortPath: job.shortPath,
        status: "done",
        result: value,
      }) +
        "\n",
    );
  } else if (opts.printPath) {
    io.stdout.write(job.path + "\n");
  } else if (result instanceof Uint8Array) {
    writeBytes(io.stdout, result); // a binary result's bytes as they are, never decoded
  } else {
    const bytes = resultFileBytes(job.path);
    writeBytes(io.stdout, bytes);
    if (bytes.length > 0 && bytes[bytes.length - 1] !== 10) io.stdout.write("\n");
  }
}

/** The bytes of a done job's result file: what the job's writer (`serializeResult`) wrote. */
function resultFileBytes(path: string): Uint8Array {
  try {
    return readFileSync(path);
  } catch (e) {
    throw fileError(path, e);
  }
}

/**
 * The `--json` line of a run that failed (exit 1): `status` `error` and the
 * message, as before; `jobStatus`, the job's own status as `workflow info`
 * shows it (`missing`: it never started, a dependency failed first); and
 * `failed`, the job that failed (`{path, shortPath, status}`; the job itself
 * when its own body failed), when the error names one (R106-5).
 *
 * @param lib the workflow library
 * @param job the job asked for
 * @param e what the run threw
 * @returns the line, with its newline
 */
export async function failureJson(lib: WfLib, job: Job, e: unknown): Promise<string> {
  const failedPath = isScoutError(e) && typeof e.job === "string" ? e.job : null;
  const failed = failedPath === null ? {} : {
    failed: {
      path: failedPath,
      shortPath: lib.shortPath(failedPath),
      status: (await lib.jobState(failedPath)).status,
    },
  };
  return jsonText({
    version: 1,
    path: job.path,
    shortPath: job.shortPath,
    status: "error",
    error: thrownMessage(e),
    jobStatus: (await lib.jobState(job.path)).status,
    ...failed,
  }) + "\n";
}

/**
 * The `--json` document of a run a signal stopped (R137-6): the interrupt's
 * (`"code":"interrupted"`, `"signal"`), its `error` the words of the stderr
 * line (`Interrupted (job "<path>" recorded as aborted)`), with the job's
 * fields as a failed run's document has them (`path`, `shortPath`,
 * `jobStatus`). Synchronous: the process exits right after.
 *
 * @param lib the workflow library
 * @param job the job asked for
 * @param signal the signal's name
 * @param error the stderr line's text, without `scout-ai:`
 * @returns the line, with its newline
 */
export function interruptJson(lib: WfLib, job: Job, signal: string, error: string): string {
  return jsonText({
    version: 1,
    path: job.path,
    shortPath: job.shortPath,
    status: "error",
    error,
    code: "interrupted",
    signal,
    jobStatus: lib.jobStatusOf(job.path, lib.readJobInfoSync(job.path).info),
  }) + "\n";
}
