/**
 * The earlier attempts of a job rerun in place (R109-3): before a job that
 * failed (`error` or `aborted`) or whose run died in progress (killed with
 * SIGKILL, its node lost: the info still says `start` or a custom status, its
 * process is gone) runs again under its own name, what that run left — its
 * `.info` and the entries of its `.files/` (agent logs, chats, meta records:
 * the evidence of the tokens it paid for) — is moved to
 * `<job>.files/.attempts/<n>.info` and `<job>.files/.attempts/<n>.files/`,
 * laid out as a job of its own so that provenance reads an attempt as it
 * reads a job (`src/provenance/`: an `attempt` edge from the job).
 *
 * [TS-FIX] Ruby's Scout cleans a failed job and runs it again, deleting that
 * evidence, though the provider was paid for it (and the round that was in
 * flight is paid again); a run that died in progress Scout does not clean but
 * runs over — the stale lock taken over, the info reset, the new run's logs
 * written over the dead run's. The place is chosen so that Scout never sees a
 * stray job: a dot-directory inside the job's own `.files/` is part of the
 * job's files, which Scout's readers glob without dot entries, and which a
 * Scout rerun or clean deletes with the rest (`rm -rf <job>.files`), as the
 * port's explicit clean does (`clean.ts`): a user's `--clean`/`--recompute`
 * deletes everything, attempts included.
 *
 * @module
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type JobInfo, readJobInfoSync } from "./info.ts";
import { finalStatus, infoProcess } from "./state.ts";
import { filesDir, infoPath } from "./store.ts";

/** The directory of a job's `.files/` that holds its earlier attempts. */
export const ATTEMPTS_DIR = ".attempts";

/**
 * How many earlier attempts a job keeps: a job failed again and again would
 * otherwise keep a copy of every run's logs. The oldest go first; numbers
 * keep counting, so a gap (`attempt 3` the first kept) says attempts were
 * dropped.
 */
export const MAX_KEPT_ATTEMPTS = 10;

/** One kept earlier attempt of a job. */
export interface KeptAttempt {
  /** Its number (1 for the job's first run). */
  n: number;
  /** Its path as a job: `<job>.files/.attempts/<n>` (with `.info`, `.files/` beside it). */
  path: string;
}

/**
 * The directory of a job's earlier attempts.
 *
 * @param jobPath the job's result path
 * @returns `<jobPath>.files/.attempts`
 */
export function attemptsDir(jobPath: string): string {
  return join(filesDir(jobPath), ATTEMPTS_DIR);
}

const ATTEMPT_ENTRY = /^(\d+)\.(?:info|files)$/;

/**
 * The earlier attempts a job keeps, oldest first.
 *
 * @param jobPath the job's result path
 * @returns the attempts (none when the directory is absent)
 *
 * @example
 * ```ts ignore
 * import { keptAttempts } from "./attempts.ts";
 * keptAttempts("/jobs/Boss/ask/Default"); // [{ n: 1, path: "/jobs/Boss/ask/Default.files/.attempts/1" }]
 * ```
 */
export function keptAttempts(jobPath: string): KeptAttempt[] {
  const dir = attemptsDir(jobPath);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw e;
  }
  const numbers = new Set<number>();
  for (const name of names) {
    const m = ATTEMPT_ENTRY.exec(name);
    if (m !== null) numbers.add(Number(m[1]));
  }
  return [...numbers].sort((a, b) => a - b).map((n) => ({ n, path: join(dir, String(n)) }));
}

/** The entries of a job's `.files/` that belong to its last run (all but the attempts). */
function runEntries(jobPath: string): string[] {
  try {
    return readdirSync(filesDir(jobPath)).filter((name) => name !== ATTEMPTS_DIR);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw e;
  }
}

/**
 * Whether the run an info records is one to keep as an earlier attempt: it
 * failed (`error`, `aborted`), or it died in progress — an in-progress
 * status (`setup`, `start`, a custom one) whose recorded process, on this
 * host, is gone. A run on another host is left to be run over in place, as
 * before (R130-3): its lock was taken as stale by age alone, and a run whose
 * refresh only paused (suspended with Ctrl-Z, a stalled file system) may be
 * alive — its files moved away under it would fail it. A run whose process
 * is alive here is never taken for dead.
 */
function earlierRun(info: JobInfo | null): boolean {
  const status = info?.status;
  if (status === "error" || status === "aborted") return true;
  if (typeof status !== "string" || status === "" || finalStatus(status)) return false;
  return infoProcess(info) === "gone";
}

/**
 * Sets an earlier run of a job aside before the job runs again in place:
 * when it is not done, its info says it failed (`error`, `aborted`) or it
 * died in progress (an in-progress status, its recorded process gone: a run
 * killed with SIGKILL), and its run left anything in `.files/`, those
 * entries and its `.info` become the next earlier attempt (the files first:
 * a crash between the two leaves the info as it was, so the next run sets
 * the rest aside). The oldest attempts beyond {@link MAX_KEPT_ATTEMPTS} are
 * deleted. To be called with the job's lock held (the lock taken is what
 * says no live process runs the job) or where the runner would clean it.
 *
 * @param jobPath the job's result path
 * @returns the new attempt's number, or null when nothing was set aside
 */
export function setAsideEarlierRun(jobPath: string): number | null {
  if (existsSync(jobPath)) return null;
  const { info } = readJobInfoSync(jobPath);
  if (!earlierRun(info)) return null;
  const entries = runEntries(jobPath);
  if (entries.length === 0) return null; // nothing of it was kept: nothing was paid for
  const kept = keptAttempts(jobPath);
  const n = (kept.at(-1)?.n ?? 0) + 1;
  const to = join(attemptsDir(jobPath), String(n));
  mkdirSync(`${to}.files`, { recursive: true });
  for (const name of entries) renameSync(join(filesDir(jobPath), name), join(`${to}.files`, name));
  renameSync(infoPath(jobPath), `${to}.info`);
  for (const old of kept.slice(0, Math.max(0, kept.length + 1 - MAX_KEPT_ATTEMPTS))) {
    rmSync(`${old.path}.info`, { force: true });
    rmSync(`${old.path}.files`, { force: true, recursive: true });
  }
  return n;
}
