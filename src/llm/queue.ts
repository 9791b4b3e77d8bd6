/**
 * The queue-worker loop behind `llm process` and `llm process_queries`
 * (`agents.md` §5.6): take each `<id>.json` of a directory, answer it, write
 * the answer atomically under `<out>/<id>.json`, and remove the request.
 *
 * Beyond Ruby's loop ([TS-FIX]): a request is claimed by renaming it into
 * `working/` under a holder record (`queue_claim.ts`: two workers never answer
 * one id; a killed worker's claim is put back by the next worker, R167-1); a request that fails is
 * answered with `{"error": …}` and kept aside in `failed/` (the loop goes on);
 * an answer that cannot be written (a full disk) puts the request back, says
 * so and backs off (R167-2); an abort (SIGINT/SIGTERM) puts the request being answered back for the next
 * worker; new requests are noticed within `intervalMs` (1 s, as Ruby) or at
 * once when the directory reports a change. Only files named as a relay
 * client names a request — `<md5 hex>.json`, Ruby's `Misc.digest` and ours —
 * are taken: a queue directory given by mistake (the working directory) has
 * its `package.json` left in place, told once through `skip` (R164-2).
 *
 * @module
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, watch } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../util/fs.ts";
import { redactSecretsIn } from "../util/secrets.ts";
import { jsonText } from "../util/json_text.ts";
import { replyErrorText } from "./queue_reply_error.ts";
import { readRequest, Unsettled } from "./queue_read.ts";
import { claim, heartbeat, putBack, release, requeueStale } from "./queue_claim.ts";

/** What the loop does with one request. */
export interface QueueOptions {
  /** The queue directory. */
  dir: string;
  /** Sub-directory of the answers (`reply` or `response`). */
  out: string;
  /** Answers one request (its parsed JSON); the result is written as JSON. */
  answer: (request: unknown, id: string, signal: AbortSignal) => Promise<unknown>;
  /** Process what is there, then return. */
  once?: boolean;
  /** Poll interval when idle (default 1000 ms). */
  intervalMs?: number;
  /** Stops the loop (the request being answered is put back). */
  signal?: AbortSignal;
  /** Progress lines (`answered <id>`, `failed <id>: …`). */
  log?: (line: string) => void;
  /** Lines always worth saying (a request put back, claims taken back). */
  notice?: (line: string) => void;
  /** How long an unparsable request is taken as still being written (default 5 s). */
  settleMs?: number;
  /** How long a live holder may leave its claim untouched (default 60 s, `queue_claim.ts`). */
  staleMs?: number;
  /** Told once per `.json` file left alone because its name is not a request's. */
  skip?: (file: string) => void;
}

/** A request's name: the MD5 hex digest a relay client names it by (Ruby's too). */
export const REQUEST_NAME = /^[0-9a-f]{32}\.json$/;

/** Counts of one run of the loop. */
export interface QueueStats {
  answered: number;
  failed: number;
}

function pending(dir: string, skip: (file: string) => void): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  for (const f of names) if (f.endsWith(".json") && !REQUEST_NAME.test(f)) skip(f);
  return names.filter((f) => REQUEST_NAME.test(f)).sort();
}

type Outcome = "done" | "left" | "settling" | "backoff";

function errorText(e: unknown): string {
  // written to the queue, read by the client: no url's password, `?key=` or echoed header (R146)
  return redactSecretsIn(e instanceof Error ? e.message : String(e));
}

/** Ends an answered or failed request: its answer written, the request removed or kept in failed/. */
function finish(o: QueueOptions, id: string, failed: string | null, stats: QueueStats): void {
  const working = join(o.dir, "working", `${id}.json`);
  try {
    if (failed === null) rmSync(working, { force: true });
    else renameSync(working, join(o.dir, "failed", `${id}.json`));
  } catch { /* taken back meanwhile as a dead holder's: its answer is written all the same */ }
  release(o.dir, id);
  if (failed === null) {
    stats.answered++;
    o.log?.(`answered ${id}`);
  } else {
    stats.failed++;
    o.log?.(`failed ${id}: ${failed}`);
  }
}

async function handle(file: string, o: QueueOptions, stats: QueueStats): Promise<Outcome> {
  const id = file.slice(0, -".json".length);
  if (existsSync(join(o.dir, o.out, file))) {
    rmSync(join(o.dir, file), { force: true }); // answered before (Ruby's rule): nothing to do
    return "done";
  }
  // made with the first request: a directory holding none is left as it was (R164-2)
  try {
    for (const sub of [o.out, "working", "failed"]) {
      mkdirSync(join(o.dir, sub), { recursive: true });
    }
  } catch (e) {
    o.notice?.(`cannot answer ${id}: ${errorText(e)}; left in the queue`); // a full disk (R167-2)
    return "backoff";
  }
  // a live holder's id stays queued (R167-4); a dead one's is taken over
  if (claim(o.dir, id, o.staleMs) !== "claimed") return "left";
  const beating = heartbeat(o.dir, id, o.staleMs);
  const ac = new AbortController();
  const stop = () => ac.abort(o.signal?.reason);
  o.signal?.addEventListener("abort", stop, { once: true });
  let failed: string | null = null;
  let result: unknown;
  try {
    // a regular file only, never a FIFO or a link's target (R167-6)
    const request = readRequest(join(o.dir, "working", file), o.settleMs);
    result = await o.answer(request, id, ac.signal);
  } catch (e) {
    if (ac.signal.aborted || e instanceof Unsettled) {
      putBack(o.dir, id, o.out); // back in the queue: for the next worker, or once written (R167-5)
      return ac.signal.aborted ? "left" : "settling";
    }
    failed = errorText(e); // the worker's log: whole
    result = { error: replyErrorText(e) }; // the client's: no provider url or snapshot path (R167-9)
  } finally {
    beating();
    o.signal?.removeEventListener("abort", stop);
  }
  try {
    await writeFileAtomic(join(o.dir, o.out, file), jsonText(result));
  } catch (e) {
    // a full disk: the request back in the queue, said, and the worker goes on (R167-2)
    putBack(o.dir, id, o.out);
    o.notice?.(`cannot write the answer to ${id}: ${errorText(e)}; put it back in the queue`);
    return "backoff";
  }
  finish(o, id, failed, stats);
  return "done";
}

/**
 * Answers what is queued now, in name order: how many were done, whether a
 * reply could not be written (the pass stops there) and whether a request
 * was left to settle (still being written).
 */
async function onePass(
  o: QueueOptions,
  stats: QueueStats,
  skip: (file: string) => void,
): Promise<{ done: number; full: boolean; settling: boolean }> {
  const out = { done: 0, full: false, settling: false };
  for (const f of pending(o.dir, skip)) {
    if (o.signal?.aborted) break;
    const outcome = await handle(f, o, stats);
    if (outcome === "done") out.done++;
    if (outcome === "settling") out.settling = true;
    if (outcome === "backoff") {
      out.full = true;
      break;
    }
  }
  return out;
}

/**
 * Runs the worker loop until `signal` aborts (or once, with `once`).
 *
 * @param o directory, answer function and loop options
 * @returns how many requests were answered and how many failed
 */
export async function runQueue(o: QueueOptions): Promise<QueueStats> {
  const stats: QueueStats = { answered: 0, failed: 0 };
  const told = new Set<string>();
  const skip = (f: string) => {
    if (told.has(f)) return;
    told.add(f);
    o.skip?.(f);
  };
  let wake: (() => void) | null = null;
  let backoff = 0;
  let deaf = false;
  let watcher: ReturnType<typeof watch> | null = null;
  if (!o.once) {
    try {
      // a change wakes an idle worker, not one that put back a request it must wait on (a full
      // disk, one still being written): the put-back is a change
      watcher = watch(o.dir, () => !deaf && wake?.());
    } catch { /* no watching here: polling alone */ }
  }
  const onAbort = () => wake?.();
  o.signal?.addEventListener("abort", onAbort);
  const reclaim = () => {
    for (const id of requeueStale(o.dir, o.out, o.staleMs)) {
      o.notice?.(`put ${id} back in the queue: its worker is gone`);
    }
  };
  try {
    reclaim(); // a killed worker's claims, at the start (R167-1)
    while (!o.signal?.aborted) {
      const { done, full, settling } = await onePass(o, stats, skip);
      deaf = full || settling; // a full disk: no spinning on it (R167-2)
      if (o.once) break;
      backoff = full ? Math.min(Math.max(backoff * 2, o.intervalMs ?? 1000), 30_000) : 0;
      if (done === 0) {
        reclaim(); // and when idle
        await new Promise<void>((r) => {
          const t = setTimeout(r, full ? backoff : o.intervalMs ?? 1000);
          wake = () => {
            clearTimeout(t);
            r();
          };
        });
        wake = null;
      }
    }
  } finally {
    watcher?.close();
    o.signal?.removeEventListener("abort", onAbort);
  }
  return stats;
}
