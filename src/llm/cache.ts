/**
 * The inference cache (`inference.md` §6): on by default, stored as JSON under
 * `$SCOUT_HOME/var/cache/ask/<key>.json` — no secrets, no clients. One entry
 * per round of the tool loop ({@link CachedRound}, format 2), keyed by
 * `sha256(canonicalJSON({v:2, endpoint, backend, model, params, tools,
 * messages, currentMeta}))` of that round's request; a hit replays the reply,
 * its meta (original `inference_id`) and the tool outputs' timestamps, and the
 * tools run again. Entries of format 1 ({@link CachedAsk}: one per ask, the
 * whole loop's messages, keyed with `v:1`) are still read. A round whose
 * query failed for good is stored as a failure entry ({@link CachedFailure}),
 * which only an offline replay plays (`ask_cache.ts`). A per-key lock (in process, and a lock file across processes) makes
 * identical concurrent rounds run once. Keys: `cache_key.ts`; the lock and
 * the entry files: `cache_lock.ts`; what an entry holds, checked on every
 * read: `cache_entry.ts`.
 *
 * @module
 */
import { existsSync, readFileSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import type { z } from "zod";
import { ScoutError } from "../errors.ts";
import {
  ASK_ENTRY,
  type CachedAsk,
  type CachedFailure,
  type CachedRound,
  entryProblem,
  roundEntrySchema,
} from "./cache_entry.ts";
import { type KeyLockOptions, withKeyLock } from "./cache_lock.ts";
import { datedAhead } from "../util/used_time.ts";

export type { CachedAsk, CachedFailure, CachedRound } from "./cache_entry.ts";
export { isFailureEntry } from "./cache_entry.ts";

export {
  CACHE_VERSION,
  cacheKey,
  type CacheKeyInput,
  type CacheKeyParts,
  cacheKeyParts,
  canonicalJson,
  ROUND_CACHE_VERSION,
  roundCacheKey,
  roundCacheKeys,
} from "./cache_key.ts";

/**
 * The cache directory: `<home>/var/cache/ask`.
 *
 * @param home SCOUT_HOME
 * @returns the directory
 */
export function cacheDir(home: string): string {
  return join(home, "var", "cache", "ask");
}

/**
 * A hit refreshes its entry's access time once it is this much older than
 * the hit: the precision of `llm cache clean --older` ("unused for AGE" may
 * read up to this much longer), and at most one `utimes` per entry this often.
 * [TS-FIX] (R123-3) A day, as the kernel's `relatime`, let `--older 12h`
 * remove an entry hit an hour ago.
 */
const USED_PRECISION_MS = 600_000;

/**
 * Keeps a hit's "last used" for `llm cache clean --older` (`cache_clean.ts`:
 * the newer of an entry's access and modification times): the kernel sets
 * the access time on a read at most daily (`relatime`, Linux's default) and
 * never under `noatime` (common on cluster file systems), so it is set to
 * now here once over {@link USED_PRECISION_MS} (10 minutes) old, the
 * modification time (when it was stored) kept. One `stat` a hit (~5 µs under
 * Deno, ~1 µs under Bun; the miss path is unchanged), a `utimes` at most every
 * 10 minutes an entry. Only a file's owner may set its times: another user's
 * entry in a shared cache keeps what the kernel gives it, and a failure here
 * never fails the hit.
 */
function markUsed(file: string): void {
  try {
    const st = statSync(file);
    const now = Date.now();
    // R163-2: a time dated beyond the clock skew ahead (`util/used_time.ts`) is no
    // use; it read as a use a moment ago, so the hit never refreshed it. Set to now
    // (the modification time too: when it was stored is not known)
    const ahead = datedAhead(st.mtimeMs, now);
    if (!ahead && !datedAhead(st.atimeMs, now)) {
      if (now - Math.max(st.atimeMs, st.mtimeMs) < USED_PRECISION_MS) return;
    }
    utimesSync(file, new Date(now), ahead ? new Date(now) : st.mtime);
  } catch { /* not ours to touch (EPERM), or removed since the read: the hit stands */ }
}

/**
 * The entries' decoder: fatal on bytes that are not UTF-8 (what the cache
 * writes is), a byte-order mark kept (JSON refuses it, as it did when read
 * as "utf8").
 */
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function readEntry<T>(
  dir: string,
  key: string,
  schema: z.ZodType<T> | ((data: unknown) => z.ZodType<T>),
  warn?: (m: string) => void,
): T | null {
  const file = join(dir, `${key}.json`);
  // a miss is the common case on a live run: an existence check answers it
  // without the error (and its stack) a failed read builds
  if (!existsSync(file)) return null;
  let bytes: Uint8Array;
  try {
    // synchronous: a cache entry is small, and the async call's hop to the
    // I/O pool cost more than the read (see "Agents bench" in design-notes)
    bytes = readFileSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    warn?.(`Cannot read cache entry "${file}": ${(e as Error).message}`);
    return null;
  }
  let text: string;
  try {
    text = UTF8.decode(bytes); // strictly: bytes that are not UTF-8 replayed as U+FFFD (R142-4)
  } catch {
    warn?.(`Ignoring corrupt cache entry "${file}": not UTF-8 text`);
    return null;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    warn?.(`Ignoring corrupt cache entry "${file}": ${(e as Error).message}`);
    return null;
  }
  // what the loop replays must be what the cache writes: anything else would
  // crash the replay, or replay as an empty answer (R73-5)
  const problem = entryProblem(typeof schema === "function" ? schema(data) : schema, data);
  if (problem !== null) {
    warn?.(`Ignoring corrupt cache entry "${file}": ${problem}`);
    return null;
  }
  markUsed(file); // a hit (a corrupt entry is none)
  // the entry as read, not the schema's copy (which would drop unknown fields)
  return data as T;
}

/**
 * Reads a whole-ask entry (format 1). A missing entry is a miss; an
 * unreadable or corrupt one (not JSON, or not of the shape the cache writes:
 * `cache_entry.ts`) is a miss too, reported through `warn` with its file.
 *
 * @param dir cache directory
 * @param key cache key
 * @param warn warning sink
 * @returns the entry or null
 */
export function cacheRead(
  dir: string,
  key: string,
  warn?: (m: string) => void,
): Promise<CachedAsk | null> {
  return Promise.resolve(readEntry(dir, key, ASK_ENTRY, warn));
}

/**
 * Reads a round entry (format 2): a reply, or a failure entry; misses as
 * {@link cacheRead}.
 *
 * @param dir cache directory
 * @param key round cache key
 * @param warn warning sink
 * @returns the entry or null
 */
export function cacheReadEntry(
  dir: string,
  key: string,
  warn?: (m: string) => void,
): Promise<CachedRound | CachedFailure | null> {
  return Promise.resolve(readEntry(dir, key, roundEntrySchema, warn));
}

/**
 * An entry's text: plain `JSON.stringify`, a lone surrogate kept as its
 * `\ud800` escape, unlike the JSON written for users (`util/json_text.ts`,
 * R162-1). Only this program reads it back, and a replay must hand on the
 * reply the live run had: the later rounds' keys hash it, and every writer
 * downstream makes it U+FFFD alike, so the outputs stay byte-identical.
 */
function entryText(entry: CachedAsk | CachedRound | CachedFailure): string {
  return JSON.stringify(entry) + "\n";
}

async function stored(dir: string, key: string, write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (e) {
    const path = join(dir, `${key}.json`);
    throw new ScoutError("io", `Cannot write "${path}": ${(e as Error).message}`, {
      file: path,
      cause: e,
    });
  }
}

/**
 * Runs `fn` holding the lock of `key`: concurrent identical asks in this
 * process share one run; other processes wait on the lock file (a lock left
 * by a dead process is taken over; after `waitMs` the ask runs unlocked).
 * `fn`'s `store` writes the key's entry atomically (temp + rename) but not
 * flushed, with no mkdir per write (the directory is made once per process):
 * an entry lost or torn by a crash reads as a miss (`cache_files.ts`). When
 * the lock is held it writes behind (`write_behind.ts`): its promise settles
 * once the entry is published, and the key stays locked until then
 * (`cache_lock.ts`). `fn`'s `keep` names the entry a round will store once
 * its answer is in: a process that exits before the store stores it.
 *
 * @param dir cache directory
 * @param key cache key
 * @param fn the work (typically: re-check the cache, ask, store)
 * @param opts how long to wait for another process, and how to tell the user of a long wait
 * @returns what `fn` returned
 */
export function withCacheLock<T>(
  dir: string,
  key: string,
  fn: (
    store: (entry: CachedAsk | CachedRound | CachedFailure) => Promise<void>,
    keep: (entry: () => CachedRound | CachedFailure) => void,
  ) => Promise<T>,
  opts: KeyLockOptions = {},
): Promise<T> {
  return withKeyLock(
    dir,
    key,
    (commit, keep) =>
      fn(
        (entry) => stored(dir, key, () => commit(entryText(entry))),
        (entry) => keep(() => entryText(entry())),
      ),
    opts,
  );
}
