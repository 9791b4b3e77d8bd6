/**
 * What dead processes leave in a cache directory (`cache_holder.ts`): their
 * holder files in `.holders/`, and the entries' temp files named after them
 * (`<key>.json.tmp-<pid>@<host>-<n>`, `cache_files.ts`). A process sweeps
 * these when it makes its own holder; `llm cache clean` sweeps them too.
 * A live process's files stay: a holder of this host whose pid is alive, or
 * of another host with a heartbeat; a temp file of a holder not (or no
 * longer) in `.holders/`, of another host, once untouched as long as a
 * holder without a heartbeat.
 *
 * @module
 */
import { readdirSync, statSync } from "node:fs";
import { hostname } from "node:os";
import { basename, join } from "node:path";
import { unlinkQuiet } from "../util/fs.ts";
import { inRealDir, pathIn, type PinnedDir } from "../util/pinned_dir.ts";
import { pidAlive } from "../util/process.ts";
import { deadHolder, holderText } from "./cache_holder.ts";
import { STALE_MS } from "./cache_heartbeat.ts";

/** A temp file's holder: `<key>.json.tmp-<pid>@<host>-<n>`. */
const TEMP = /\.json\.tmp-((\d+)@(.+))-\d+$/;

function names(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return []; // no such directory: nothing left there
  }
}

/** Whether a temp file is a dead process's (`holders`: the holder files present, dead or alive). */
function deadTemp(
  file: string,
  m: RegExpExecArray,
  holders: { dead: ReadonlySet<string>; present: ReadonlySet<string> },
  host: string,
): boolean {
  const [, holder, pid, at] = m;
  if (holder === holderText()) return false;
  if (holders.dead.has(holder!)) return true;
  if (holders.present.has(holder!)) return false; // a live holder's
  if (at === host) return !pidAlive(Number(pid));
  const st = statSync(file, { throwIfNoEntry: false });
  return st !== undefined && Date.now() - st.mtimeMs > STALE_MS;
}

/**
 * Removes (or, in a dry run, lists) the holder files and temp files of dead
 * processes in a cache directory.
 *
 * @param dir the cache directory's real path
 * @param listing its entries' names (a listing already made)
 * @param dryRun list only
 * @param holdersDir the real path of its holders' directory, or null to
 *   leave the holder files alone (another user's link in its place: temp
 *   files are then judged as those of holders not present)
 * @returns the holder files and temp files removed (or found), and those that could not be
 */
export function sweepCacheDebris(
  dir: string,
  listing: readonly string[],
  dryRun: boolean,
  holdersDir: string | null,
): { holders: string[]; temps: string[]; failed: { file: string; error: string }[] } {
  const host = hostname();
  const present = new Set(holdersDir === null ? [] : names(holdersDir));
  const dead = new Set([...present].filter((n) => deadHolder(join(holdersDir!, n), n, host)));
  const holders = [...dead].sort().map((n) => join(holdersDir!, n));
  const temps: string[] = [];
  for (const name of listing) {
    const m = TEMP.exec(name);
    if (m === null) continue;
    const file = join(dir, name);
    if (deadTemp(file, m, { dead, present }, host)) temps.push(file);
  }
  const failed: { file: string; error: string }[] = [];
  return {
    holders: holdersDir === null ? [] : removeIn(holdersDir, holders, dryRun, failed),
    temps: removeIn(dir, temps, dryRun, failed),
    failed,
  };
}

/**
 * Removes files of `dir` by their names, in `dir` entered and checked
 * (`util/pinned_dir.ts`, R125-3: never through a link swapped in for it);
 * the files removed (all, in a dry run), the others in `failed`.
 */
function removeIn(
  dir: string,
  files: readonly string[],
  dryRun: boolean,
  failed: { file: string; error: string }[],
): string[] {
  if (dryRun || files.length === 0) return [...files];
  const one = (d: PinnedDir, f: string) => {
    try {
      unlinkQuiet(pathIn(d, basename(f)));
      return true;
    } catch (e) {
      failed.push({ file: f, error: (e as Error).message });
      return false;
    }
  };
  try {
    return inRealDir(dir, (d) => files.filter((f) => one(d, f)));
  } catch (e) {
    for (const f of files) failed.push({ file: f, error: (e as Error).message });
    return [];
  }
}
