/**
 * What SLURM says about submitted batch jobs: their states from one
 * `squeue` call, and waiting for one to end (`--wait`).
 *
 * @module
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { plainMessage, ScoutError } from "../../errors.ts";

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

/** How patiently a failed `squeue` call is repeated before giving up. */
export interface SqueueRetry {
  /** Calls in all (default 5). */
  attempts?: number;
  /** Wait before the second call, doubled before each further one (default 500 ms). */
  backoffMs?: number;
}

/** squeue's answer when it knows none of the ids asked about (one id: exit 1). */
const INVALID_ID = "Invalid job id specified";

/** One `squeue` call: its stdout, or why it failed (stderr, or what went wrong). */
async function squeueOnce(
  ids: string[],
  env: Record<string, string | undefined>,
): Promise<{ stdout: string } | { failure: string }> {
  try {
    const args = ["-h", "-t", "all", "-o", "%i|%T|%r", "-j", ids.join(",")];
    const { stdout } = await run("squeue", args, {
      env: env as NodeJS.ProcessEnv,
      maxBuffer: 64 << 20,
    });
    return { stdout };
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; code?: unknown; message?: string };
    if (err.code === "ENOENT") {
      throw new ScoutError("batch_system", "squeue is not installed (SLURM client tools)");
    }
    const stderr = (err.stderr ?? "").trim();
    // ids SLURM no longer knows (MinJobAge): an answer, not a failure
    if (stderr.includes(INVALID_ID)) return { stdout: err.stdout ?? "" };
    return { failure: stderr !== "" ? stderr.replace(/\s*\n\s*/g, "; ") : plainMessage(e) };
  }
}

/**
 * States of SLURM jobs by id, from one `squeue` call (ids it no longer
 * knows are absent). A call that fails for another reason (the controller
 * cannot be reached…) is repeated with a growing pause; a job is never
 * reported absent because squeue could not be asked.
 *
 * @param ids SLURM job ids
 * @param env environment
 * @param retry how often to repeat a failed call
 * @returns id → `{state, reason}`
 * @throws ScoutError `batch_system` naming squeue's error when every call failed
 */
export async function slurmStates(
  ids: string[],
  env: Record<string, string | undefined> = process.env,
  retry: SqueueRetry = {},
): Promise<Map<string, { state: string; reason: string }>> {
  const out = new Map<string, { state: string; reason: string }>();
  if (ids.length === 0) return out;
  const attempts = Math.max(1, retry.attempts ?? 5);
  let pause = retry.backoffMs ?? 500;
  let answer = await squeueOnce(ids, env);
  for (let i = 1; i < attempts && "failure" in answer; i++, pause *= 2) {
    await new Promise((r) => setTimeout(r, pause));
    answer = await squeueOnce(ids, env);
  }
  if ("failure" in answer) {
    throw new ScoutError(
      "batch_system",
      `squeue failed ${attempts} time${attempts === 1 ? "" : "s"} asking about SLURM job${
        ids.length === 1 ? "" : "s"
      } ${ids.join(",")}: ${answer.failure}`,
      { stderr: answer.failure, ids },
    );
  }
  for (const line of answer.stdout.split("\n")) {
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
 * How a wait repeats a failed `squeue`: 9 calls over about 4 minutes (1 s,
 * doubled each time). A job outlives its controller's restart, and `--wait`
 * should too; a one-off listing (`batch list`) gives up after the default's
 * ~7.5 s.
 */
export const WAIT_RETRY: SqueueRetry = { attempts: 9, backoffMs: 1_000 };

/** A clock for {@link waitForUnit} (tests pass one that does not really wait). */
export interface WaitClock {
  /** Milliseconds now. */
  now(): number;
  /** Resolves after `ms` milliseconds. */
  sleep(ms: number): Promise<void>;
}

const REAL_CLOCK: WaitClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
};

/** How `--wait` paces its `squeue` calls. */
export interface WaitPace {
  /** The first pause between two calls, and the pause after a change (default 1 s). */
  pollMs?: number;
  /** The longest pause: each call that sees nothing new doubles it up to this (default 30 s). */
  maxPollMs?: number;
  /** How often the batch directories are looked at between calls (default 1 s). */
  tickMs?: number;
  /** The clock (default the real one). */
  clock?: WaitClock;
}

/** Which log files of the units exist: a batch job starting or ending changes it. */
function filesSeen(units: readonly SubmittedBatch[]): string {
  return units.map((u) =>
    ["std.out", "std.err", "exit.status"].map((f) => existsSync(join(u.dir, f)) ? "1" : "0")
      .join("")
  ).join(",");
}

/**
 * Waits up to `pauseMs`, looking at the units' batch directories every tick.
 *
 * @returns true when a batch job started or ended meanwhile (its files changed)
 */
async function pauseUnlessFiles(
  units: readonly SubmittedBatch[],
  seen: { files: string },
  pauseMs: number,
  pace: Required<Omit<WaitPace, "pollMs" | "maxPollMs">>,
): Promise<boolean> {
  const until = pace.clock.now() + pauseMs;
  for (let left = pauseMs; left > 0; left = until - pace.clock.now()) {
    await pace.clock.sleep(Math.min(pace.tickMs, left));
    const files = filesSeen(units);
    if (files !== seen.files) {
      seen.files = files;
      return true;
    }
  }
  return false;
}

/**
 * Waits until a unit's SLURM job reaches a final state, polling `squeue`
 * patiently: the pause between two calls starts at 1 s and doubles, up to
 * 30 s, while nothing changes; it starts again at 1 s when the units' states
 * change, or when a batch directory shows a batch job starting or ending
 * (its `std.err` or `exit.status` appears — looked at every second, without
 * asking SLURM), so a 10-hour job costs about 1,200 calls, not 70,000.
 *
 * @param unit the unit (submitted)
 * @param opts environment, pace ({@link WaitPace}), progress callback (all
 *   units' states), how often to repeat a failed `squeue` call (default
 *   {@link WAIT_RETRY}: a wait rides out a controller restart)
 * @returns how it ended
 * @throws ScoutError `batch_system` when squeue keeps failing (never `UNKNOWN` for a
 *   job it could not be asked about)
 */
export async function waitForUnit(
  unit: SubmittedBatch,
  opts: WaitPace & {
    env?: Record<string, string | undefined>;
    all?: SubmittedBatch[];
    onPoll?: (counts: Record<string, number>) => void;
    retry?: SqueueRetry;
  } = {},
): Promise<BatchEnd> {
  const id = unit.slurmId!;
  const units = opts.all ?? [unit];
  const ids = units.map((u) => u.slurmId).filter((x): x is string => !!x);
  const first = opts.pollMs ?? 1_000;
  const max = Math.max(first, opts.maxPollMs ?? 30_000);
  const pace = { tickMs: Math.min(opts.tickMs ?? 1_000, first), clock: opts.clock ?? REAL_CLOCK };
  const seen = { files: filesSeen(units), states: "" };
  let pause = first;
  let changed = true;
  for (;;) {
    const states = await slurmStates(ids, opts.env, opts.retry ?? WAIT_RETRY);
    const counts: Record<string, number> = {};
    for (const s of states.values()) counts[s.state] = (counts[s.state] ?? 0) + 1;
    opts.onPoll?.(counts);
    const end = endOf(states.get(id), readExit(unit.dir));
    if (end !== undefined) return end;
    const now = [...states].map(([i, s]) => `${i}:${s.state}`).join(",");
    pause = changed || now !== seen.states ? first : Math.min(pause * 2, max);
    seen.states = now;
    changed = await pauseUnlessFiles(units, seen, pause, pace);
  }
}

/** How the unit ended, from SLURM's state and its exit status; undefined while it may run. */
function endOf(
  s: { state: string; reason: string } | undefined,
  exitStatus: number | undefined,
): BatchEnd | undefined {
  if (s !== undefined && FINAL_STATES.has(s.state)) {
    return {
      state: s.state,
      reason: s.reason,
      ...(exitStatus !== undefined ? { exitStatus } : {}),
    };
  }
  if (s !== undefined) return undefined;
  // Forgotten by SLURM (MinJobAge): the exit status file says how it ended.
  if (exitStatus !== undefined) {
    return { state: exitStatus === 0 ? "COMPLETED" : "FAILED", reason: "", exitStatus };
  }
  return { state: "UNKNOWN", reason: "" };
}
