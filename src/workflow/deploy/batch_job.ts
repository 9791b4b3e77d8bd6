/**
 * The SLURM job a `waiting` job's `.info` names (`batch_job`, `batch_system`:
 * `--deploy slurm`, or Scout's), and what SLURM says of it — one `squeue`
 * call, as `workflow batch list` asks. A batch job SLURM cancelled before it
 * started (`scancel`, a dependency that failed) leaves the info `waiting`
 * for good: only SLURM knows the job will never run (R109-5).
 *
 * @module
 */
import { plainMessage, ScoutError } from "../../errors.ts";
import type { JobInfo } from "../info.ts";
import { FINAL_STATES, slurmStates } from "./slurm_state.ts";

/** A SLURM job a waiting job waits for. */
export interface WaitingBatch {
  /** Always `SLURM` (the only batch system asked). */
  system: "SLURM";
  /** SLURM's id. */
  id: string;
}

/** What SLURM says of a {@link WaitingBatch}. */
export interface WaitingBatchState extends WaitingBatch {
  /** SLURM's state (`PENDING`, `CANCELLED`…); null when SLURM no longer knows the id, or could not be asked. */
  state: string | null;
  /** SLURM's reason (`DependencyNeverSatisfied`, `JobHeldUser`…), "" for none. */
  reason: string;
  /** The batch job ended (a final state, or forgotten): it will never run the job. */
  ended: boolean;
  /** Why SLURM could not be asked (squeue missing or failing), when it could not. */
  error?: string;
}

/**
 * The SLURM job a job not done waits for: its info's status is `waiting`
 * and it names a `batch_job` of `batch_system` SLURM; else null (nothing to
 * ask, no process run).
 *
 * @param info the job's info
 * @param done whether its result exists
 * @returns the batch job, or null
 *
 * @example
 * ```ts
 * import { waitingBatch } from "./batch_job.ts";
 * waitingBatch({ status: "waiting", batch_job: 17, batch_system: "SLURM" }, false);
 * // { system: "SLURM", id: "17" }
 * ```
 */
export function waitingBatch(info: JobInfo | null, done: boolean): WaitingBatch | null {
  if (done || info === null || info.status !== "waiting") return null;
  return namedBatchJob(info);
}

/**
 * The SLURM job an info names (`batch_job`, a number or a string, of
 * `batch_system` SLURM), whatever its status: Scout's `run_job`
 * asks the queue about `info[:batch_job]` of any job not done, and its
 * `set_info` adds `batch_job` to an earlier attempt's `error` info.
 *
 * @param info the job's info
 * @returns the batch job, or null
 *
 * @example
 * ```ts
 * import { namedBatchJob } from "./batch_job.ts";
 * namedBatchJob({ status: "error", batch_job: "17", batch_system: "SLURM" });
 * // { system: "SLURM", id: "17" }
 * ```
 */
export function namedBatchJob(info: JobInfo | null): WaitingBatch | null {
  const id = info?.batch_job;
  if (typeof id !== "number" && typeof id !== "string") return null;
  if (String(info!.batch_system ?? "").toUpperCase() !== "SLURM" || String(id).trim() === "") {
    return null;
  }
  return { system: "SLURM", id: String(id).trim() };
}

/**
 * Asks SLURM about a waiting job's batch job, once (no retry: a job's info
 * is shown, not waited on). squeue missing or failing is told in `error`,
 * never thrown.
 *
 * @param batch the batch job
 * @param env environment for `squeue`
 * @returns its state
 */
export async function askWaitingBatch(
  batch: WaitingBatch,
  env: Record<string, string | undefined> = process.env,
): Promise<WaitingBatchState> {
  try {
    const s = (await slurmStates([batch.id], env, { attempts: 1 })).get(batch.id);
    if (s === undefined) return { ...batch, state: null, reason: "", ended: true };
    const reason = s.reason === "None" ? "" : s.reason;
    return { ...batch, state: s.state, reason, ended: FINAL_STATES.has(s.state) };
  } catch (e) {
    if (!(e instanceof ScoutError)) throw e;
    return { ...batch, state: null, reason: "", ended: false, error: plainMessage(e) };
  }
}

/**
 * One line on a waiting job's batch job: SLURM's state (and reason), that it
 * ended before the job started, or why SLURM could not be asked.
 *
 * @param b what SLURM said
 * @returns the line, after `SLURM job <id>`
 *
 * @example
 * ```ts
 * import { waitingBatchNote } from "./batch_job.ts";
 * waitingBatchNote({ system: "SLURM", id: "17", state: "CANCELLED", reason: "", ended: true });
 * // "CANCELLED before it started the job; run the task again to submit it again"
 * ```
 */
export function waitingBatchNote(b: WaitingBatchState): string {
  if (b.error !== undefined) return `(state not known: ${b.error})`;
  const again = "run the task again to submit it again";
  if (b.state === null) {
    return `SLURM no longer knows it: it ended before it started the job; ${again}`;
  }
  const state = b.reason !== "" ? `${b.state} (${b.reason})` : b.state;
  if (b.ended) return `${state} before it started the job; ${again}`;
  if (b.reason === "DependencyNeverSatisfied") {
    return `${state}: a dependency failed; it will never run`;
  }
  return state;
}
