/**
 * Shared by the `workflow` commands: common options, the job store options,
 * status colours, and the lazily imported workflow library.
 *
 * @module
 */
import { commandLineError, isScoutError } from "../errors.ts";
import type { JobState } from "../workflow/mod.ts";
import type { Io } from "./io.ts";
import { checkJobsDir } from "./jobs_dir.ts";

/**
 * `--jobs-dir` of the commands that run jobs: the environment's default, then
 * SCOUT_HOME's (a workflow's own `jobsDir` between them, `./var/jobs` searched
 * first: `storeFor`).
 */
export const JOBS_DIR_HELP = "jobs directory (default: $SCOUT_JOBS_DIR, else $SCOUT_HOME/var/jobs)";

/** The workflow library, imported when a command runs (light registration). */
export const wfLib = () => import("../workflow/mod.ts");
/** The workflow file loader, imported when a command runs. */
// The agent layer adds `api.chatTask` (and the agent functions) to what workflow files receive.
export const loader = () => import("../agent/load.ts").then(() => import("../workflow/load.ts"));

/**
 * Loads the WORKFLOW argument of a command: one naming no workflow is a
 * mistake of the command line (a usage error, exit 2), as an unknown TASK
 * is; one that fails to load is a failure (exit 1).
 *
 * @param workflow the argument (name or path)
 * @param io cwd and env
 * @returns the workflow
 */
export async function loadWorkflowArgument(workflow: string, io: Io) {
  const { loadWorkflow } = await loader();
  return await loadWorkflow(workflow, { cwd: io.cwd, env: io.env }).catch((e) => {
    throw isScoutError(e, "workflow_not_found") && e.workflow === workflow
      ? commandLineError(e)
      : e;
  });
}

/** Options shared by the workflow commands. */
export interface WorkflowCommonOptions {
  /** `--jobs-dir`: explicit jobs directory. */
  jobsDir?: string;
  /** `--json`. */
  json?: boolean;
}

/**
 * Job store options of a command: its environment, cwd and `--jobs-dir`,
 * checked (`jobs_dir.ts`).
 *
 * @param opts command options
 * @param io injected I/O
 * @param use `write` for a command that makes the directory when missing
 * @returns options for `storeFor` / `jobStore`
 * @throws ScoutError when `--jobs-dir` is not a directory (or, to read, is missing)
 */
export function storeOptions(opts: WorkflowCommonOptions, io: Io, use: "read" | "write") {
  if (opts.jobsDir !== undefined) checkJobsDir(opts.jobsDir, io.cwd, { create: use === "write" });
  return {
    env: io.env,
    cwd: io.cwd,
    ...(opts.jobsDir !== undefined ? { jobsDir: opts.jobsDir } : {}),
  };
}

/**
 * The colour a job status is shown in.
 *
 * @param status a job status
 * @returns a style
 */
export function statusStyle(status: string): "green" | "red" | "yellow" | "dim" {
  if (status === "done") return "green";
  if (["error", "aborted", "unsync", "stale"].includes(status)) return "red";
  if (status === "missing" || status === "noinfo") return "dim";
  return "yellow";
}

/**
 * What the recorded process says about an unfinished job, for text output:
 * `was napping; its process 12@vm is gone` for a stale job, `unknown: its
 * process 12 is on host other` when it cannot be checked, `running` when it
 * is alive here; "" when nothing works on the job.
 *
 * @param state the job's state
 * @returns a short note, or ""
 */
export function processNote(state: JobState): string {
  const pid = `${state.info?.pid}@${state.info?.pid_hostname ?? "?"}`;
  if (state.stale) return `was ${state.info?.status}; its process ${pid} is gone`;
  if (!state.running) return "";
  if (state.process === "unknown") {
    return `unknown: its process ${state.info?.pid} is on host ${state.info?.pid_hostname}`;
  }
  return `running, pid ${state.info?.pid}`;
}

/**
 * `running` for JSON output: true/false, or null when the recorded process is
 * on another host and cannot be checked from here.
 *
 * @param state the job's state
 * @returns whether the job is running, or null for unknown
 */
export function runningJson(state: JobState): boolean | null {
  return state.running && state.process === "unknown" ? null : state.running;
}
