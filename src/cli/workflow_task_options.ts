/**
 * The options of `workflow task` as parsed (`workflow.ts` builds them, the
 * task runner and the deployers read them): kept apart so that neither
 * command module imports the other for its types.
 *
 * @module
 */
import type { WorkflowCommonOptions } from "./workflow_common.ts";
import type { HelpOption } from "./workflow_help.ts";

/** Deploy options of `workflow task`. */
export interface DeployOptions {
  /** `--deploy`: serial (default), local or slurm. */
  deploy?: string;
  /** `--cpus N` (local): CPUs to fill; default the core count. */
  cpus?: string;
  /** `--deploy-rules FILE`. */
  deployRules?: string;
  /** `--dry-run` (slurm): change no file; print what a run would write and submit. */
  dryRun?: boolean;
  /** `--wait` (slurm): wait for the top job and exit with its status. */
  wait?: boolean;
  /** `--batch-dir DIR` (slurm): where batch directories go. */
  batchDir?: string;
  /** Internal: `--deploy-worker`, read job paths on stdin. */
  deployWorker?: boolean;
  /** Internal: `--deploy-job PATH` (repeatable), run these jobs in order. */
  deployJob?: string[];
  /** Internal: `--deploy-inputs DIR`, the input files saved when the job was deployed. */
  deployInputs?: string;
}

/** Options of `workflow task`. */
export interface WorkflowTaskOptions extends WorkflowCommonOptions, DeployOptions {
  /** False when inputs or options follow WORKFLOW: without a TASK that is a usage error. */
  onlyWorkflow?: boolean;
  /** Workflow name or path; missing → help. */
  workflow?: string;
  /** Task name; missing → the workflow's task list. */
  task?: string;
  /** Raw `--<input> value` arguments; `--` before those never taken for an option. */
  args: string[];
  /** `--jobname`. */
  jobname?: string;
  /** `--clean`: clean this job first. */
  clean?: boolean;
  /** `--recompute`: clean this job and its dependencies first. */
  recompute?: boolean;
  /** `--print-path`: print the job path instead of the result. */
  printPath?: boolean;
  /** `--help` was given. */
  help?: boolean;
  /** The options of `workflow task`, listed in a task's help (from the command's own help). */
  helpOptions?: readonly HelpOption[];
  /**
   * The long flags of the command's options and the global ones (`--json`,
   * `--debug`…): an input named like one is given after `--`.
   */
  optionFlags?: readonly string[];
  /** The long flags of the options given on the command line (before `--`). */
  givenOptions?: readonly string[];
}
