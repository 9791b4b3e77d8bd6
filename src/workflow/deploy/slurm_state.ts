/**
 * What SLURM says about submitted batch jobs: their states from one
 * `squeue` call, and waiting for one to end (`--wait`).
 *
 * @module
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { ScoutError } from "../../errors.ts";

const run = promisify(execFile);

/** A submitted batch job: its SLURM id and batch directory (a `BatchUnit` is one). */
export interface SubmittedBatch {
  /** SLURM id. */
  slurmId?: string;
  /** Batch directory (for `exit.status`). */
  dir: string;
}

/** SLURM states after which a job never runs again. */
export const FINAL_STATES: ReadonlySet<string> = new Set([
  "COMPLETED",
  "FAILED",
  "CANCELLED",
  "TIMEOUT",
  "OUT_OF_MEMORY",
  "NODE_FAIL",
  "PREEMPTED",
  "BOOT_FAIL",
  "DEADLINE",
]);

/**
 * States of SLURM jobs by id, from one `squeue` call (ids it no longer
 * knows are absent).
 *
 * @param ids SLURM job ids
 * @param env environment
 * @returns id → `{state, reason}`
 */
export async function slurmStates(
  ids: string[],
  env: Record<string, string | undefined> = process.env,
): Promise<Map<string, { state: string; reason: string }>> {
  const out = new Map<string, { state: string; reason: string }>();
  if (ids.length === 0) return out;
  let stdout = "";
  try {
    ({ stdout } = await run("squeue", ["-h", "-t", "all", "-o", "%i|%T|%r", "-j", ids.join(",")], {
      env: env as NodeJS.ProcessEnv,
      maxBuffer: 64 << 20,
    }));
  } catch (e) {
    // squeue exits 1 when none of the ids is known any more; its stdout is still the answer.
    const err = e as { stdout?: string; code?: unknown };
    if (err.code === "ENOENT") {
      throw new ScoutError("batch_system", "squeue is not installed (SLURM client tools)");
    }
    stdout = err.stdout ?? "";
  }
  for (const line of stdout.split("\n")) {
    const [id, state, reason] = line.trim().split("|");
    if (id && state) out.set(id, { state, reason: reason ?? "" });
  }
  return out;
}

/** How a waited-for batch job ended. */
export interface BatchEnd {
  /** Final SLURM state (`COMPLETED`, `FAILED`, `CANCELLED`…), or `UNKNOWN`. */
  state: string;
  /** SLURM's reason (`DependencyNeverSatisfied`…). */
  reason: string;
  /** The script's exit status, when it wrote one. */
  exitStatus?: number;
}

function readExit(dir: string): number | undefined {
  try {
    const t = readFileSync(join(dir, "exit.status"), "utf8").trim();
    return t === "" ? undefined : Number(t);
  } catch {
    return undefined;
  }
}

/**
 * Waits until a unit's SLURM job reaches a final state, polling `squeue`.
 *
 * @param unit the unit (submitted)
 * @param opts environment, poll interval, progress callback (all units' states)
 * @returns how it ended
 */
export async function waitForUnit(
  unit: SubmittedBatch,
  opts: {
    env?: Record<string, string | undefined>;
    pollMs?: number;
    all?: SubmittedBatch[];
    onPoll?: (counts: Record<string, number>) => void;
  } = {},
): Promise<BatchEnd> {
  const id = unit.slurmId!;
  const ids = (opts.all ?? [unit]).map((u) => u.slurmId).filter((x): x is string => !!x);
  for (;;) {
    const states = await slurmStates(ids, opts.env);
    if (opts.onPoll) {
      const counts: Record<string, number> = {};
      for (const s of states.values()) counts[s.state] = (counts[s.state] ?? 0) + 1;
      opts.onPoll(counts);
    }
    const s = states.get(id);
    const exitStatus = readExit(unit.dir);
    if (s !== undefined && FINAL_STATES.has(s.state)) {
      return {
        state: s.state,
        reason: s.reason,
        ...(exitStatus !== undefined ? { exitStatus } : {}),
      };
    }
    if (s === undefined) {
      // Forgotten by SLURM (MinJobAge): the exit status file says how it ended.
      if (exitStatus !== undefined) {
        return { state: exitStatus === 0 ? "COMPLETED" : "FAILED", reason: "", exitStatus };
      }
      return { state: "UNKNOWN", reason: "" };
    }
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 500));
  }
}
