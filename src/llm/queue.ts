/**
 * The queue-worker loop behind `llm process` and `llm process_queries`
 * (`agents.md` §5.6): take each `<id>.json` of a directory, answer it, write
 * the answer atomically under `<out>/<id>.json`, and remove the request.
 *
 * Beyond Ruby's loop ([TS-FIX]): a request is claimed by renaming it into
 * `working/` (two workers never answer one request); a request that fails is
 * answered with `{"error": …}` and kept aside in `failed/` (the loop goes on);
 * an abort (SIGINT/SIGTERM) puts the request being answered back for the next
 * worker; new requests are noticed within `intervalMs` (1 s, as Ruby) or at
 * once when the directory reports a change. Only files named as a relay
 * client names a request — `<md5 hex>.json`, Ruby's `Misc.digest` and ours —
 * are taken: a queue directory given by mistake (the working directory) has
 * its `package.json` left in place, told once through `skip` (R164-2).
 *
 * @module
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  watch,
} from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../util/fs.ts";
import { redactSecretsIn } from "../util/secrets.ts";
import { jsonText } from "../util/json_text.ts";

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

async function handle(file: string, o: QueueOptions, stats: QueueStats): Promise<void> {
  const id = file.slice(0, -".json".length);
  if (existsSync(join(o.dir, o.out, file))) {
    rmSync(join(o.dir, file), { force: true }); // answered before (Ruby's rule): nothing to do
    return;
  }
  // made with the first request: a directory holding none is left as it was (R164-2)
  for (const sub of [o.out, "working", "failed"]) mkdirSync(join(o.dir, sub), { recursive: true });
  const working = join(o.dir, "working", file);
  try {
    renameSync(join(o.dir, file), working); // the claim: only one worker wins it
  } catch {
    return;
  }
  const ac = new AbortController();
  const stop = () => ac.abort(o.signal?.reason);
  o.signal?.addEventListener("abort", stop, { once: true });
  try {
    const request = JSON.parse(readFileSync(working, "utf8"));
    const result = await o.answer(request, id, ac.signal);
    await writeFileAtomic(join(o.dir, o.out, file), jsonText(result));
    rmSync(working, { force: true });
    stats.answered++;
    o.log?.(`answered ${id}`);
  } catch (e) {
    if (ac.signal.aborted) {
      renameSync(working, join(o.dir, file)); // back in the queue for the next worker
      return;
    }
    // written to the queue, read by the client: no url's password, `?key=` or echoed header (R146)
    const message = redactSecretsIn(e instanceof Error ? e.message : String(e));
    await writeFileAtomic(join(o.dir, o.out, file), jsonText({ error: message }));
    renameSync(working, join(o.dir, "failed", file));
    stats.failed++;
    o.log?.(`failed ${id}: ${message}`);
  } finally {
    o.signal?.removeEventListener("abort", stop);
  }
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
  let watcher: ReturnType<typeof watch> | null = null;
  if (!o.once) {
    try {
      watcher = watch(o.dir, () => wake?.());
    } catch { /* no watching here: polling alone */ }
  }
  const onAbort = () => wake?.();
  o.signal?.addEventListener("abort", onAbort);
  try {
    while (!o.signal?.aborted) {
      const files = pending(o.dir, skip);
      for (const f of files) {
        if (o.signal?.aborted) break;
        await handle(f, o, stats);
      }
      if (o.once) break;
      if (files.length === 0) {
        await new Promise<void>((r) => {
          const t = setTimeout(r, o.intervalMs ?? 1000);
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
