/**
 * Temp files of writers that died (a `kill -9`, a crash, a power cut): named
 * `<prefix><pid>@<host>.<tag>.tmp` by the atomic writes (`atomic_write.ts`)
 * and the knowledge base's index builds (`kb/store_build.ts`), as the
 * inference cache names its own (`<key>.json.tmp-<pid>@<host>-<n>`, swept
 * with its holder files): the host, because a shared (NFS) directory's hosts
 * reuse each other's pids. A later write of the same file removes them (an
 * index's, any later use of it: `kb/index_builders.ts`).
 *
 * @module
 */
import { readdirSync, rmSync, statSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { pidAlive } from "./process.ts";

/**
 * A temp file of the earlier naming (`<prefix><pid>.<tag>.tmp`, no host) is
 * removed only when its pid is not alive here and it is also this old: it may
 * be another host's, and no write takes an hour.
 */
export const OLD_TEMP_MS = 60 * 60_000;

/** At most this many bytes of the host go into a temp file's name (Linux's HOST_NAME_MAX). */
const HOST_BYTES = 64;

let host: string | undefined;

/** This host's name as temp names hold it: cut to {@link HOST_BYTES} bytes. */
function tempHost(): string {
  if (host !== undefined) return host;
  let h = hostname();
  while (new TextEncoder().encode(h).length > HOST_BYTES) h = h.slice(0, -1);
  return host = h;
}

/**
 * This process as the writer of a temp file: `<pid>@<host>`, the host cut to
 * 64 bytes (a temp name stays within NAME_MAX).
 *
 * @returns the writer's tag
 */
export function writerTag(): string {
  return `${process.pid}@${tempHost()}`;
}

/** `<pid>@<host>.<tag>.tmp` or, the earlier naming, `<pid>.<tag>.tmp` (`<tag>`: hex or decimal). */
const TEMP_REST = /^(\d+)(?:@([^@/]+))?\.[0-9a-f]+\.tmp$/;

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
