/**
 * Where the cleaning commands (`system clean`, `llm cache clean`) remove
 * files: the real path of each part of the store, following the links its
 * user chose and not another member's (`util/owned_links.ts`, R125), with
 * one warning naming a link not followed.
 *
 * @module
 */
import { join } from "node:path";
import type { JobStore } from "../workflow/store.ts";
import { storePart } from "../util/owned_links.ts";
import type { Io } from "./io.ts";
import { warn } from "./io.ts";

/**
 * The real path of `base/<rel…>`, or null when it is not there or another
 * user's link is met on the way (then a warning names the link and `what`
 * is skipped).
 *
 * @param base a directory the user chose (`SCOUT_HOME`, the cwd, `--jobs-dir`)
 * @param rel the part's components below it
 * @param io where the warning goes
 * @param what what is skipped, for the warning
 * @returns the real path, or null
 */
export function realPart(base: string, rel: string[], io: Io, what: string): string | null {
  const part = storePart(base, rel);
  if ("real" in part) return part.real;
  if ("link" in part) {
    warn(
      io,
      `not following ${part.link}: a symbolic link made by another user (uid ${part.owner}) ` +
        `in the store; ${what}`,
    );
  }
  return null;
}

/**
 * How a store's jobs roots are resolved: a root the user named
 * (`--jobs-dir`, `SCOUT_JOBS_DIR`) with every link followed; the default
 * `var/jobs` of `SCOUT_HOME` and of the cwd with their links checked.
 *
 * @param store the job store
 * @param named whether its root was named by the user
 * @param io where warnings go
 * @returns a root's real path, or null when not to be read
 */
export function realRoots(
  store: JobStore,
  named: boolean,
  io: Io,
): (root: string) => string | null {
  const rel = ["var", "jobs"];
  return (root) => {
    const skip = `the jobs under ${root} are not cleaned`;
    if (named) return realPart(root, [], io, skip);
    if (root === join(store.home, ...rel)) return realPart(store.home, rel, io, skip);
    if (root === join(store.cwd, ...rel)) return realPart(store.cwd, rel, io, skip);
    return realPart(root, [], io, skip);
  };
}
