/**
 * The job-backed roles of compile (`chat.md` §4.3: `task`, `inline_task`,
 * `exec_task`, `job`, `inline_job`, `step`) need the workflow engine, which
 * `chat/` must not import (`DESIGN.md` §1). Compile calls them through a
 * {@link JobRoleResolver} passed in `CompileOptions.jobs`; `workflow/`
 * implements it. Without one those roles fail with `not_available`, naming
 * the role, file and line.
 *
 * @module
 */
import { ScoutError } from "../errors.ts";
import { md5hex } from "../util/hash.ts";
import { type OptionValue, parseOptions } from "./option_text.ts";
import type { Message } from "./types.ts";

/** A `task:` / `inline_task:` / `exec_task:` line, parsed. */
export interface TaskRequest {
  /** Role the request comes from. */
  role: "task" | "inline_task" | "exec_task";
  /** Workflow name (first word). */
  workflow: string;
  /** Task name (second word). */
  task: string;
  /** Inputs: every `key=value` of the whole content (`chat.md` §9.1), without `jobname`. */
  inputs: Record<string, OptionValue>;
  /** The `jobname=` input, if given. */
  jobname?: string;
  /** The chat file the line is in (absolute), if any. */
  origin?: string;
}

/** What compile needs to know about a job for the `job:` role. */
export interface JobSnapshot {
  /** Task name (the tool-call name). */
  taskName: string;
  /** Inputs given by the caller (the tool-call arguments). */
  providedInputs: Record<string, unknown>;
  /** Short path `<Workflow>/<task>/<name>` (the call id is derived from it). */
  shortPath: string;
  /** `done`, `error`, or any other status (→ `Job not finished`). */
  status: string;
  /** Raw text of the result file, when done. */
  resultText?: string;
  /** The failure, when status is `error`. */
  exception?: { message: string; stack?: string };
}

/**
 * Resolves the job-backed roles. All methods may be async. Paths are job
 * paths (the result file of the job, as in Scout).
 */
export interface JobRoleResolver {
  /** Creates (does not run) the job of a `task:`/`inline_task:` line; returns its path. */
  createJob(request: TaskRequest): Promise<string> | string;
  /** Produces jobs to completion: all `task`/`inline_task` jobs of one compile, together. */
  produceJobs(paths: readonly string[]): Promise<void> | void;
  /**
   * Runs an `exec_task:` line now, in-process; returns the result as text
   * (string as is; a table as its text; anything else as JSON).
   */
  execTask(request: TaskRequest): Promise<string> | string;
  /** Loads a job for the `job:` role, waiting while it is still running. */
  loadJob(path: string): Promise<JobSnapshot> | JobSnapshot;
  /**
   * The answer for `step: <task>`: the chat result of the job named by the
   * last meta `job=` (or of its dependency with that task name).
   */
  stepAnswer(metaJob: string, taskName: string): Promise<string> | string;
}

/**
 * Parses the content of a task line: `Workflow task k=v…` (`chat.md` §9.3:
 * the first two words split on whitespace runs; inputs parsed over the whole
 * content, `jobname` taken out).
 *
 * @param role the role
 * @param content the message content
 * @returns the request (origin not set)
 * @throws ScoutError `invalid_input` when the workflow or task name is missing
 */
export function parseTaskLine(role: TaskRequest["role"], content: string): TaskRequest {
  const text = content.trim();
  const [workflow, task] = text.split(/\s+/);
  if (!workflow || !task || task.includes("=")) {
    throw new ScoutError(
      "invalid_input",
      `${role}: expects "Workflow task [input=value…]", got "${text}"`,
    );
  }
  const inputs = parseOptions(text);
  const jobname = inputs.jobname;
  delete inputs.jobname;
  const req: TaskRequest = { role, workflow, task, inputs };
  if (jobname !== undefined) req.jobname = String(jobname);
  return req;
}

/** Longest tool-call id derived from a job. */
export const JOB_CALL_ID_MAX = 40;

/** What providers accept as a tool-call id (Anthropic: `^[a-zA-Z0-9_-]+$`). */
export const CALL_ID_PATTERN = /^[A-Za-z0-9_-]+$/;

/**
 * The tool-call id of a `job:` expansion: the short path without `Default_`,
 * `/` → `-` (Ruby's id when that is at most 40 characters of `[A-Za-z0-9_-]`).
 * Otherwise ([TS-FIX]: Ruby's `Log.truncate_string` marker `<...N - md5...>`,
 * like a `.` of an extension, is refused by Anthropic) other characters become
 * `_` and it is cut to 30 characters, plus `_` and the first 9 hex digits of
 * the MD5 of the whole (so distinct jobs keep distinct ids).
 *
 * @param shortPath `<Workflow>/<task>/<name>`
 * @returns an id of at most 40 characters matching {@link CALL_ID_PATTERN}
 *
 * @example
 * ```ts
 * import { jobCallId } from "./compile_jobs.ts";
 * jobCallId("Baking/bake/Default_1f2e"); // "Baking-bake-1f2e"
 * jobCallId("Baking/bake/party.json"); // "Baking-bake-party_json_" + 9 hex digits
 * ```
 */
export function jobCallId(shortPath: string): string {
  const id = shortPath.replace("Default_", "").replaceAll("/", "-");
  if (id.length <= JOB_CALL_ID_MAX && CALL_ID_PATTERN.test(id)) return id;
  const clean = id.replace(/[^A-Za-z0-9_-]/gu, "_");
  return clean.slice(0, JOB_CALL_ID_MAX - 10) + "_" + md5hex(id).slice(0, 9);
}

/**
 * The two messages a `job:` line becomes: a `function_call` and its
 * `function_call_output` (both JSON strings). A failed job throws
 * `job_failed`, or becomes an output `{exception, stack}` when
 * `reportExceptions` (env `SCOUT_CHAT_JOB_EXCEPTION=true`); a job neither
 * done nor failed throws `job_not_finished` ([DIVERGE D22]).
 *
 * @param job the loaded job
 * @param path the job path as written (for errors)
 * @param reportExceptions put failures in the output instead of throwing
 * @returns the call and output messages
 */
export function jobMessages(
  job: JobSnapshot,
  path: string,
  reportExceptions: boolean,
): [Message, Message] {
  const id = jobCallId(job.shortPath);
  let content: unknown;
  if (job.status === "done") content = job.resultText ?? "";
  else if (job.status === "error") {
    const ex = job.exception ?? { message: "unknown error" };
    if (!reportExceptions) {
      throw new ScoutError("job_failed", `Job "${path}" failed: ${ex.message}`, { job: path });
    }
    content = JSON.stringify({ exception: ex.message, stack: ex.stack ?? null });
  } else {
    throw new ScoutError("job_not_finished", `Job not finished: "${path}" (${job.status})`, {
      job: path,
    });
  }
  return [
    {
      role: "function_call",
      content: JSON.stringify({ name: job.taskName, arguments: job.providedInputs, id }),
    },
    { role: "function_call_output", content: JSON.stringify({ id, content }) },
  ];
}
