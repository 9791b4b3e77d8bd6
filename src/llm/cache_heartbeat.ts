/**
 * The liveness heartbeat of this process's cache locks. A process's linked
 * locks are hard links to its holder file (`cache_holder.ts`), one inode: the
 * holder file's modification time, refreshed every {@link BEAT_MS} while the
 * process has it, is every such lock's. A created lock file (a file system
 * without hard links) is refreshed through its descriptor while held. A lock
 * or holder file untouched for {@link STALE_MS} is a dead holder's — killed on
 * another host, whose pid cannot be asked, or on this one with its pid since
 * reused (`cache_stale.ts`). The timer is unref'd (it never keeps a process
 * alive) and costs nothing per inference.
 *
 * @module
 */
import { futimesSync, lutimesSync } from "node:fs";
import { setInterval } from "node:timers";

/** How often a live holder refreshes its locks' modification time. */
export const BEAT_MS = 60_000;

/**
 * A lock or holder file untouched this long has no live holder: five beats,
 * which also allows for clocks of a shared file system's hosts that disagree.
 */
export const STALE_MS = 300_000;

/**
 * When this process last beat (ms since the epoch; set when its first holder
 * file is made). A test may move it back to play a process whose loop was
 * blocked or stopped for minutes.
 */
export const heartbeatClock: { lastBeat: number } = { lastBeat: Date.now() };

/**
 * Whether this process's locks may have looked dead to others: its last beat
 * is nearly {@link STALE_MS} old (its loop blocked by a long synchronous tool,
 * the process stopped with Ctrl-Z). Then a lock it holds may have been taken
 * over, and releasing it by name would remove the new holder's. A comparison
 * with a number: nothing per inference.
 *
 * @returns true when a lock of this process may have been taken over
 */
export function heartbeatLapsed(): boolean {
  return Date.now() - heartbeatClock.lastBeat > STALE_MS - BEAT_MS;
}

/** Holder files of this process. */
const files = new Set<string>();
/** Created lock files this process holds, by descriptor. */
const fds = new Set<number>();
let timer: ReturnType<typeof setInterval> | undefined;

/** Refreshes the modification time of every holder file and held created lock of this process. */
export function beat(): void {
  const now = new Date();
  heartbeatClock.lastBeat = now.getTime();
  for (const file of files) {
    try {
      // [TS-FIX] R125: lutimes — a link another member put in the holder's
      // place (its directory is the group's) is never followed to the file it names
      lutimesSync(file, now, now);
    } catch { /* removed (at exit, or swept): made again with its next lock */ }
  }
  for (const fd of fds) {
    try {
      futimesSync(fd, now, now);
    } catch { /* a timer has no caller to tell: the lock ages, a waiter takes it over */ }
  }
}

function start(): void {
  if (timer) return;
  heartbeatClock.lastBeat = Date.now(); // the holder file was just made: its mtime is now
  timer = setInterval(beat, BEAT_MS);
  timer.unref();
}

/**
 * Beats for a holder file of this process from now on.
 *
 * @param file the holder file
 */
export function beatFile(file: string): void {
  files.add(file);
  start();
}

/**
 * Beats for a created lock file while it is held.
 *
 * @param fd its descriptor
 * @param held true from when it is taken, false before it is closed
 */
export function beatFd(fd: number, held: boolean): void {
  if (!held) fds.delete(fd);
  else {
    fds.add(fd);
    start();
  }
}
