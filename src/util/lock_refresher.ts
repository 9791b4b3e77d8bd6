/**
 * Keeps this process's held lock files fresh from a thread of their own
 * (R89-1). A holder touches its lock every few seconds so that waiters do not
 * judge it stale; a timer on the main thread stops while a job's body blocks
 * it (`execSync`, a long synchronous loop), and a waiter then took the lock of
 * a live holder and ran the same body again. Scout refreshes from a Ruby
 * thread for the same reason (`lockfile.rb`, `new_refresher`).
 *
 * One worker per process, started with the first lock and unref'd (it never
 * keeps the process alive), touches each registered lock while the lock's
 * text is still the one this holder wrote: a lock released, or taken over by
 * another process, is no longer refreshed. Where no worker can start, a
 * main-thread timer does it (the old behaviour).
 * [TS-FIX] (R125) The lock is read as `regular_file.ts` reads a file
 * (`O_NONBLOCK`, its descriptor stat'ed, only a regular file read): a held
 * lock another member of a shared store swapped for a FIFO blocked the
 * read for ever, the refresher thread with it (the whole process, on the
 * main thread). Anything but a regular file is no longer ours: not refreshed.
 *
 * @module
 */
import { utimesSync } from "node:fs";
import { setInterval as nodeSetInterval } from "node:timers";
import { Worker } from "node:worker_threads";
import { readRegularTextSync } from "./regular_file.ts";

/**
 * The worker's code, evaluated (no file to ship next to the compiled
 * binary). Messages: `{ add, content, every }` starts refreshing lock file
 * `add` whose text is `content` every `every` ms; `{ remove }` stops.
 */
const WORKER_CODE = `
const { parentPort } = require("node:worker_threads");
const fs = require("node:fs");
const timers = new Map();
function stop(path) { clearInterval(timers.get(path)); timers.delete(path); }
function lockText(path) {
  let fd;
  try { fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK); } catch { return null; }
  try { return fs.fstatSync(fd).isFile() ? fs.readFileSync(fd, "utf8") : null; } catch { return null; }
  finally { fs.closeSync(fd); }
}
function touch(path, content) {
  if (lockText(path) !== content) return stop(path);
  try { const now = new Date(); fs.utimesSync(path, now, now); } catch {}
}
parentPort.on("message", (m) => {
  if (m.add === undefined) return stop(m.remove);
  stop(m.add);
  touch(m.add, m.content);
  timers.set(m.add, setInterval(touch, m.every, m.add, m.content));
});
`;

/** A lock this process refreshes. */
interface Refreshed {
  content: string;
  every: number;
  /** The main-thread timer, when no worker refreshes it. */
  timer?: ReturnType<typeof nodeSetInterval>;
}

const refreshed = new Map<string, Refreshed>();
/** The refreshing worker; null once none can run here. */
let worker: Worker | null | undefined;

/**
 * Touches lock `path` if its text is still `content` (ours): what the
 * main-thread timer does where no worker runs.
 *
 * @param path the held lock file
 * @param content the text this holder wrote into it
 * @returns false when the lock is no longer ours (released or taken over)
 */
export function touchIfOurs(path: string, content: string): boolean {
  let text: string | null = null;
  try {
    text = readRegularTextSync(path);
  } catch { /* gone, or not a regular file */ }
  if (text !== content) return false;
  try {
    const now = new Date();
    utimesSync(path, now, now);
  } catch { /* removed meanwhile */ }
  return true;
}

function mainThreadTimer(path: string, r: Refreshed): void {
  r.timer = nodeSetInterval(() => {
    if (!touchIfOurs(path, r.content)) clearInterval(r.timer);
  }, r.every);
  r.timer.unref();
}

/** The worker gone: the main thread refreshes what it refreshed. */
function workerLost(): void {
  worker = null;
  for (const [path, r] of refreshed) if (r.timer === undefined) mainThreadTimer(path, r);
}

function startWorker(): Worker | null {
  try {
    const w = new Worker(WORKER_CODE, { eval: true });
    w.on("error", workerLost);
    w.on("exit", () => {
      if (worker === w) workerLost();
    });
    w.unref();
    return w;
  } catch {
    return null; // no threads here
  }
}

/**
 * Refreshes lock file `path` (touched every `everyMs`) while its text is
 * `content`, from the refresher thread, until the returned stop is called.
 *
 * @param path the held lock file
 * @param content the text this holder wrote into it
 * @param everyMs how often to touch it
 * @returns stops refreshing it (idempotent)
 */
export function keepFresh(path: string, content: string, everyMs: number): () => void {
  if (worker === undefined) worker = startWorker();
  const r: Refreshed = { content, every: everyMs };
  refreshed.set(path, r);
  if (worker !== null) worker.postMessage({ add: path, content, every: everyMs });
  else mainThreadTimer(path, r);
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    if (r.timer !== undefined) clearInterval(r.timer);
    if (refreshed.get(path) === r) refreshed.delete(path);
    worker?.postMessage({ remove: path });
  };
}
