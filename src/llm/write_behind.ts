/**
 * The inference cache's write-behind queue: a store under the key's lock is
 * synchronous file work (a temp file, a rename, the lock's removal) queued for
 * the next turn of the event loop — after what follows a reply (the caller's
 * next request sent) — or for the process's exit, whichever comes first.
 * Measured on the agents bench (docs/design-notes.md, "Inference cache cost
 * on the agents bench"): under Bun, whose HTTP client leaves the main thread
 * idle while a request is out, the stores then fill that idle time.
 *
 * @module
 */
import process from "node:process";
import { setImmediate } from "node:timers";

/**
 * A store: synchronous file work. It may decline (return false) to run at a
 * turn of the event loop — what it needs is not ready — and is then tried at
 * the next one; at the process's exit (`atExit`) it must run.
 */
export type Job = (atExit: boolean) => boolean | void;

/** Stores waiting for the next turn of the event loop, in order (true once run). */
let queue: ((atExit: boolean) => boolean)[] = [];
/** The queued stores' outcomes, until settled. */
const pending = new Set<Promise<void>>();
let drainAtExit = false;

function drain(atExit: boolean): void {
  const jobs = queue;
  queue = [];
  for (const job of jobs) if (!job(atExit)) queue.push(job);
  if (queue.length > 0) setImmediate(drain, false);
}

/**
 * Queues `job` for the next turn of the event loop, or the process's exit if
 * that comes first (an exit handler runs only synchronous code: so is every
 * store).
 *
 * @param job the work
 * @returns settles when the job has run: rejected with what it threw
 */
export function later(job: Job): Promise<void> {
  const done = new Promise<void>((resolve, reject) => {
    queue.push((atExit) => {
      try {
        if (job(atExit) === false) return false;
        resolve();
      } catch (e) {
        reject(e);
      }
      return true;
    });
  });
  if (queue.length === 1) setImmediate(drain, false);
  if (!drainAtExit) {
    drainAtExit = true;
    process.on("exit", () => drain(true));
  }
  pending.add(done);
  const forget = () => pending.delete(done);
  done.then(forget, forget);
  return done;
}

/**
 * Waits until every store written behind so far is published (or failed:
 * its caller reports that). An ask awaits this before it returns, unless
 * its caller settles for it (`deferCacheWrites`, a specialist's ask).
 *
 * @returns when the queue is empty
 */
export async function settleCacheWrites(): Promise<void> {
  while (pending.size > 0) await Promise.allSettled(pending);
}
