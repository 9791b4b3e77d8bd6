/**
 * The files of a job a clean removes, as it counts them: their bytes, and
 * the sidecars Scout leaves next to a result (`X.md5`, `X.pid`, `X.notify`).
 *
 * @module
 */
import { lstatSync, lutimesSync, readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { filesDir, infoPath, JOB_SIDECARS, tmpPath } from "./store.ts";

/**
 * Bytes under a path (not following symbolic links); 0 when it is gone. A
 * directory listed keeps its access time (R125-6): the listing set it to now
 * (`relatime`), and a directory result's access time is when its job was
 * last used — a `--dry-run` made the clean after it keep what it listed.
 * Only the owner may set it back (a failure leaves the time as the kernel
 * set it); `lutimes` never follows a link swapped in meanwhile.
 *
 * @param path a file or directory
 * @returns the sizes of the files under it, summed
 * @throws the file system's error when it cannot be read (not when missing)
 */
export function bytesUnder(path: string): number {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (st === undefined) return 0;
  if (!st.isDirectory()) return st.size;
  let n = 0;
  for (const name of readdirSync(path)) n += bytesUnder(join(path, name));
  try {
    // the modification time as it is now (a writer may have changed it meanwhile)
    lutimesSync(path, st.atime, lstatSync(path).mtime);
  } catch { /* not ours (EPERM), or gone: the listing's access time stands */ }
  return n;
}

/**
 * A job's sidecars `X.md5`, `X.pid`, `X.notify` ({@link JOB_SIDECARS}) that
 * are there and are no job themselves (a job named `X.pid` has its own
 * `X.pid.info`: it is left alone); with `names` (the directory's listing),
 * only those it lists are looked for.
 *
 * @param path the job's result path
 * @param names the names in its directory, when listed
 * @returns the sidecars' paths
 */
export function sidecarsOf(path: string, names?: ReadonlySet<string>): string[] {
  return JOB_SIDECARS.map((ext) => path + ext).filter((f) =>
    (names === undefined || names.has(basename(f))) &&
    lstatSync(f, { throwIfNoEntry: false }) !== undefined &&
    lstatSync(infoPath(f), { throwIfNoEntry: false }) === undefined
  );
}

/**
 * The bytes a job's files hold (result, info, `.files/`, tmp result,
 * sidecars); a sidecar looked for only when `names` (its directory's
 * listing, when given) has it.
 *
 * @param path the job's result path
 * @param names the names in its directory, when listed
 * @returns the bytes
 */
export function jobBytes(path: string, names?: ReadonlySet<string>): number {
  return bytesUnder(path) + bytesUnder(infoPath(path)) + bytesUnder(filesDir(path)) +
    bytesUnder(tmpPath(path)) + sidecarsOf(path, names).reduce((n, f) => n + bytesUnder(f), 0);
}

/**
 * The names in a job's directory, listed once per directory for a dry run
 * (R147-4: three sidecars looked for per job, nearly always absent).
 *
 * @returns a job path → the names in its directory (undefined when it
 *   cannot be listed: each sidecar looked for)
 */
export function directoryNames(): (path: string) => ReadonlySet<string> | undefined {
  const listed = new Map<string, ReadonlySet<string> | undefined>();
  return (path) => {
    const dir = dirname(path);
    if (!listed.has(dir)) {
      try {
        listed.set(dir, new Set(readdirSync(dir)));
      } catch {
        listed.set(dir, undefined);
      }
    }
    return listed.get(dir);
  };
}
