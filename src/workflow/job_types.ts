/**
 * The job record and the context a task body runs with (`workflow.md` §1.2, §7.1).
 *
 * @module
 */
import type { Task, Workflow } from "./define.ts";
import type { JobStore } from "./store.ts";

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
