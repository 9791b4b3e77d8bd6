/**
 * Persist locks shared with Scout (`workflow.md` §3.4): a job runs inside an
 * exclusive lock file so two processes (ours or Scout's) never compute it at
 * once. Same path and content as Scout; acquired atomically with an `O_EXCL`
 * create (Scout links a temp file; both exclude each other); refreshed every 2 s; a lock older than 30 s, or
 * held by a dead pid on this host, is stale and removed; waiters poll with backoff.
 *
 * @module
 */
import { mkdirSync, readFileSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { setInterval as nodeSetInterval } from "node:timers";
import { ScoutError } from "../errors.ts";
import { lockPathFor } from "./store.ts";
import { lockTime } from "./time.ts";
import { pidAlive } from "../util/process.ts";
import { judgeLockSync, type LockId, takeOver } from "../util/stale_takeover.ts";
import { thisHost } from "./state.ts";

const REFRESH_MS = 2_000;
const lockDirs = new Set<string>();
const STALE_MS = 30_000;

/**
 * The age (ms) past which a lock not refreshed is stale: Scout's
 * `Lockfile.max_age` (30 s), or `SCOUT_LOCK_MAX_AGE` seconds when set (a
 * test's seam: a holder blocked longer than that without it taking 30 s).
 *
 * @param env environment to read (default `process.env`)
 * @returns the stale age in ms
 */
export function lockMaxAgeMs(env: Record<string, string | undefined> = process.env): number {
  const secs = Number(env.SCOUT_LOCK_MAX_AGE);
  return env.SCOUT_LOCK_MAX_AGE !== undefined && Number.isFinite(secs) && secs > 0
    ? secs * 1000
    : STALE_MS;
}

/** How often a holder touches its lock: every 2 s, or often enough for a shorter stale age. */
function refreshMs(): number {
  return Math.min(REFRESH_MS, lockMaxAgeMs() / 3);
}

/** A held lock. Release it exactly once (sync variant for signal handlers). */
export interface HeldLock {
  /** Lock file path. */
  path: string;
  /** Stops the refresh timer and removes the lock file. */
  release(): void;
}

/** Options of {@link acquireLock}. */
export interface LockOptions {
  /** Give up after this many ms (default: wait as long as the holder lives). */
  timeoutMs?: number;
  /** Called once when the lock is busy and we start waiting. */
  onWait?: (holder: string) => void;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function parseHolder(text: string): { host?: string; pid?: number } {
  const host = /^host: (.*)$/m.exec(text)?.[1];
  const pid = /^pid: (\d+)$/m.exec(text)?.[1];
  return {
    ...(host !== undefined ? { host } : {}),
    ...(pid !== undefined ? { pid: Number(pid) } : {}),
  };
}

/**
 * Whether an existing lock file is stale: older than 30 s (not refreshed), or
 * held by a pid that is dead on this host.
 *
 * @param path lock file
 * @returns true when it may be removed
 */
export function isStaleLock(path: string): boolean {
  let st;
  try {
    st = statSync(path);
  } catch {
    return false;
  }
  if (Date.now() - st.mtimeMs > lockMaxAgeMs()) return true; // an unreadable one too
  let text = "";
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return false;
  }
  return staleHolder(text, st);
}

/** The staleness rule on a lock already read: not refreshed for 30 s, or its holder dead here. */
function staleHolder(text: string, id: Pick<LockId, "mtimeMs">): boolean {
  if (Date.now() - id.mtimeMs > lockMaxAgeMs()) return true;
  const { host, pid } = parseHolder(text);
  return host === thisHost() && pid !== undefined && pid !== process.pid && !pidAlive(pid);
}

function tryCreate(path: string, content: string): boolean {
  // O_EXCL create: atomic on local filesystems (the spec allows it next to Scout's link()).
  try {
    writeFileSync(path, content, { flag: "wx" });
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code === "ENOENT") {
      mkdirSync(dirname(path), { recursive: true }); // the lock directory was removed meanwhile
      return tryCreate(path, content);
    }
    throw new ScoutError("io", `Cannot create lock "${path}": ${(e as Error).message}`, {
      file: path,
      cause: e,
    });
  }
}

/**
 * Acquires the persist lock of a job, waiting while another live process holds it.
 *
 * @param jobPath absolute result path
 * @param lockDir lock directory (`$SCOUT_HOME/tmp/persist_locks`)
 * @param opts timeout and a wait callback
 * @returns the held lock
 * @throws ScoutError `lock_timeout`
 */
export async function acquireLock(
  jobPath: string,
  lockDir: string,
  opts: LockOptions = {},
): Promise<HeldLock> {
  if (!lockDirs.has(lockDir)) {
    await mkdir(lockDir, { recursive: true });
    lockDirs.add(lockDir);
  }
  return await acquireLockFile(lockPathFor(jobPath, lockDir), opts);
}

/**
 * Acquires the lock file `path` (its directory must exist) with the persist
 * lock's rules: `O_EXCL` create, Scout's holder lines, refreshed every 2 s, a
 * stale one (dead holder here, or not refreshed for 30 s) taken over.
 *
 * @param path the lock file
 * @param opts timeout and a wait callback
 * @returns the held lock
 * @throws ScoutError `lock_timeout`
 */
export async function acquireLockFile(path: string, opts: LockOptions = {}): Promise<HeldLock> {
  const content =
    `host: ${thisHost()}\npid: ${process.pid}\nppid: ${process.ppid}\ntime: ${lockTime()}\n`;
  const started = Date.now();
  let delay = 5;
  let waited = false;
  while (!tryCreate(path, content)) {
    // only the lock judged stale is removed, one taker at a time: two waiters
    // on a dead holder's lock never both remove one (util/stale_takeover.ts)
    const judged = judgeLockSync(path, staleHolder);
    if (judged === null || (judged.stale && takeOver(path, judged))) continue;
    if (!waited) {
      waited = true;
      let holder = "";
      try {
        holder = readFileSync(path, "utf8").replaceAll("\n", " ").trim();
      } catch { /* released meanwhile */ }
      opts.onWait?.(holder);
    }
    if (opts.timeoutMs !== undefined && Date.now() - started > opts.timeoutMs) {
      throw new ScoutError("lock_timeout", `Timed out waiting for lock "${path}"`, { file: path });
    }
    await sleep(delay);
    delay = Math.min(250, Math.ceil(delay * 1.5));
  }
  const timer = nodeSetInterval(() => {
    try {
      const now = new Date();
      utimesSync(path, now, now);
    } catch { /* the file was removed (stale sweep by another process); nothing to refresh */ }
  }, refreshMs());
  timer.unref();
  let released = false;
  return {
    path,
    release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      try {
        unlinkSync(path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      }
    },
  };
}
