/**
 * Submitting one batch unit (`--deploy slurm`) under its batch directory's
 * lock (`.submit.lock`), so two deploys at once never both submit it: the
 * `job.id` read, the `squeue` answer, `sbatch` and the new `job.id` are one
 * step. A live earlier submission is reused only when it runs the unit's
 * jobs; the logs of an ended one are kept as `std.err.<its SLURM id>`. A
 * submitted unit's jobs record `waiting` in their infos (`slurm_hold.ts`).
 *
 * @module
 */
import { execFile } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { plainMessage, ScoutError } from "../../errors.ts";
import { writeFileAtomicSync } from "../../util/fs.ts";
import { acquireLockFile } from "../lock.ts";
import { holdJobs, markWaiting } from "./slurm_hold.ts";
import { stderrLine } from "./slurm_partial.ts";
import { FINAL_STATES, slurmStates } from "./slurm_state.ts";
import type { BatchUnit, SlurmDeployOptions } from "./slurm_types.ts";

const run = promisify(execFile);

/** What a batch directory records of its last submission. */
export interface BatchRecord {
  /** SLURM id (`job.id`), when it was submitted. */
  id?: string;
  /** Job paths it runs (`jobs.list`). */
  jobs: string[];
  /** SLURM's state of `id` (absent: never submitted, or forgotten by SLURM). */
  state?: string;
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * A batch directory's `job.id` and `jobs.list` (no SLURM state yet).
 *
 * @param dir the batch directory
 * @returns what it records
 */
export function readBatch(dir: string): BatchRecord {
  const id = readText(join(dir, "job.id"))?.trim() || undefined;
  const jobs = (readText(join(dir, "jobs.list")) ?? "").split("\n").filter((l) => l !== "");
  return { ...(id !== undefined ? { id } : {}), jobs };
}

/**
 * Whether the record is a SLURM job that may still run (pending, running…).
 *
 * @param r the record, with its state
 * @returns true when live
 */
export function isLive(r: BatchRecord): boolean {
  return r.id !== undefined && r.state !== undefined && !FINAL_STATES.has(r.state);
}

/**
 * The error for a batch directory whose live SLURM job does not run every
 * job of the unit (a digest clash, or a chain the rules changed): reusing it
 * would leave a job uncomputed, submitting over it would lose its `job.id`.
 * Undefined when the live job runs them all.
 *
 * @param u the unit
 * @param r the directory's record (live)
 * @returns the error, or undefined
 */
export function liveConflict(u: BatchUnit, r: BatchRecord): ScoutError | undefined {
  if (u.jobs.every((j) => r.jobs.includes(j.path))) return undefined;
  return new ScoutError(
    "batch_system",
    `Batch directory ${u.dir} holds SLURM job ${r.id} (${r.state}), which runs ${
      r.jobs.length > 0 ? r.jobs.join(", ") : "other jobs"
    }, not ${u.jobs.map((j) => j.path).join(", ")}; wait for it to end or cancel it ` +
      `(scancel ${r.id}), then run this again`,
    { file: u.dir },
  );
}

/**
 * Keeps the logs of the directory's previous attempt: `std.out`, `std.err`
 * and `exit.status` become `<file>.<its SLURM id>` (an empty one is removed).
 */
function keepLogs(dir: string, oldId: string | undefined): void {
  for (const f of ["std.out", "std.err", "exit.status"]) {
    const file = join(dir, f);
    if (!existsSync(file)) continue;
    if (statSync(file).size === 0) unlinkSync(file);
    else renameSync(file, `${file}.${oldId ?? "previous"}`);
  }
}

async function sbatch(args: string[], env?: Record<string, string | undefined>): Promise<string> {
  try {
    const { stdout } = await run("sbatch", args, { env: env as NodeJS.ProcessEnv });
    return stdout.trim().split(";")[0]!;
  } catch (e) {
    const err = e as { stderr?: string; code?: unknown; message?: string };
    if (err.code === "ENOENT") {
      throw new ScoutError("batch_system", "sbatch is not installed (SLURM client tools)");
    }
    const stderr = (err.stderr ?? "").trim();
    // every line: the first may be a "retrying" note, the last says why sbatch gave up (R79-14)
    throw new ScoutError(
      "batch_system",
      `sbatch failed: ${stderr !== "" ? stderrLine(stderr) : plainMessage(e)}`,
      { ...(stderr !== "" ? { stderr } : {}) },
    );
  }
}

/** The record now, under the lock: the state read before when `job.id` did not change. */
async function recordNow(
  dir: string,
  before: BatchRecord,
  env?: Record<string, string | undefined>,
): Promise<BatchRecord> {
  const now = readBatch(dir);
  if (now.id === undefined) return now;
  if (now.id === before.id) {
    return { ...now, ...(before.state !== undefined ? { state: before.state } : {}) };
  }
  // another deploy submitted it meanwhile
  const state = (await slurmStates([now.id], env)).get(now.id)?.state;
  return { ...now, ...(state !== undefined ? { state } : {}) };
}

/**
 * Writes a unit's batch directory and submits it, unless a live SLURM job
 * already runs its jobs (then that id is reused, status `queued`).
 *
 * @param u the unit (its `slurmId` and `status` are set)
 * @param before its directory's record as read before (with the SLURM state)
 * @param script its `command.batch` text
 * @param opts the deploy's environment
 * @throws ScoutError `batch_system` when sbatch fails, or a live job runs other jobs
 */
export async function submitUnit(
  u: BatchUnit,
  before: BatchRecord,
  script: string,
  opts: Pick<SlurmDeployOptions, "env">,
): Promise<void> {
  mkdirSync(u.dir, { recursive: true });
  const lock = await acquireLockFile(join(u.dir, ".submit.lock"));
  try {
    const now = await recordNow(u.dir, before, opts.env);
    if (isLive(now)) {
      const conflict = liveConflict(u, now);
      if (conflict !== undefined) throw conflict;
      u.slurmId = now.id!;
      u.status = "queued";
      return;
    }
    const deps = u.after.map((a) => a.slurmId).filter((x): x is string => x !== undefined);
    writeFileAtomicSync(join(u.dir, "command.batch"), script);
    writeFileSync(join(u.dir, "jobs.list"), u.jobs.map((j) => j.path).join("\n") + "\n");
    writeFileSync(join(u.dir, "dependencies.list"), deps.join("\n") + (deps.length ? "\n" : ""));
    keepLogs(u.dir, now.id);
    const args = ["--parsable"];
    if (deps.length > 0) {
      args.push(`--dependency=afterok:${deps.join(":")}`, "--kill-on-invalid-dep=yes");
    }
    args.push(join(u.dir, "command.batch"));
    // the jobs' locks from before sbatch until their infos say `waiting`: the batch job
    // cannot start writing its own info in between (R79-5)
    const held = await holdJobs(u.jobs);
    try {
      u.slurmId = await sbatch(args, opts.env);
      u.status = "submitted";
      writeFileAtomicSync(join(u.dir, "job.id"), u.slurmId + "\n");
      await markWaiting(held, u.slurmId);
    } finally {
      held.release();
    }
  } finally {
    lock.release();
  }
}
