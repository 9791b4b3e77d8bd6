/**
 * Whether a new file can be made beside a file before it is written: the
 * checks of permission (`access`) pass on a file system out of inodes or
 * over its inode quota, which refuses only the new file an atomic rewrite
 * (temp + rename) needs.
 *
 * @module
 */
import { closeSync, openSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { exists } from "./fs.ts";
import { TEMP_PATH_TOO_LONG, tempPathFor } from "./atomic_write.ts";
import { PATH_BYTES } from "./dead_temps.ts";

/**
 * Creates and removes the temp file an atomic write of `file` makes beside
 * it (in the nearest existing directory when parents are still to be made):
 * what refuses it (ENOSPC for no free inode, EDQUOT for a quota, …) would
 * refuse the write.
 *
 * @param file the file to be written (a link's target)
 * @returns the error that refused the new file (or that its directory's path
 *   leaves no room for one), or null when it was made
 *
 * @example
 * ```ts
 * import { probeCreate } from "./create_probe.ts";
 * probeCreate("/tmp/new.chat"); // null
 * ```
 */
export function probeCreate(file: string): NodeJS.ErrnoException | null {
  let name: string;
  try {
    name = basename(tempPathFor(file));
  } catch {
    // no temp name fits within PATH_MAX beside it: the write would fail (R119-2)
    return new Error(`${TEMP_PATH_TOO_LONG} (${PATH_BYTES} bytes)`);
  }
  let dir = dirname(file);
  while (!exists(dir) && dirname(dir) !== dir) dir = dirname(dir);
  const tmp = join(dir, name);
  try {
    closeSync(openSync(tmp, "wx"));
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    return err.code === "EEXIST" ? null : err; // EEXIST: another's, by chance: a file was made
  }
  rmSync(tmp, { force: true });
  return null;
}
