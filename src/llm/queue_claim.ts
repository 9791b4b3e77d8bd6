/**
 * Who holds a queue request (`queue.ts`): a claim is the holder record
 * `working/<id>.holder`, created exclusively and holding `<pid>@<host>`
 * (`util/holder.ts`), before the request is renamed into `working/<id>.json`;
 * it is removed after the request leaves `working/`. The holder refreshes
 * the record's modification time while it answers ({@link heartbeat}), so a
 * claim whose holder died — killed, its host down — is judged by the
 * project's lock rule (`util/lock_watch.ts` lockStale: a dead pid on this
 * host, or a record untouched for the stale age) and put back in the queue
 * ({@link requeueStale}) by any worker, at its start and when idle (R167-1).
 * A request whose id is held by a live holder stays queued (R167-4). Ruby's
 * worker ignores `working/`, so the queue's layout is unchanged for it.
 *
 * @module
 */
import {
  closeSync,
  constants,
  existsSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { thisHolder } from "../util/holder.ts";
import { lockStale, type LockWatch, lockWatch } from "../util/lock_watch.ts";
import { unlinkQuiet } from "../util/fs.ts";

/** How long a live holder may leave its record untouched (it refreshes it every sixth of that). */
export const CLAIM_STALE_MS = 60_000;

/** Ids this process holds: a record naming this pid and not here is an earlier process's. */
const held = new Set<string>();
/** Watches of other hosts' records, by record path (their clocks are not ours). */
const watches = new Map<string, LockWatch>();

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** The holder record of request `id` in queue `dir`. */
export function holderPath(dir: string, id: string): string {
  return join(dir, "working", `${id}.holder`);
}

function createRecord(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, CREATE, 0o666);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  }
  try {
    writeSync(fd, thisHolder());
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Whether the record at `path` is a dead or stale holder's (false: live, or gone). */
function staleRecord(path: string, id: string, staleMs: number): boolean {
  let text: string;
  let st;
  try {
    st = lstatSync(path);
    text = readFileSync(path, "utf8");
  } catch {
    return false;
  }
  const m = /^(\d+)@(.+)$/.exec(text.trim());
  const holder = m ? { pid: Number(m[1]), host: m[2] } : {};
  let watch = watches.get(path);
  if (!watch) watches.set(path, watch = lockWatch());
  return lockStale(holder, st, staleMs, { watch, ownIsStale: !held.has(id) });
}

/**
 * Takes the record of a stale claim out of the way: renamed aside (one
 * taker wins), then removed. True when this process took it.
 */
function takeStale(path: string): boolean {
  const aside = `${path}.stale-${thisHolder()}`;
  try {
    renameSync(path, aside);
  } catch {
    return false;
  }
  watches.delete(path);
  unlinkQuiet(aside);
  return true;
}

/**
 * Claims request `id`: its holder record made, then `<dir>/<id>.json`
 * renamed into `working/`. A live holder's claim leaves the request queued;
 * a stale one's is taken over.
 *
 * @returns "claimed"; "held" (a live holder has this id); "gone" (the request went)
 */
export function claim(
  dir: string,
  id: string,
  staleMs = CLAIM_STALE_MS,
): "claimed" | "held" | "gone" {
  const record = holderPath(dir, id);
  if (!createRecord(record)) {
    if (!staleRecord(record, id, staleMs) || !takeStale(record) || !createRecord(record)) {
      return "held";
    }
  }
  held.add(id);
  try {
    renameSync(join(dir, `${id}.json`), join(dir, "working", `${id}.json`));
    return "claimed";
  } catch {
    release(dir, id);
    return "gone";
  }
}

/** Ends this process's claim of `id` (the request already out of `working/`). */
export function release(dir: string, id: string): void {
  unlinkQuiet(holderPath(dir, id));
  held.delete(id);
}

/** Refreshes the record of `id` while it is answered; call the result to stop. */
export function heartbeat(dir: string, id: string, staleMs = CLAIM_STALE_MS): () => void {
  const t = setInterval(() => {
    try {
      const now = new Date();
      utimesSync(holderPath(dir, id), now, now);
    } catch { /* taken over, or the queue went: the answer still lands */ }
  }, Math.max(10, Math.floor(staleMs / 6)));
  return () => clearInterval(t);
}

/**
 * Puts `working/<id>.json` back as `<dir>/<id>.json` and ends the claim
 * (an answer already written: the request is only removed).
 */
export function putBack(dir: string, id: string, out: string): void {
  const working = join(dir, "working", `${id}.json`);
  try {
    if (existsSync(join(dir, out, `${id}.json`))) unlinkSync(working);
    else renameSync(working, join(dir, `${id}.json`));
  } catch { /* gone already */ }
  release(dir, id);
}

/**
 * Puts back the requests of dead or stale holders (R167-1): each
 * `working/<id>.json` whose record is stale, or that has none and has not
 * changed for the stale age (a worker before holder records, or one killed
 * between its steps). Records left without a request are removed once stale.
 *
 * @returns the ids put back
 */
export function requeueStale(dir: string, out: string, staleMs = CLAIM_STALE_MS): string[] {
  let names: string[];
  try {
    names = readdirSync(join(dir, "working"));
  } catch {
    return [];
  }
  const back: string[] = [];
  for (const name of names) {
    const m = /^([0-9a-f]{32})\.(json|holder)$/.exec(name);
    if (!m) continue;
    const id = m[1]!;
    const record = holderPath(dir, id);
    if (m[2] === "holder") {
      if (!names.includes(`${id}.json`) && staleRecord(record, id, staleMs)) takeStale(record);
      continue;
    }
    if (names.includes(`${id}.holder`)) {
      if (!staleRecord(record, id, staleMs) || !takeStale(record) || !createRecord(record)) {
        continue;
      }
    } else {
      const st = lstatSync(join(dir, "working", name), { throwIfNoEntry: false });
      if (!st || Date.now() - st.ctimeMs <= staleMs || !createRecord(record)) continue;
    }
    held.add(id);
    putBack(dir, id, out);
    back.push(id);
  }
  return back;
}
