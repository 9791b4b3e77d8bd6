/**
 * How a job graph runs (`--deploy`): `local` worker processes and `slurm`
 * batch jobs of this same program, the rules file, batch directories.
 *
 * @module
 */
export { selfCommand } from "./self.ts";
export { directDeps, graphJobs, pendingJobs } from "./graph.ts";
export {
  chainOf,
  combineResources,
  loadRules,
  NO_RULES,
  parseRules,
  RESOURCE_KEYS,
  slurmTime,
  taskResources,
  unknownRuleTasks,
} from "./rules.ts";
export type { ChainRule, DeployRules, JobResources, UnknownRuleTask } from "./rules.ts";
export { deployLocal, WORKER_MARK } from "./local.ts";
export type { LocalDeployOptions, LocalDeployReport, LocalEvent } from "./local.ts";
export { batchBase } from "./batch_dir.ts";
export {
  batchDirName,
  batchScript,
  batchUnits,
  deploySlurm,
  dryRunScript,
  FINAL_STATES,
  shq,
  slurmStates,
  WAIT_RETRY,
  waitForUnit,
} from "./slurm.ts";
export type {
  BatchEnd,
  BatchUnit,
  SlurmDeployOptions,
  SlurmDeployReport,
  SqueueRetry,
  SubmittedBatch,
  UnitsOptions,
  WaitClock,
  WaitPace,
} from "./slurm.ts";
export { cleanBatches, findBatch, listBatches } from "./batch_status.ts";
export type { ListBatchesOptions } from "./batch_status.ts";
export type { BatchEntry } from "./batch_status.ts";
export { failedDependency } from "./slurm_failure.ts";
export { askWaitingBatch, waitingBatch, waitingBatchNote } from "./batch_job.ts";
export type { WaitingBatch, WaitingBatchState } from "./batch_job.ts";
export type { FailedUnit } from "./slurm_failure.ts";
export {
  changedInputFile,
  changedSavedFile,
  COPY_LIMIT,
  inputFiles,
  loadSavedInputs,
} from "./saved_inputs.ts";
export type { InputFile, Kept, SavedDir, SavedFile, SavedInputs } from "./saved_inputs.ts";
export { planInputFiles, saveInputFiles } from "./saved_inputs_save.ts";
export { originalsChanged, savedInUse, withSavedFiles } from "./saved_inputs_use.ts";
export type { OriginalFile, SavedValues } from "./saved_inputs_use.ts";
export { checkingGivenFiles } from "./saved_inputs_check.ts";
export type { SavedPlan, UnsavedFile } from "./saved_inputs_save.ts";
export { cleanSavedInputs, savedInputsBase, savedInputsScript } from "./saved_inputs_dirs.ts";
export { recordUnbuilt } from "./unbuilt.ts";
export { batchJobFields } from "./slurm_env.ts";
