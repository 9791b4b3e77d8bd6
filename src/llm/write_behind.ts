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

/** A store: synchronous file work; at the process's exit (`atExit`) it runs whatever is ready. */
export type Job = (atExit: boolean) => void;

/** Stores due at the next turn of the event loop, in order. */
let queue: ((atExit: boolean) => void)[] = [];
/** Stores waiting for what they need (a file being opened), due once it is there. */
const waiting = new Set<(atExit: boolean) => void>();
/** The queued stores' outcomes, until settled. */
const pending = new Set<Promise<void>>();
let drainAtExit = false;

function drain(atExit: boolean): void {
  const jobs = atExit ? [...queue, ...waiting] : queue;
  queue = [];
  if (atExit) waiting.clear();
  for (const job of jobs) job(atExit);
}

function due(job: (atExit: boolean) => void): void {
  queue.push(job);
  if (queue.length === 1) setImmediate(drain, false);
}

/**
 * Queues `job` for the next turn of the event loop after `after` has settled
 * (at once without it), or for the process's exit if that comes first (an
 * exit handler runs only synchronous code: so is every store). A store
 * waiting on a file being opened waits for its callback, not by trying again
 * at every turn of the loop (which kept the loop spinning for as long as the
 * open took: hundreds to thousands of turns a bench run under load).
 *
 * @param job the work
 * @param after what the job needs first, if anything
 * @returns settles when the job has run: rejected with what it threw
 */
export function later(job: Job, after?: Promise<unknown>): Promise<void> {
  const done = new Promise<void>((resolve, reject) => {
    const run = (atExit: boolean) => {
      try {
        job(atExit);
        resolve();
      } catch (e) {
        reject(e);
      }
    };
    if (after === undefined) return due(run);
    waiting.add(run);
    const ready = () => waiting.delete(run) && due(run);
    after.then(ready, ready);
  });
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
