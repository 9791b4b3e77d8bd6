/**
 * Batch directories after submission (`workflow batch list|tail|clean`): the
 * SLURM state of each (one `squeue` call), how its script ended
 * (`exit.status`), and the status of the job it runs (its `.info`).
 *
 * @module
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { rm } from "node:fs/promises";
import { constants } from "node:os";
import { join } from "node:path";
import { ScoutError } from "../../errors.ts";
import { readJobInfo } from "../info.ts";
import { shortPath } from "../store.ts";
import { FINAL_STATES, slurmStates, type SqueueRetry } from "./slurm_state.ts";
import { compareNames } from "../../util/name_order.ts";

/** One batch directory as `batch list` shows it. */
export interface BatchEntry {
  /** Directory name. */
  name: string;
  /** Absolute directory. */
  dir: string;
  /** SLURM id (`job.id`), or null when never submitted (`--dry-run`). */
  slurmId: string | null;
  /** SLURM state (`PENDING`, `RUNNING`, `COMPLETED`, `CANCELLED`…); from `exit.status` once SLURM forgot it; `UNSUBMITTED`; `UNKNOWN`. */
  state: string;
  /** SLURM's reason (`DependencyNeverSatisfied`…) or "". */
  reason: string;
  /** The script's exit status, when it ended. */
  exitStatus: number | null;
  /** Job paths it runs. */
  jobs: string[];
  /** The last job's short path. */
  job: string;
  /** That job's status: its `.info` status, `done` when its result exists, `missing` without info. */
  jobStatus: string;
  /** A one-line explanation (`a dependency failed; SLURM cancelled it`…) or "". */
  note: string;
  /** Whether SLURM may still run it (pending, running…). */
  live: boolean;
  /** Last change (ms since epoch). */
  mtime: number;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** What a batch directory's files say: its SLURM id, how its script ended, the jobs it runs. */
interface BatchFiles {
  name: string;
  dir: string;
  id: string | null;
  exit: number | null;
  jobs: string[];
  mtime: number;
}

/** What SLURM says of a batch job (absent once it forgot it). */
type SlurmState = { state: string; reason: string } | undefined;

function batchFiles(base: string, name: string): BatchFiles {
  const dir = join(base, name);
  const id = read(join(dir, "job.id"))?.trim() || null;
  const ex = read(join(dir, "exit.status"))?.trim();
  const jobs = (read(join(dir, "jobs.list")) ?? "").split("\n").filter((l) => l !== "");
  return { name, dir, id, exit: ex ? Number(ex) : null, jobs, mtime: statSync(dir).mtimeMs };
}

/** SLURM's state; once it forgot the job, from `exit.status` (or unsubmitted, unknown). */
function batchState(r: BatchFiles, s: SlurmState): string {
  return s?.state ??
    (r.id === null
      ? "UNSUBMITTED"
      : r.exit === null
      ? "UNKNOWN"
      : r.exit === 0
      ? "COMPLETED"
      : "FAILED");
}

/** The status of a job the batch runs: `done` when its result exists, else its `.info`'s. */
async function jobStatusOf(job: string): Promise<string> {
  if (job === "") return "missing";
  const { info } = await readJobInfo(job);
  return existsSync(job) ? "done" : typeof info?.status === "string" ? info.status : "missing";
}

/** The signal an exit status of 128 + n says ended the script's program (`SIGTERM` for 143). */
function signalOf(exit: number | null): string | undefined {
  if (exit === null || exit <= 128 || exit > 128 + 64) return undefined;
  return Object.entries(constants.signals).find(([, n]) => n === exit - 128)?.[0];
}

/** The one-line explanation of how a batch job ended (or will not run), or "". */
function batchNote(reason: string, state: string, exit: number | null): string {
  if (reason === "DependencyNeverSatisfied") {
    return state === "PENDING"
      ? "a dependency failed; it will never run"
      : "a dependency failed; SLURM cancelled it";
  }
  if (state === "CANCELLED") return "cancelled (scancel)";
  if (state === "TIMEOUT") return "its time limit ran out";
  // the script waits for its program and writes how it ended, a signal too (R109-6)
  const signal = signalOf(exit);
  if (signal !== undefined) return `ended by ${signal} (exit ${exit}: scancel, a time limit…)`;
  if (state === "FAILED" || (exit !== null && exit !== 0)) {
    return `the job failed (exit ${exit ?? "?"}); see std.err`;
  }
  return "";
}

async function batchEntry(r: BatchFiles, s: SlurmState): Promise<BatchEntry> {
  let state = batchState(r, s);
  const reason = s?.reason && s.reason !== "None" ? s.reason : "";
  const last = r.jobs.at(-1) ?? "";
  const jobStatus = await jobStatusOf(last);
  const note = batchNote(reason, state, r.exit);
  if (state === "UNKNOWN" && jobStatus === "done") state = "COMPLETED";
  return {
    name: r.name,
    dir: r.dir,
    slurmId: r.id,
    state,
    reason,
    exitStatus: r.exit,
    jobs: r.jobs,
    job: last !== "" ? shortPath(last) : "",
    jobStatus,
    note,
    live: s !== undefined && !FINAL_STATES.has(s.state),
    mtime: r.mtime,
  };
}

/** How {@link listBatches} asks SLURM. */
export interface ListBatchesOptions {
  /** How often a failed `squeue` call is repeated. */
  retry?: SqueueRetry;
  /**
   * Given, a `squeue` that cannot answer (not installed, no controller) is
   * told to it and the entries are listed from their files alone (state
   * `UNKNOWN` until the script wrote `exit.status`); else it is thrown.
   */
  onSlurmFailure?: (e: ScoutError) => void;
}

/**
 * Lists batch directories (those with a `command.batch`) under `base`,
 * oldest first.
 *
 * @param base batch base directory
 * @param env environment for `squeue`
 * @param opts retries, and what to do when `squeue` cannot answer
 * @returns the entries
 * @throws ScoutError `batch_system` when `squeue` cannot answer and no `onSlurmFailure` is given
 */
export async function listBatches(
  base: string,
  env: Record<string, string | undefined> = process.env,
  opts: ListBatchesOptions = {},
): Promise<BatchEntry[]> {
  let names: string[] = [];
  try {
    names = readdirSync(base).filter((n) => existsSync(join(base, n, "command.batch")));
  } catch {
    return [];
  }
  const raw = names.map((name) => batchFiles(base, name));
  const ids = raw.map((r) => r.id).filter((x): x is string => x !== null);
  const states = await statesOf(ids, env, opts);
  const out: BatchEntry[] = [];
  for (const r of raw) out.push(await batchEntry(r, r.id !== null ? states.get(r.id) : undefined));
  return out.sort((a, b) => a.mtime - b.mtime || compareNames(a.name, b.name));
}

/** SLURM's states of `ids`; empty when squeue cannot answer and `opts` says to go on. */
async function statesOf(
  ids: string[],
  env: Record<string, string | undefined>,
  opts: ListBatchesOptions,
) {
  try {
    return await slurmStates(ids, env, opts.retry);
  } catch (e) {
    if (opts.onSlurmFailure === undefined || !(e instanceof ScoutError)) throw e;
    if (e.code !== "batch_system") throw e;
    opts.onSlurmFailure(e);
    return new Map<string, { state: string; reason: string }>();
  }
}

/** The entries a target names whole: by directory, else SLURM id, else a job they run. */
function wholeMatches(entries: BatchEntry[], x: string): BatchEntry[] {
  const tests: ((e: BatchEntry) => boolean)[] = [
    (e) => e.dir === x || e.name === x,
    (e) => e.slurmId === x,
    (e) => e.jobs.includes(x) || e.jobs.some((j) => shortPath(j) === x),
  ];
  for (const test of tests) {
    const found = entries.filter(test);
    if (found.length > 0) return found;
  }
  return [];
}

/**
 * Finds one batch directory: exactly by directory (path or name), SLURM id,
 * or a job it runs (path or short path); else by a prefix of exactly one
 * directory name or job short path. An all-digit target is a SLURM id and
 * matches only whole.
 *
 * @param entries listed entries
 * @param target what the user named
 * @param also another spelling of it tried exactly (a relative path resolved)
 * @returns the entry, or undefined when none matches
 * @throws ScoutError `job_not_found` when a prefix matches several, or several
 *   directories run the job named (they are listed)
 */
export function findBatch(
  entries: BatchEntry[],
  target: string,
  also?: string,
): BatchEntry | undefined {
  const t = target.replace(/\/+$/, "");
  let whole = wholeMatches(entries, t);
  if (whole.length === 0 && also !== undefined) {
    whole = wholeMatches(entries, also.replace(/\/+$/, ""));
  }
  if (whole.length > 1) {
    // a job run by two directories (one named by an older scout-ai, a chain's and its own): say which
    const shown = whole.map((e) =>
      `${e.name} (${e.slurmId ? `SLURM job ${e.slurmId}` : "unsubmitted"})`
    );
    throw new ScoutError(
      "job_not_found",
      `"${target}" is run by ${whole.length} batch directories: ${shown.join(", ")} ` +
        `(name one by its directory or SLURM id)`,
    );
  }
  if (whole.length === 1 || /^\d+$/.test(t)) return whole[0];
  const matches = entries.filter((e) =>
    e.name.startsWith(t) || e.jobs.some((j) => shortPath(j).startsWith(t))
  );
  if (matches.length > 1) {
    const shown = matches.slice(0, 5).map((e) => `"${e.job || e.name}"`).join(", ");
    throw new ScoutError(
      "job_not_found",
      `"${target}" matches ${matches.length} batch jobs: ${shown}${
        matches.length > 5 ? ", …" : ""
      } (give more of the name, or the SLURM id)`,
    );
  }
  return matches[0];
}

/**
 * Removes the batch directories SLURM will not run any more (ended,
 * forgotten or never submitted); live ones stay.
 *
 * @param entries listed entries
 * @param opts `dryRun`: remove nothing
 * @returns the removed (or, dry, removable) entries
 */
export async function cleanBatches(
  entries: BatchEntry[],
  opts: { dryRun?: boolean } = {},
): Promise<BatchEntry[]> {
  const gone = entries.filter((e) => !e.live);
  if (!opts.dryRun) await Promise.all(gone.map((e) => rm(e.dir, { recursive: true, force: true })));
  return gone;
}
