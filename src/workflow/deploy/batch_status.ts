/**
 * Batch directories after submission (`workflow batch list|tail|clean`): the
 * SLURM state of each (one `squeue` call), how its script ended
 * (`exit.status`), and the status of the job it runs (its `.info`).
 *
 * @module
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { readJobInfo } from "../info.ts";
import { shortPath } from "../store.ts";
import { FINAL_STATES, slurmStates } from "./slurm_state.ts";

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

/**
 * Lists batch directories (those with a `command.batch`) under `base`,
 * oldest first.
 *
 * @param base batch base directory
 * @param env environment for `squeue`
 * @returns the entries
 */
export async function listBatches(
  base: string,
  env: Record<string, string | undefined> = process.env,
): Promise<BatchEntry[]> {
  let names: string[] = [];
  try {
    names = readdirSync(base).filter((n) => existsSync(join(base, n, "command.batch")));
  } catch {
    return [];
  }
  const raw = names.map((name) => {
    const dir = join(base, name);
    const id = read(join(dir, "job.id"))?.trim() || null;
    const ex = read(join(dir, "exit.status"))?.trim();
    const jobs = (read(join(dir, "jobs.list")) ?? "").split("\n").filter((l) => l !== "");
    return { name, dir, id, exit: ex ? Number(ex) : null, jobs, mtime: statSync(dir).mtimeMs };
  });
  const ids = raw.map((r) => r.id).filter((x): x is string => x !== null);
  const states = ids.length > 0 ? await slurmStates(ids, env) : new Map();
  const out: BatchEntry[] = [];
  for (const r of raw) {
    const s = r.id !== null ? states.get(r.id) : undefined;
    let state = s?.state ??
      (r.id === null
        ? "UNSUBMITTED"
        : r.exit === null
        ? "UNKNOWN"
        : r.exit === 0
        ? "COMPLETED"
        : "FAILED");
    const reason = s?.reason && s.reason !== "None" ? s.reason : "";
    const last = r.jobs.at(-1) ?? "";
    let jobStatus = "missing";
    if (last !== "") {
      const { info } = await readJobInfo(last);
      jobStatus = existsSync(last)
        ? "done"
        : typeof info?.status === "string"
        ? info.status
        : "missing";
    }
    let note = "";
    if (reason === "DependencyNeverSatisfied") {
      note = state === "PENDING"
        ? "a dependency failed; it will never run"
        : "a dependency failed; SLURM cancelled it";
    } else if (state === "CANCELLED") note = "cancelled (scancel)";
    else if (state === "FAILED" || (r.exit !== null && r.exit !== 0)) {
      note = `the job failed (exit ${r.exit ?? "?"}); see std.err`;
    }
    if (state === "UNKNOWN" && jobStatus === "done") state = "COMPLETED";
    out.push({
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
    });
  }
  return out.sort((a, b) => a.mtime - b.mtime || a.name.localeCompare(b.name));
}

/**
 * Finds one batch directory by directory path or name, SLURM id, or a job
 * (path or short path) it runs.
 *
 * @param entries listed entries
 * @param target what the user named
 * @returns the entry or undefined
 */
export function findBatch(entries: BatchEntry[], target: string): BatchEntry | undefined {
  const t = target.replace(/\/+$/, "");
  return entries.find((e) => e.dir === t || e.name === t) ??
    entries.find((e) => e.slurmId === t) ??
    entries.find((e) => e.jobs.includes(t) || e.jobs.some((j) => shortPath(j) === t)) ??
    entries.find((e) => e.name.includes(t));
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
