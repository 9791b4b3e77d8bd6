/**
 * What `system clean` removes from a job store (Scout's `scout system clean
 * [WORKFLOW [TASK]] [-o AGE]`): jobs that will never finish — `error`,
 * `aborted`, `unsync` (info says done, no result), `noinfo`, `stale` (the
 * recorded process is gone), `ended` (the SLURM job it waited for ended
 * before it ran) — and, with an age, done jobs not used for that long.
 *
 * Never removed: a job in progress (its pid alive on this host, a SLURM job
 * that may still run it, its lock held), a job a kept chat's provenance
 * reaches, nor a dependency of any job that stays (also one outside the
 * workflows cleaned). [TS-FIX] Scout signals a pid recorded on another host
 * as if it were local (a job running on another node of a shared store reads
 * as dead and is removed), removes `waiting` jobs still queued, and takes
 * none of these precautions; here a job in progress whose process cannot be
 * checked from this host goes only once untouched for the age given, and
 * only if its lock is free (`store_clean_remove.ts` takes it).
 *
 * @module
 */
import { existsSync, readdirSync } from "node:fs";
import { basename } from "node:path";
import { isScoutError } from "../errors.ts";
import { formatAge } from "../util/age.ts";
import { futureReason } from "../util/used_time.ts";
import { finalStatus, infoProcess } from "./state.ts";
import { isStaleLock } from "./lock.ts";
import { lockPathFor } from "./store.ts";
import { rereadJob, type StoreJob } from "./store_scan.ts";
import {
  type CleanTarget,
  jobIndex,
  keepDependencies,
  type KeptJob,
  mayBeDependencyOf,
  removalOrder,
  unknownDependenciesWarning,
} from "./store_clean_deps.ts";
import {
  notALock,
  oddLockKind,
  type RemovalOutcome,
  type RemovedJob,
  removeJobs,
  sweepStaleLocks,
} from "./store_clean_remove.ts";

import { waitingBatch, type WaitingBatchState } from "./deploy/batch_job.ts";
import { mayStillRun } from "./deploy/slurm_queued.ts";
import { slurmStates } from "./deploy/slurm_state.ts";

export type { CleanTarget, KeptJob } from "./store_clean_deps.ts";
export type { FailedJob, RemovedJob } from "./store_clean_remove.ts";

/** What a clean removed, kept and could not remove. */
export interface CleanOutcome extends RemovalOutcome {
  /** Stale locks removed (or, in a dry run, found). */
  locks: string[];
}

/** Options of {@link cleanStore}. */
export interface CleanStoreOptions {
  /** Done jobs unused for longer than this many ms go too (null: only jobs that never finish). */
  olderMs: number | null;
  /** Canonical paths of jobs to keep (those a kept chat's provenance reaches). */
  keep: ReadonlySet<string>;
  /** The persist-lock directory. */
  lockDir: string;
  /**
   * Its real path, for the stale-lock sweep (null: not swept, e.g. a link
   * another user made, `util/owned_links.ts`); default: its links followed.
   */
  lockSweepDir?: string | null;
  /** The clock (default `Date.now()`). */
  now?: number;
  /** Environment for `squeue`. */
  env?: Record<string, string | undefined>;
  /** List only: take no lock, remove nothing. */
  dryRun?: boolean;
  /** Told of each job as it is removed (or would be). */
  onRemoved?: (r: RemovedJob) => void;
}

type Judgement = { go: true; status: string } | { go: false; status: string; reason: string };

function statusOf(job: StoreJob): string {
  const s = job.info?.status;
  return typeof s === "string" && s !== "" ? s : job.done ? "done" : "noinfo";
}

/**
 * A job used this recently stays, whatever its status and `--older`: the
 * run that just made or recorded it may be about to read it (a run loads its
 * result from disk once its lock is released).
 */
const GRACE_MS = 60_000;

/**
 * Whether a job goes (null: it stays, nothing to say): by its status and
 * age, not in its grace minute. A job dated in the future beyond the clock
 * skew (`util/used_time.ts`) is aged from its last change; when that keeps
 * it — in its grace minute, younger than `--older`, or of unknown age — it
 * is listed with why (R163-2: it stayed silently until that date).
 */
function judge(
  job: StoreJob,
  o: CleanStoreOptions,
  batches: ReadonlyMap<string, WaitingBatchState>,
): Judgement | null {
  const now = o.now ?? Date.now();
  const j = judgeStatus(job, o, batches);
  const recent = now - job.lastUsedMs < GRACE_MS;
  if (j?.go && !recent) return j;
  if (job.futureMs !== null && (j?.go || (j === null && o.olderMs !== null))) {
    const reason = futureReason({ ms: job.lastUsedMs, futureMs: job.futureMs }, now);
    return { go: false, status: j?.status ?? statusOf(job), reason };
  }
  return j?.go ? null : j;
}

/** Whether a job goes by its status and age alone (null: it stays, nothing to say). */
function judgeStatus(
  job: StoreJob,
  o: CleanStoreOptions,
  batches: ReadonlyMap<string, WaitingBatchState>,
): Judgement | null {
  const status = statusOf(job);
  const old = o.olderMs !== null && (o.now ?? Date.now()) - job.lastUsedMs > o.olderMs;
  // a done job's process is not looked at: one signal spared per job (R147-4)
  const proc = job.done && finalStatus(status) ? "none" : infoProcess(job.info);
  if (!finalStatus(status) && proc === "alive") {
    return { go: false, status, reason: `running (pid ${job.info?.pid})` };
  }
  if (job.done) return old ? { go: true, status: "done" } : null;
  if (job.problem !== null) {
    // [TS-FIX] (R123-2) untouched for AGE, it goes: as a job in progress whose process cannot be checked
    if (old) return { go: true, status: "noinfo" };
    return { go: false, status, reason: `its info cannot be read: ${job.problem}` };
  }
  if (status === "done") return { go: true, status: "unsync" };
  if (status === "error" || status === "aborted" || status === "noinfo") {
    return { go: true, status };
  }
  if (status === "cleaned") return old ? { go: true, status } : null;
  const batch = batches.get(job.path);
  if (batch !== undefined) return judgeQueued(batch, status);
  if (proc === "gone") return { go: true, status: "stale" };
  if (old) return { go: true, status: "stale" };
  const where = proc === "unknown"
    ? `in progress on ${job.info?.pid_hostname}, which cannot be checked from here`
    : "in progress, no process recorded";
  return { go: false, status, reason: where };
}

/** A waiting job's SLURM job: it may still run it (or SLURM could not be asked), or it ended. */
function judgeQueued(b: WaitingBatchState, status: string): Judgement {
  if (b.error !== undefined) {
    return {
      go: false,
      status,
      reason: `queued in SLURM job ${b.id}, whose state is not known (${b.error})`,
    };
  }
  if (b.state !== null && mayStillRun({ state: b.state, reason: b.reason })) {
    return { go: false, status, reason: `queued in SLURM job ${b.id} (${b.state})` };
  }
  return { go: true, status: "ended" };
}

/** The SLURM jobs the waiting jobs cleaned wait for, asked about in one `squeue` call. */
async function queuedBatches(
  jobs: readonly StoreJob[],
  env: Record<string, string | undefined> | undefined,
): Promise<Map<string, WaitingBatchState>> {
  const waiting = new Map<string, string>();
  for (const j of jobs) {
    const b = j.inScope ? waitingBatch(j.info, j.done) : null;
    if (b !== null) waiting.set(j.path, b.id);
  }
  const out = new Map<string, WaitingBatchState>();
  if (waiting.size === 0) return out;
  let states: Map<string, { state: string; reason: string }> | null = null;
  let error: string | undefined;
  try {
    states = await slurmStates([...new Set(waiting.values())], env, { attempts: 2 });
  } catch (e) {
    // squeue missing or failing: SLURM cannot tell, so the jobs stay (judgeQueued)
    if (!isScoutError(e, "batch_system")) throw e;
    error = e.message;
  }
  for (const [path, id] of waiting) {
    const s = states?.get(id);
    out.set(path, {
      system: "SLURM",
      id,
      state: s?.state ?? null,
      reason: s?.reason ?? "",
      ended: false,
      ...(error !== undefined ? { error } : {}),
    });
  }
  return out;
}

/** Lock files present in the lock directory, by name: none when it is missing, undefined when it cannot be listed. */
function lockNames(lockDir: string): Set<string> | undefined {
  try {
    return new Set(readdirSync(lockDir));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return new Set();
    return undefined; // each job's lock looked at on its own
  }
}

/**
 * Whether a persist lock of a job, under any of its spellings, is held by a
 * live holder now (a lock that is stale — not refreshed for 30 s, or its
 * holder dead here — is not).
 *
 * @param job the job
 * @param lockDir the persist-lock directory
 * @param present lock names known to exist (a listing), to spare a stat per job
 * @returns true when held
 */
function lockHeld(job: StoreJob, lockDir: string, present?: ReadonlySet<string>): boolean {
  return job.spellings.some((path) => {
    const lock = lockPathFor(path, lockDir);
    if (present !== undefined && !present.has(basename(lock))) return false;
    return existsSync(lock) && !isStaleLock(lock);
  });
}

/**
 * Why a job's lock keeps it, or null: held by a live holder, or not a
 * regular file (a FIFO planted in its place, R125: never read, so it looked
 * held, or stale and then could not be taken).
 */
function lockReason(job: StoreJob, lockDir: string, present?: ReadonlySet<string>): string | null {
  const odd = oddLockKind(job, lockDir, present);
  if (odd !== null) return notALock(odd);
  return lockHeld(job, lockDir, present) ? "in use: its lock is held" : null;
}

/** The judgement of each job in scope: what goes, and what stays although its status alone would not keep it. */
function plan(
  jobs: readonly StoreJob[],
  o: CleanStoreOptions,
  batches: ReadonlyMap<string, WaitingBatchState>,
): { going: Map<string, CleanTarget>; kept: KeptJob[]; warnings: string[] } {
  const locks = lockNames(o.lockDir);
  const going = new Map<string, CleanTarget>();
  const kept: KeptJob[] = [];
  for (const job of jobs) {
    if (!job.inScope) continue;
    const j = judge(job, o, batches);
    if (j === null) continue;
    if (!j.go) kept.push({ job, status: j.status, reason: j.reason });
    else if (o.keep.has(job.canonical)) {
      kept.push({ job, status: j.status, reason: "reached by a kept chat's provenance" });
    } else {
      const locked = lockReason(job, o.lockDir, locks);
      if (locked !== null) kept.push({ job, status: j.status, reason: locked });
      else going.set(job.path, { job, status: j.status });
    }
  }
  kept.push(...keepDependencies(jobs, going));
  const blind = keepForUnknownDependencies(jobs, going, kept, o.now ?? Date.now());
  return { going, kept: [...kept, ...blind.kept], warnings: blind.warnings };
}

/**
 * Keeps, next to a job that stays whose `.info` cannot be read even as a
 * Ruby Marshal dump (truncated, unreadable), the done jobs that would go:
 * any could be one of its dependencies.
 * [TS-FIX] (R124-1) Until now such a job stopped the whole clean, one Ruby
 * job of any workflow blocked every clean of the store. The jobs that go
 * although not done (error, aborted, stale, unsync, noinfo, ended, cleaned)
 * still go: they hold no result a dependent reads — a run of the dependent
 * computes such a dependency again, as Scout does with one in error (it
 * cleans it first) — and each goes under its lock, so no run of it is cut.
 * A done one could hold a result the job reads, or make it out of date
 * when gone. A job with such an info that goes itself (done and unused for
 * AGE, or not done and untouched for AGE) keeps nothing: it is removed
 * first (`removalOrder`, R123-2).
 *
 * @param jobs every job of the store
 * @param going path → target (changed in place)
 * @param kept the jobs kept so far (for why the blind one stays)
 * @param now the clock
 * @returns the jobs kept for them, and one warning per such job
 */
function keepForUnknownDependencies(
  jobs: readonly StoreJob[],
  going: Map<string, CleanTarget>,
  kept: readonly KeptJob[],
  now: number,
): { kept: KeptJob[]; warnings: string[] } {
  const out: { kept: KeptJob[]; warnings: string[] } = { kept: [], warnings: [] };
  for (const blind of jobs.filter((j) => j.problem !== null && !going.has(j.path))) {
    const done = [...going.values()].filter((t) => t.job.done);
    if (done.length === 0) continue;
    const why = kept.find((k) => k.job === blind)?.reason ??
      (blind.inScope
        ? `used ${formatAge(now - blind.lastUsedMs)} ago`
        : "outside the workflows cleaned");
    out.warnings.push(unknownDependenciesWarning(blind, why, done.length));
    for (const t of done) {
      going.delete(t.job.path);
      out.kept.push({ job: t.job, status: t.status, reason: mayBeDependencyOf(blind) });
    }
  }
  return out;
}

/**
 * Cleans a job store: stale locks first, then each job in scope judged by
 * its status and age; kept when in use, reached by a kept chat, or a
 * dependency of a job that stays; the others removed one by one under
 * their locks, dependents first.
 *
 * @param jobs every job of the store ({@link scanStore}), in scope or not
 * @param o the age, the jobs to keep, the lock directory, dry run
 * @returns what was removed, kept and could not be removed
 */
export async function cleanStore(
  jobs: readonly StoreJob[],
  o: CleanStoreOptions,
): Promise<CleanOutcome> {
  const dryRun = Boolean(o.dryRun);
  const locks = o.lockSweepDir === undefined
    ? sweepStaleLocks(o.lockDir, dryRun)
    : sweepStaleLocks(o.lockDir, dryRun, o.lockSweepDir);
  const batches = await queuedBatches(jobs, o.env);
  const { going, kept, warnings } = plan(jobs, o, batches);
  const rejudge = (job: StoreJob) => {
    const now = rereadJob(job);
    return now === null ? null : judge(now, { ...o, now: Date.now() }, batches);
  };
  const outcome = await removeJobs(removalOrder(jobs, going), {
    lockDir: o.lockDir,
    dryRun,
    find: jobIndex(jobs),
    rejudge,
    ...(o.onRemoved !== undefined ? { onRemoved: o.onRemoved } : {}),
  });
  return {
    ...outcome,
    kept: [...kept, ...outcome.kept],
    warnings: [...warnings, ...outcome.warnings],
    locks,
  };
}
