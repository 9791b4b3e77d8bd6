/**
 * Who builds a database's index, and what a dead builder left. One builder
 * at a time per index (R112-6): the build runs holding `<db>.idx.lock`
 * beside the index (`util/file_lock.ts`), and a process that waited for it
 * uses the index the builder finished instead of building its own — before,
 * each of N processes that found the index stale at once (a SLURM array,
 * parallel queries) built a full one, N temp files and N times the memory.
 * The build of a TSV over {@link LONG_BUILD_BYTES} has its lock refreshed
 * from the refresher thread; a smaller one, done in about a second, spares
 * that thread's start (50–250 ms). A builder that died leaves a stale lock,
 * taken over at once on its host (the pid is gone), and once untouched for
 * 30 s (on its host: a pid reused since, R151-1; on another: as a waiter
 * watched it); a live builder that takes longer than
 * {@link BUILD_WAIT_MS} is no longer waited for (a build of its own, as
 * before). Whoever uses an index also sweeps the temp files and the lock
 * that dead builds of it left (R112-4), built or not.
 *
 * @module
 */
import { mkdirSync } from "node:fs";
import { basename, dirname } from "node:path";
import { removeDeadTemps } from "../util/dead_temps.ts";
import { acquireFileLockSync, removeStaleLockSync } from "../util/file_lock.ts";

/** How long a process waits for another's build of an index before building its own. */
export const BUILD_WAIT_MS = 10 * 60_000;

/**
 * A TSV this large takes about a second to index: its build's lock is
 * refreshed while it runs (a smaller build ends long before a lock goes
 * stale, 30 s untouched). [TS-FIX] R151-1: 4 MiB before, whose build took
 * 4–5 s on a loaded 2-core host (400-target lines or 8-byte ones) — too
 * close to the stale age now that an unrefreshed lock of this host goes
 * stale by age, whatever its pid.
 */
export const LONG_BUILD_BYTES = 1024 * 1024;

/** A build of an index: how to find it current, how to build it. */
export interface IndexBuild<T> {
  /** The index when it is current (built by another process meanwhile), else null. */
  current: () => T | null;
  /** Builds it. */
  build: () => T;
  /** The TSV's size in bytes. */
  tsvBytes: number;
}

/**
 * Builds the index at `path` holding its build lock, unless the index
 * found once the lock is taken is current (another process built it
 * meanwhile).
 *
 * @param path the index file (its directory is made)
 * @param job how to find it current and how to build it
 * @returns what `current` found, or what `build` returned
 * @throws the file system's error when the directory or the lock cannot be made
 */
export function buildOnce<T>(path: string, job: IndexBuild<T>): T {
  const { current, build, tsvBytes } = job;
  mkdirSync(dirname(path), { recursive: true });
  const long = tsvBytes > LONG_BUILD_BYTES;
  const release = acquireFileLockSync(path, { waitMs: BUILD_WAIT_MS, long });
  try {
    return current() ?? build();
  } finally {
    release?.();
  }
}

/**
 * Removes what builds of the index at `path` that died on this host left
 * (their temp files, their lock): best effort.
 *
 * @param path the index file
 */
export function sweepDeadBuilds(path: string): void {
  removeDeadTemps(dirname(path), `${basename(path)}.`);
  removeStaleLockSync(path);
}
