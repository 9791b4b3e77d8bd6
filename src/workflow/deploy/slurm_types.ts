/**
 * The shapes of a `--deploy slurm` run: a batch unit (one batch job), the
 * deploy's options and its report.
 *
 * @module
 */
import type { Job } from "../job_types.ts";
import type { DeployRules, JobResources } from "./rules.ts";

/** One batch job: the jobs it runs (dependencies first) and its directory. */
export interface BatchUnit {
  /** Directory name (`SLURM_scout_job-<Workflow>-<task>-<name>-<digest of its job's path>`). */
  name: string;
  /** Batch directory. */
  dir: string;
  /**
   * The directory an older scout-ai named it (no digest), looked at for a
   * batch job it queued before an upgrade.
   */
  legacyDir?: string;
  /** Jobs it runs, in order; the last is the one it is named after. */
  jobs: Job[];
  /** Units it waits for. */
  after: BatchUnit[];
  /** Merged resources. */
  resources: JobResources;
  /**
   * In a dry run whose `squeue` failed: the SLURM id in its `job.id` whose
   * state is unknown (a real run would ask again before submitting), and
   * squeue's error.
   */
  stateUnknown?: { id: string; squeue: string };
  /** SLURM id (after submission, or of a live earlier submission). */
  slurmId?: string;
  /**
   * Its jobs' `.info` name `slurmId`, a SLURM job that may still run
   * (queued by an earlier deploy, or by Scout): it is not submitted again
   * (`slurm_queued.ts`).
   */
  queuedByInfo?: boolean;
  /**
   * `submitted`, `queued` (a live earlier submission reused), `dry-run`, or,
   * when the deploy stopped part-way, `failed` (sbatch refused it) and
   * `not-submitted` (the units after it).
   */
  status?: "submitted" | "queued" | "dry-run" | "failed" | "not-submitted";
}

/** Options of `deploySlurm`. */
export interface SlurmDeployOptions {
  /** Rules (resources, chains). */
  rules?: DeployRules;
  /** Where batch directories go. */
  batchBase: string;
  /** The command a batch job runs for its job paths (this program, `--deploy-job` each). */
  command: (jobs: Job[]) => string[];
  /** Working directory of the batch jobs. */
  cwd: string;
  /** Environment for sbatch/squeue. */
  env?: Record<string, string | undefined>;
  /** Change no file and submit nothing: the report's `script` says what a real run would do. */
  dryRun?: boolean;
  /** A dry run: lines its script starts with, what a real run did first (saved input files). */
  prelude?: readonly string[];
  /**
   * Paths of jobs to count as not done although their result exists: those
   * `--clean`/`--recompute` would remove, in a dry run that removes nothing.
   */
  redo?: ReadonlySet<string>;
}

/** What a SLURM deploy did. */
export interface SlurmDeployReport {
  /** Units in submission order. */
  units: BatchUnit[];
  /** The unit that runs the top job (absent when it is done). */
  top?: BatchUnit;
  /**
   * A dry run's bash script: per unit to submit, its batch directory's files
   * and the `sbatch` command; a unit still queued keeps its SLURM id.
   */
  script?: string;
  /** A dry run's squeue failure (the states of earlier batch jobs are unknown). */
  squeueFailure?: string;
  /**
   * Names of the submitting shell's settings the scripts leave out as
   * credentials (`slurm_env.ts`), to be told: SLURM passes them on only
   * with the environment it copies (sbatch's default `--export=ALL`).
   */
  withheldEnv?: string[];
}
