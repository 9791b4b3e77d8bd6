/**
 * Scout's own spellings of the flags of `workflow task` and `workflow info`
 * (scout-gear's `scout_commands/workflow/task` and `info`), for scripts
 * written for Ruby's scout: those the port has under another name are
 * aliases; those it has no behaviour for are refused, naming what it offers
 * (docs/spec-notes/workflow.md, "Scout's flags of workflow task"). A task's
 * inputs are Ruby-named (`--jobs_dir`), so no other `_` spelling is read.
 *
 * @module
 */
import type { ScoutSpellings } from "./ruby_flags.ts";

/** `workflow task`: Scout's `-jn`, `-pf`, `-cl`, `-rcl`… and its flags the port has not. */
export const TASK_SCOUT_SPELLINGS: ScoutSpellings = {
  // `--jobs_dir` is ChatAnalyst's input, `--jobs-dir` the option: only the names below
  underscoreInputs: true,
  aliases: {
    "--deploy_rules": "--deploy-rules",
    "-deploy_rules": "--deploy-rules",
    "-jn": "--jobname",
    "-pf": "--print-path",
    "--printpath": "--print-path",
    "-cl": "--clean",
    // Scout's recursive_clean: the job and all its dependencies cleaned first
    "-rcl": "--recompute",
    "--recursive_clean": "--recompute",
  },
  ignored: { "--nostream": "scout-ai's jobs never stream" },
  refused: {
    "-prov": "workflow info JOB shows a job's dependencies and their status",
    "--provenance": "workflow info JOB shows a job's dependencies and their status",
    "--fork": "run it in the background (… &) with --print-path, or use --deploy local",
    "--exec": "every run is a saved job: --clean runs it again",
    "--update": "jobs are not updated for newer dependencies: --recompute runs the job and " +
      "all its dependencies again",
    "--workflows": "a workflow.ts imports the workflows it uses",
    "--load_inputs": "give the inputs as --<input> value (scout-ai reads no saved inputs " +
      "directory of Scout's)",
    "--save_inputs": "--deploy local or slurm saves a job's input files itself",
    "-ct": "--recompute cleans the job and all its dependencies",
    "--clean_task": "--recompute cleans the job and all its dependencies",
    "-od": "dependencies are not overridden: give the inputs of the dependency",
    "--override_deps": "dependencies are not overridden: give the inputs of the dependency",
  },
};

const INPUTS = "workflow info JOB lists the job's inputs (--json | jq .info.inputs); " +
  "a dependency's: workflow info on its path";

/** `workflow info`: Scout's `-i`/`--inputs`, `-ri`/`--recursive_inputs`. */
export const INFO_SCOUT_SPELLINGS: ScoutSpellings = {
  refused: {
    "-i": INPUTS,
    "--inputs": INPUTS,
    "-ri": INPUTS,
    "--recursive_inputs": INPUTS,
  },
};
