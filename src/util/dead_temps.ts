/**
 * Temp files of writers that died (a `kill -9`, a crash, a power cut): named
 * `<prefix><pid>@<host>.<tag>.tmp` by the atomic writes (`atomic_write.ts`)
 * and the knowledge base's index builds (`kb/store_build.ts`), as the
 * inference cache names its own (`<key>.json.tmp-<pid>@<host>-<n>`, swept
 * with its holder files): the host, because a shared (NFS) directory's hosts
 * reuse each other's pids. A later write of the same file removes them (an
 * index's, any later use of it: `kb/index_builders.ts`). The atomic writes'
 * names are made here too ({@link tempNameIn}), next to what recognises them.
 *
 * @module
 */
import { readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { pidAlive } from "./process.ts";
import { holderHost, thisHolder } from "./holder.ts";
import { clipUtf8, utf8Length } from "./name_bytes.ts";

/**
 * A temp file of the earlier naming (`<prefix><pid>.<tag>.tmp`, no host) is
 * removed only when its pid is not alive here and it is also this old: it may
 * be another host's, and no write takes an hour.
 */
export const OLD_TEMP_MS = 60 * 60_000;

/** At most this many bytes of the host go into a temp file's name (Linux's HOST_NAME_MAX). */
const HOST_BYTES = 64;

/** This host's name as temp names hold it: cut to {@link HOST_BYTES} bytes. */
function tempHost(): string {
  return holderHost(HOST_BYTES);
}

/**
 * This process as the writer of a temp file: `<pid>@<host>`, the host cut to
 * 64 bytes (a temp name stays within NAME_MAX; `holder.ts`).
 *
 * @returns the writer's tag
 */
export function writerTag(): string {
  return thisHolder(HOST_BYTES);
}

/** `<pid>@<host>.<tag>.tmp` or, the earlier naming, `<pid>.<tag>.tmp` (`<tag>`: hex or decimal). */
const TEMP_REST = /^(\d+)(?:@([^@/]+))?\.[0-9a-f]+\.tmp$/;

/** The most bytes of a path the system takes (Linux's PATH_MAX, 4096, less the closing NUL). */
export const PATH_BYTES = 4095;

/** Digits of the largest pid (Linux's `pid_max` is at most 4194304): a name's room is counted with it. */
const PID_DIGITS = 7;

/** A temp file's name, and what the temp names of its file start with (for the sweep). */
export interface TempName {
  /** `.<name>.`, the name cut to fit: what {@link removeDeadTemps} is given. */
  prefix: string;
  /** The whole name. */
  name: string;
}

/**
 * The name of a fresh temp file for the file `name` in `dir`, in a form
 * {@link removeDeadTemps} recognises: `.<name>.<pid>@<host>.<tag>.tmp`, the
 * name cut to at most `nameBytes` bytes and, where the directory's path is
 * long, to what keeps the temp file's path within {@link PATH_BYTES} — the
 * file's own path may be as long as that (R119-2); where even no name at all
 * leaves room for the host, the earlier naming `.<name>.<pid>.<tag>.tmp`
 * (swept when its pid is gone and it is an hour old). The cut is counted
 * with the largest pid, so every writer of one file on one host cuts it
 * alike and sweeps the others' temp files.
 *
 * @param dir the directory (absolute)
 * @param name the file's name
 * @param tag this temp file's own part (hex)
 * @param nameBytes the most bytes of `name` kept
 * @returns the name, or null when the directory's path leaves no room for any
 */
export function tempNameIn(
  dir: string,
  name: string,
  tag: string,
  nameBytes: number,
): TempName | null {
  const dirBytes = utf8Length(dir);
  // a file whose own path is too long fails as such (`the name is too long`): named as ever
  const room = dirBytes + 1 + utf8Length(name) > PATH_BYTES ? Infinity : PATH_BYTES - dirBytes - 1;
  const pid = String(process.pid);
  const rests = [`${pid}@${tempHost()}.${tag}.tmp`, `${pid}.${tag}.tmp`];
  for (const rest of rests) {
    // counted with the widest pid: the cut does not depend on this process's
    const fixed = 2 + utf8Length(rest) + Math.max(0, PID_DIGITS - pid.length);
    const keep = Math.min(nameBytes, room - fixed);
    if (keep < 0) continue;
    const prefix = `.${clipUtf8(name, keep)}.`;
    return { prefix, name: prefix + rest };
  }
  return null;
}

/**
 * Whether the temp file `name` (after its prefix: `rest`) is a dead writer's:
 * of this host and its pid gone; of the earlier naming (no host), its pid not
 * alive here and the file {@link OLD_TEMP_MS} old.
 */
function deadWriter(dir: string, name: string, rest: string): boolean {
  const m = TEMP_REST.exec(rest);
  if (!m) return false;
  const pid = Number(m[1]);
  if (pid === process.pid || pidAlive(pid)) return false;
  if (m[2] !== undefined) return m[2] === tempHost(); // another host's pid says nothing here
  const st = statSync(join(dir, name), { throwIfNoEntry: false });
  return st !== undefined && Date.now() - st.mtimeMs >= OLD_TEMP_MS;
}

/**
 * Removes, of the names `names` in `dir`, the temp files `<prefix>…` that dead
 * writers left ({@link deadWriter}): only those of the one file whose temp
 * files start with `prefix`, never another's. Best effort: a file that
 * cannot be examined or removed is left.
 *
 * @param dir the directory
 * @param prefix what the file's temp names start with (`.<name>.`, `<name>.`)
 * @param names names in `dir` (a listing; null: list it now)
 * @returns the names removed
 */
export function removeDeadTemps(
  dir: string,
  prefix: string,
  names: readonly string[] | null = null,
): string[] {
  const removed: string[] = [];
  try {
    names ??= readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith(".tmp")) continue;
    try {
      if (!deadWriter(dir, name, name.slice(prefix.length))) continue;
      rmSync(join(dir, name), { force: true });
      removed.push(name);
    } catch { /* gone, or not ours to remove */ }
  }
  return removed;
}
