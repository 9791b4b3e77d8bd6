/**
 * The records of the workflow layer, which refer to each other and so live in
 * one module: the job record and the context a task body runs with
 * (`workflow.md` §1.2, §7.1), and the types of the task-definition API (§1,
 * §7.1) — specs as written in `workflow.ts` files, and the normalised workflow
 * and task records `workflow()` builds from them (`define.ts`).
 *
 * @module
 */
import type { JobStore } from "./store.ts";
import type { ScoutType } from "./types.ts";

/** Brand of job records (survives bundling and copies made with spread). */
export const JOB: unique symbol = Symbol.for("scout-ai.job");

/**
 * A job: plain data describing one task run and where it persists. Created by
 * `createJob` (identity computed, nothing written) or `jobAt` (an existing
 * job on disk, e.g. an override or a Scout-made job).
 */
export interface Job {
  /** Brand. */
  readonly [JOB]: true;
  /** Absolute result path. */
  path: string;
  /** Basename (name + extension). */
  name: string;
  /** Clean job name (`Default`, a jobname…), without digest or extension. */
  id: string;
  /** `Workflow/task/name[.ext]`. */
  shortPath: string;
  /** Workflow name. */
  workflowName: string;
  /** Task name. */
  taskName: string;
  /** The workflow, or null for a job known only from disk. */
  workflow: Workflow | null;
  /** The task, or null for a job known only from disk. */
  task: Task | null;
  /** Result type. */
  type: string;
  /** Own final input values by name, in declaration order. */
  inputs: Record<string, unknown>;
  /** Own input names in order. */
  inputNames: string[];
  /** Raw provided values of the non-default inputs (own and dependencies'). */
  providedInputs: Record<string, unknown>;
  /** Non-default input names (own and dependencies'). */
  nonDefaultInputs: string[];
  /** Direct dependencies. */
  deps: Job[];
  /** Run hints per dependency path (`canfail`, `produce`, `stream`, …). */
  compute: Record<string, string[]>;
  /** The store the job lives in. */
  store: JobStore;
  /** Set when this job replaced a dependency through a `Workflow#task` input. */
  overriddenTask?: string;
  /** Set when a `Workflow#task` input given to this job replaced a dependency at some depth (its name then carries a digest). */
  overridden?: boolean;
}

/**
 * Whether a value is a job record.
 *
 * @param v any value
 * @returns true for jobs
 */
export function isJob(v: unknown): v is Job {
  return typeof v === "object" && v !== null && (v as Record<symbol, unknown>)[JOB] === true;
}

/** What a task body gets as its second argument. */
export interface JobContext {
  /** The job record. */
  job: Job;
  /** Absolute result path. */
  path: string;
  /** `Workflow/task/name[.ext]`. */
  shortPath: string;
  /** Clean job name. */
  name: string;
  /** The workflow. */
  workflow: Workflow;
  /** The task. */
  task: Task;
  /** Own input values. */
  inputs: Record<string, unknown>;
  /** Own inputs over the dependencies' (first occurrence wins). */
  recursiveInputs: Record<string, unknown>;
  /** Direct dependencies. */
  dependencies: Job[];
  /** `<path>.files` (created lazily). */
  filesDir: string;
  /** `.<name>` beside the result: write there and return null to persist a file. */
  tmpPath: string;
  /**
   * The dependency with that task name (direct first, then depth-first).
   * @param taskName task name
   */
  step(taskName: string): Job | undefined;
  /**
   * The loaded result of a dependency (by task name) or of any job.
   * @param ref task name or job
   */
  load(ref: string | Job): Promise<unknown>;
  /**
   * Absolute path of a file inside `.files/` (its parent directory is created).
   * @param rel relative path
   */
  file(rel: string): string;
  /**
   * Sets a custom status (and appends a message).
   * @param status status word
   * @param message optional message
   */
  log(status: string, message?: string): Promise<void>;
  /**
   * Appends a message to `messages`.
   * @param message the text
   */
  message(message: string): Promise<void>;
  /**
   * Stores a key in the info (merge rule: arrays append, objects merge).
   * @param key info key
   * @param value value
   */
  setInfo(key: string, value: unknown): Promise<void>;
  /**
   * Replaces keys of the info (no merge), like Scout-AI's `update_info`.
   * @param patch keys to replace
   */
  updateInfo(patch: Record<string, unknown>): Promise<void>;
  /** Workflow helpers bound to this job. */
  // deno-lint-ignore no-explicit-any
  helpers: Record<string, (...args: any[]) => unknown>;
  /** Aborted when the run is interrupted. */
  signal: AbortSignal;
}

/** A validator with zod's `safeParse` shape (a zod schema satisfies it). */
export interface InputSchema {
  /**
   * Validates a value.
   * @param value the coerced input value
   */
  safeParse(value: unknown): { success: boolean; error?: { issues: { message: string }[] } };
}

/** Declaration of one input (`[name, type, description, default, options]` in Ruby). */
export interface InputSpec<T = unknown> {
  /** Scout type name. */
  type: ScoutType;
  /** Documentation. */
  description?: string;
  /** Default value (part of the job digest). */
  default?: T;
  /** Job creation fails when a required input is not provided (or null). */
  required?: boolean;
  /** Allowed values of a `select` (a map's *values* are the options). */
  selectOptions?: readonly string[] | Record<string, string>;
  /** The input doubles as the job name (§2.1). */
  jobname?: boolean;
  /** Never replace a string with the content of the file it names. */
  noload?: boolean;
  /** Same as `noload` (Ruby option). */
  nofile?: boolean;
  /** Same as `noload` (Ruby option). */
  asfile?: boolean;
  /** Same as `noload` (Ruby option). */
  stream?: boolean;
  /** Extra validation after coercion (any zod schema fits). */
  schema?: InputSchema;
}

/** An input declaration with its name (tasks keep them in declaration order). */
export interface InputDef extends InputSpec {
  /** Input name. */
  name: string;
}

/** A reference to the parent's input value (Ruby `dep :t, x: :name`). */
export interface FromInput {
  /** Name of the parent's input (or provided input) to pass. */
  fromInput: string;
}

/** A reference to an already-built dependency of the parent (the job becomes the value). */
export interface FromDep {
  /** Task name of that dependency. */
  fromDep: string;
}

/** What a dependency block may return besides a job: options for a new dependency. */
export interface DepOptions {
  /** Task (default: the dep's). */
  task?: string;
  /** Workflow (default: the dep's). */
  workflow?: string | Workflow;
  /** Job name. */
  jobname?: string;
  /** Inputs; without it, the other keys of this record are the inputs. */
  inputs?: Record<string, unknown>;
  /** Further input values. */
  [input: string]: unknown;
}

/** A dependency declaration (`dep` in Ruby, §1.4). */
export interface DepSpec {
  /** Task name. */
  task: string;
  /** Other workflow (by name or value); default: the same workflow. */
  workflow?: string | Workflow;
  /** Job name of the dependency (default: the parent's). */
  jobname?: string;
  /** Fixed inputs: literals, {@link FromInput} or {@link FromDep}. */
  inputs?: Record<string, unknown>;
  /** The parent continues when this dependency fails with a deliberate error. */
  canfail?: boolean;
  /** Run hint (recorded). */
  produce?: boolean;
  /** Run hint (recorded). */
  stream?: boolean;
  /** Run hints (recorded). */
  compute?: string[];
  /**
   * Block form: returns the dependency job(s) or options for them. Receives
   * the job name, the declared options over the parent's coerced own inputs
   * and provided inputs, and the dependencies built so far.
   */
  resolve?(
    jobname: string | undefined,
    options: Record<string, unknown>,
    deps: Job[],
  ): Job | DepOptions | (Job | DepOptions)[];
}

/** Definition of one task. */
export interface TaskSpec<R = unknown> {
  /** Result type (default `binary`). */
  type?: ScoutType;
  /** Documentation (the workflow's documentation overrides it). */
  description?: string;
  /** Documentation of the result. */
  returns?: string;
  /** Explicit result-file extension. */
  extension?: string;
  /** Inputs in declaration order (integer-like names are rejected). */
  inputs?: Record<string, InputSpec>;
  /** Dependencies; a string is `{task: string}`. */
  deps?: (DepSpec | string)[];
  /**
   * The body: own input values by name, and the job context.
   * @param inputs own coerced input values
   * @param job the running job
   */
  // deno-lint-ignore no-explicit-any
  run(inputs: Record<string, any>, job: JobContext): R | Promise<R>;
}

/** Which tasks become LLM tools and how (§1.1, §6); never job identity. */
export interface WorkflowExports {
  /** Run in memory (no job). */
  exec: string[];
  /** Run to completion. */
  synchronous: string[];
  /** Plain `export`. */
  asynchronous: string[];
  /** Streamed. */
  stream: string[];
}

/** A helper callable from task bodies with the job as first argument. */
// deno-lint-ignore no-explicit-any
export type Helper = (job: JobContext, ...args: any[]) => unknown;

/** What {@link workflow} accepts. */
export interface WorkflowSpec {
  /** Title (documentation). */
  title?: string;
  /** Description (documentation). */
  description?: string;
  /** Tasks in order. */
  tasks: Record<string, TaskSpec>;
  /** Helpers callable as `job.helpers.name(...)`. */
  helpers?: Record<string, Helper>;
  /** Export lists; a name listed later (key order) is removed from earlier lists. */
  exports?: Partial<Record<keyof WorkflowExports, string[]>>;
  /** Explicit jobs directory (replaces the jobs-root search). */
  jobsDir?: string;
}

/** A task of a workflow (normalised). */
export interface Task {
  /** Task name. */
  name: string;
  /** Owning workflow's name. */
  workflow: string;
  /** Result type. */
  type: ScoutType;
  /** Inputs in declaration order. */
  inputs: InputDef[];
  /** Dependencies in order. */
  deps: DepSpec[];
  /** Description ("" when none). */
  description: string;
  /** Documentation of the result. */
  returns?: string;
  /** Explicit extension or null. */
  extension: string | null;
  /** The body. */
  run: TaskSpec["run"];
}

/** Documentation of a workflow (§1.5). */
export interface WorkflowDocumentation {
  /** Title. */
  title: string;
  /** Description. */
  description: string;
  /** Per-task descriptions. */
  tasks: Record<string, string>;
}

/** A workflow (normalised, plain data). */
export interface Workflow {
  /** Name: first segment of job paths. */
  name: string;
  /** Title ("" when none). */
  title: string;
  /** Description ("" when none). */
  description: string;
  /** Tasks by name, in order. */
  tasks: Record<string, Task>;
  /** Helpers. */
  helpers: Record<string, Helper>;
  /** Export lists. */
  exports: WorkflowExports;
  /** Explicit jobs directory, if any. */
  jobsDir?: string;
  /** File the workflow was loaded from, if any. */
  file?: string;
}
