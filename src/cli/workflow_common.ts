/**
 * Shared by the `workflow` commands: common options, the job store options,
 * status colours, and the lazily imported workflow library.
 *
 * @module
 */
import type { Io } from "./io.ts";

/** The workflow library, imported when a command runs (light registration). */
export const wfLib = () => import("../workflow/mod.ts");
/** The workflow file loader, imported when a command runs. */
export const loader = () => import("../workflow/load.ts");

/** Options shared by the workflow commands. */
export interface WorkflowCommonOptions {
  /** `--jobs-dir`: explicit jobs directory. */
  jobsDir?: string;
  /** `--json`. */
  json?: boolean;
}

/**
 * Job store options of a command: its environment, cwd and `--jobs-dir`.
 *
 * @param opts command options
 * @param io injected I/O
 * @returns options for `storeFor` / `jobStore`
 */
export function storeOptions(opts: WorkflowCommonOptions, io: Io) {
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
  if (status === "error" || status === "aborted" || status === "unsync") return "red";
  if (status === "missing" || status === "noinfo") return "dim";
  return "yellow";
}
