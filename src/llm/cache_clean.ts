/**
 * Cleaning the inference cache (`llm cache clean`, `inference.md` §6): the
 * leftovers of dead processes — stale key locks, holder files, entries'
 * temp files (`cache_holder.ts`, `cache_stale.ts`) — and, with an age, the
 * entries not used for that long: their file last written (stored) or read
 * (a hit; `cache.ts` keeps a hit's access time fresh where the file system
 * does not); a time dated beyond the clock skew ahead counts as the file's
 * last change (`util/used_time.ts`), and such an entry that stays is listed
 * as kept, with why.
 *
 * Safe next to live asks: an entry is removed under its key's lock, taken as
 * an ask takes it (`cache_lock.ts`), so an entry whose lock a live round
 * holds is never removed; the removal is one `unlink`, so a reader sees the
 * whole entry or none (a miss: online the round is asked again and stored,
 * offline it is `not_cached`). Live processes' holder files and temp files
 * stay.
 *
 * @module
 */
import { closeSync, readdirSync, unlinkSync } from "node:fs";
import { basename, join } from "node:path";
import { ScoutError } from "../errors.ts";
import { statsOf, unlinkQuiet } from "../util/fs.ts";
import { linkLock } from "./cache_holder.ts";
import { createLockFile } from "./cache_lock.ts";
import { holderOf, judgeLock, takeOver } from "./cache_stale.ts";
import { inRealDir, pathIn } from "../util/pinned_dir.ts";
import { notRegularKind } from "../util/regular_file.ts";
import { cannotText, errnoReason } from "../util/errno_text.ts";
import { sweepCacheDebris } from "./cache_debris.ts";
import { futureReason, lastUsed } from "../util/used_time.ts";

/** An entry removed (or, in a dry run, that would be). */
export interface CacheEntryRemoved {
  /** Its file, `<dir>/<key>.json`. */
  file: string;
  /** Its size. */
  bytes: number;
  /** When it was last stored or read (ms). */
  lastUsedMs: number;
}

/** What a cache clean did. */
export interface CacheCleanOutcome {
  /** Entries looked at. */
  entries: number;
  /** Entries removed, by file name. */
  removed: CacheEntryRemoved[];
  /**
   * Entries old enough that stay, with why: their lock held, or dated in
   * the future and not old enough counted from their last change (R163-2).
   */
  kept: { file: string; reason: string }[];
  /**
   * Files that could not be removed (in a dry run: key locks a real run
   * could not judge, so could not remove).
   */
  failed: { file: string; error: string }[];
  /** Stale key locks removed. */
  locks: string[];
  /** Dead processes' holder files removed. */
  holders: string[];
  /** Dead processes' temp files removed. */
  temps: string[];
}

/** Options of {@link cleanCache}. */
export interface CacheCleanOptions {
  /** Entries unused for longer than this many ms go (null: only the leftovers). */
  olderMs: number | null;
  /** List only: remove nothing. */
  dryRun: boolean;
  /** The clock (default `Date.now()`). */
  now?: number;
  /** Told of each entry as it is removed (or would be). */
  onRemoved?: (e: CacheEntryRemoved) => void;
  /**
   * The real path of the holders' directory (`.holders`, resolved by the
   * caller: not through another user's link, R125), or null to leave dead
   * processes' holder files alone (default: `dir/.holders`).
   */
  holdersDir?: string | null;
}

/** An entry file: a key (hex digest) and `.json`. */
const ENTRY = /^[0-9a-f]+\.json$/;

function listing(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return []; // no cache yet
    throw e;
  }
}

/**
 * Whether a lock's text is one of ours cut short: empty (created, not yet
 * written; or a link to a holder file not yet written), or the start of a
 * holder `<pid>@<host>`. [TS-FIX] (R125-3) Only such text, or a holder, is
 * judged by the clean: a file of another text is no lock of this cache's.
 */
function tornText(text: string): boolean {
  return /^(\d+@?)?$/.test(text);
}

/** Removes the stale key locks (a dead holder's, or one torn by a crash); the live ones stay. */
async function staleLocks(
  dir: string,
  names: readonly string[],
  o: CacheCleanOptions,
  out: CacheCleanOutcome,
): Promise<void> {
  for (const name of names) {
    if (!name.endsWith(".lock")) continue;
    const file = join(dir, name);
    try {
      const judged = await judgeLock(file);
      if (judged === null || !judged.stale) continue;
      if (holderOf(judged.text) === null && !tornText(judged.text)) continue;
      // taken over by name in the directory entered and checked (R125-3)
      if (o.dryRun || inRealDir(dir, (d) => takeOver(pathIn(d, name), judged))) {
        out.locks.push(file);
      }
    } catch (e) {
      out.failed.push({ file, error: lockError(e) });
    }
  }
}

/**
 * Why a key lock could not be judged, for `failed` (which names its file):
 * what is no lock — a FIFO, device, socket, directory or symbolic link
 * (`util/not_a_lock.ts`) — by its kind alone, its own message naming the
 * file a second time (R125); a system error in words (R142-6: not
 * `EISDIR: illegal operation on a directory, open`).
 */
function lockError(e: unknown): string {
  const kind = notRegularKind(e);
  return kind === null ? errnoReason(e) : `Not a regular file but ${kind}`;
}

/**
 * The key's lock, taken as an ask takes it: true when taken, false when
 * another holds it; one that cannot be made fails in `system clean`'s words
 * (`cannot take its lock: Cannot create the lock "<lock>": permission
 * denied`), naming `shown`, the lock's path in the cache directory (R166-5:
 * it was the runtime's `EACCES: permission denied, open '<lock>'`).
 */
function takeKeyLock(dir: string, lock: string, shown: string): boolean {
  try {
    const linked = linkLock(dir, lock);
    if (linked !== null) return linked;
    // no hard links here: a created lock file holding our holder text, as an ask makes it
    const fd = createLockFile(lock);
    if (fd === null) return false;
    closeSync(fd);
    return true;
  } catch (e) {
    const why = `cannot take its lock: ${cannotText("create the lock", shown, e)}`;
    throw new ScoutError("io", why, { file: shown, cause: e });
  }
}

/**
 * Removes one entry under its key's lock; false when the lock is held. The
 * lock and the entry are named by their names in `dir`, entered and checked
 * (`util/pinned_dir.ts`, R125-3): never through a link swapped in for it.
 */
function removeEntry(dir: string, file: string): boolean {
  const name = basename(file);
  const lock = name.slice(0, -".json".length) + ".lock";
  return inRealDir(dir, (d) => {
    if (!takeKeyLock(dir, pathIn(d, lock), join(dir, lock))) return false;
    try {
      unlinkSync(pathIn(d, name));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // ENOENT: gone, another clean's; the reason in words (the path is the pinned one)
      if (code !== "ENOENT") throw new ScoutError("io", errnoReason(e), { file, cause: e });
    } finally {
      unlinkQuiet(pathIn(d, lock));
    }
    return true;
  });
}

/** Looks at each entry; the old ones go unless their lock is held. */
function cleanEntries(
  dir: string,
  names: readonly string[],
  o: CacheCleanOptions,
  out: CacheCleanOutcome,
): void {
  const now = o.now ?? Date.now();
  // in a dry run the stale locks are still there: they hold nothing
  const stale = new Set(out.locks);
  const locks = new Set(names.filter((n) => n.endsWith(".lock") && !stale.has(join(dir, n))));
  for (const name of names) {
    if (!ENTRY.test(name)) continue;
    out.entries++;
    if (o.olderMs === null) continue;
    const file = join(dir, name);
    const st = statsOf(file);
    if (st === null) continue; // removed meanwhile
    // a date beyond the clock skew ahead counts as the file's last change (R163-2)
    const used = lastUsed([{ times: [st.mtimeMs, st.atimeMs], ctimeMs: st.ctimeMs }], now);
    if (now - used.ms <= o.olderMs) {
      if (used.futureMs !== null) out.kept.push({ file, reason: futureReason(used, now) });
      continue;
    }
    const entry = { file, bytes: st.size, lastUsedMs: used.ms };
    const held = locks.has(name.slice(0, -".json".length) + ".lock");
    try {
      if (o.dryRun ? held : !removeEntry(dir, file)) {
        out.kept.push({ file, reason: "in use: its key's lock is held" });
        continue;
      }
    } catch (e) {
      out.failed.push({ file, error: (e as Error).message });
      continue;
    }
    out.removed.push(entry);
    o.onRemoved?.(entry);
  }
}

/**
 * Cleans a cache directory: dead processes' leftovers, then (with an age)
 * the entries unused for longer.
 *
 * @param dir the cache directory's real path (`$SCOUT_HOME/var/cache/ask`,
 *   found by `util/owned_links.ts`: not through another user's link); the
 *   files in it are removed by name in it, entered and checked (R125-3)
 * @param o the age, dry run
 * @returns what was removed, kept and could not be removed
 */
export async function cleanCache(dir: string, o: CacheCleanOptions): Promise<CacheCleanOutcome> {
  const out: CacheCleanOutcome = {
    entries: 0,
    removed: [],
    kept: [],
    failed: [],
    locks: [],
    holders: [],
    temps: [],
  };
  const before = listing(dir);
  await staleLocks(dir, before, o, out);
  const holders = o.holdersDir === undefined ? join(dir, ".holders") : o.holdersDir;
  const debris = sweepCacheDebris(dir, before, o.dryRun, holders);
  out.holders = debris.holders;
  out.temps = debris.temps;
  out.failed.push(...debris.failed);
  // listed again: the locks taken over are gone
  cleanEntries(dir, o.dryRun ? before : listing(dir), o, out);
  return out;
}
