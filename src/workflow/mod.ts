/**
 * Workflows and the job store: task definitions with typed inputs and
 * dependencies, a runner that persists every run as a job in Scout's layout
 * (`<jobsRoot>/<Workflow>/<task>/<name>[.ext]` + `.info` JSON + `.files/`),
 * and readers for jobs made by Scout's own engine.
 *
 * @module
 */
export type { ScoutType } from "./types.ts";
export { arrayElementType, isScoutType, SCOUT_TYPES } from "./types.ts";
export { lockTime, parseRubyTime, rubyTime } from "./time.ts";
export {
  base64Lines,
  marshalException,
  marshalExceptionBytes,
  SCOUT_EXCEPTION_CLASSES,
} from "./marshal.ts";
export { identifyJobPath } from "./identify.ts";
export {
  filesDir,
  infoPath,
  jobPathIn,
  jobReferenceCandidates,
  jobRoots,
  jobsIn,
  jobStore,
  lockPathFor,
  resolveJobReference,
  rootOf,
  shortPath,
  tmpPath,
  withJobsDir,
} from "./store.ts";
export type { JobStore, JobStoreOptions, ResolveJobOptions } from "./store.ts";
export {
  infoDependencies,
  infoDependencyProblems,
  infoError,
  isTruncatedInput,
  jobInfo,
  mergeJobInfo,
  readJobInfo,
  readJobInfoSync,
  truncateInputValue,
  updateJobInfo,
  updateJobInfoSync,
  writeJobInfo,
  writeJobInfoSync,
} from "./info.ts";
export type { InfoRead, JobInfo, JobStatus } from "./info.ts";
export {
  deserializeResult,
  deserializeText,
  leadingFloat,
  leadingInteger,
  readResult,
  resultExtension,
  resultText,
  rubyFloat,
  serializeResult,
} from "./result.ts";
export { jobFile, jobLogChats, listJobFiles, writeJobFile } from "./files.ts";
export { infoPidAlive, isRecoverableError, jobPresent, jobState, jobStatusOf } from "./state.ts";
export { pidAlive } from "../util/process.ts";
export { infoProcess } from "./state.ts";
export type { JobProcess, JobState } from "./state.ts";
export { backtraceOf, errorInfoPatch, errorMessage, rubyExceptionClass } from "./failure.ts";
export {
  brokenDependencies,
  defineWorkflow,
  depTaskOf,
  depWorkflow,
  input,
  nearNames,
  recursiveInputs,
  registeredWorkflow,
  registerWorkflow,
  selectOptionsOf,
  taskOf,
  workflow,
} from "./define.ts";
export type {
  DepOptions,
  DepSpec,
  FromDep,
  FromInput,
  Helper,
  InputDef,
  InputOptions,
  InputSchema,
  InputSpec,
  Task,
  TaskSpec,
  Workflow,
  WorkflowDocumentation,
  WorkflowExports,
  WorkflowSpec,
} from "./define.ts";
export { isJob, JOB } from "./job_types.ts";
export type { Job, JobContext } from "./job_types.ts";
export { coerceInput, isDefaultValue, loadsFileValue, validateInput } from "./coerce.ts";
export type { CoerceOptions } from "./coerce.ts";
export { digest, digestStr, fileMd5, pathRef } from "./digest.ts";
export type { DigestContext, PathRef } from "./digest.ts";
export { createJob, jobAt, loadJob, storeFor, truncateJobName } from "./job.ts";
export type { CreateJobOptions } from "./job.ts";
export { bodyInputs, findStep, isDone, jobRecursiveInputs } from "./context.ts";
export {
  cleanJob,
  cleanJobRecursive,
  cleanJobWaiting,
  cleanTargets,
  execJob,
  isOutdated,
  isRunning,
  jobStep,
  loadJobResult,
  produceJob,
  runJob,
} from "./run.ts";
export type { CleanWaitNotice, RunEvent, RunOptions } from "./run.ts";
// the CLI's handling of SIGINT/SIGTERM/SIGHUP, opt-in: a library never takes the host's signals
export { handleInterrupts, PROCESS_EXIT } from "./interrupt.ts";
export { acquireLock, isStaleLock } from "./lock.ts";
export type { HeldLock, LockOptions } from "./lock.ts";
export {
  findWorkflowFile,
  listWorkflowFiles,
  loadWorkflow,
  loadWorkflowFile,
  workflowApi,
  workflowDirs,
} from "./load.ts";
export { builtinWorkflowNames, registerBuiltinWorkflow } from "./builtins.ts";
export type { FindWorkflowOptions, WorkflowApi } from "./load.ts";
export { parseWorkflowDoc } from "./docs.ts";
export { jobRoleResolver } from "./chat_roles.ts";
export type { JobRoleResolverOptions } from "./chat_roles.ts";
export * from "./deploy/mod.ts";
