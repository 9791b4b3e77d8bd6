/**
 * The real path of a fixed part of a shared store (`tmp/persist_locks`,
 * `var/cache/ask`, `var/jobs`) that a clean removes files in, following
 * only the symbolic links its user chose (R125). The base (`SCOUT_HOME`, the
 * working directory) and its ancestors are the user's choice: their links are
 * followed. Below the base, where the store's group may write, a link is
 * followed only when this user or root owns it: a link's owner is who made
 * it (no one but root can give a link away), so such a link is one the
 * cleaner made, as the README's shared `tmp/persist_locks` link from each
 * home is; a link another member made is not followed (it may point at the
 * cleaner's own files). Each link is checked where it is met, also those in
 * the path a followed link points to. What is left: a member may move (not
 * alter) a link the cleaner made into a part's place; the cleaners then
 * remove only what they would in a store there (locks in their own format,
 * entries named as the cache's).
 *
 * @module
 */
import { lstatSync, readlinkSync, realpathSync, type Stats } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";

/** A part of a store: its real path, nothing there, or a link another user made (not followed). */
export type StorePart =
  | { real: string }
  | { missing: true }
  | { link: string; owner: number };

/** How many links a path may go through (Linux's `MAXSYMLINKS`). */
const MAX_LINKS = 40;

/**
 * Whether a symbolic link was made by this process's user or root.
 *
 * @param st the link's own stats (`lstat`)
 * @returns true when its owner is this user or root
 */
export function ownLink(st: Pick<Stats, "uid">): boolean {
  return st.uid === 0 || st.uid === process.getuid?.();
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) ?? null;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOTDIR") return null;
    throw e;
  }
}

/**
 * The real path of `base/<rel…>`: links in `base` (and its ancestors)
 * followed; below it, links only when {@link ownLink}.
 *
 * @param base a directory the user chose (`SCOUT_HOME`, the cwd)
 * @param rel the part's components below it
 * @returns its real path; `missing` when something on the way is not there;
 *   the first link met that another user made (its path, links resolved up to it)
 * @throws the file system's error other than a missing file
 */
export function storePart(base: string, rel: readonly string[]): StorePart {
  let real: string;
  try {
    real = realpathSync(base);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { missing: true };
    throw e;
  }
  const queue = [...rel];
  let links = 0;
  while (queue.length > 0) {
    const c = queue.shift()!;
    if (c === "" || c === ".") continue;
    if (c === "..") {
      real = dirname(real);
      continue;
    }
    const path = join(real, c);
    const st = lstatOrNull(path);
    if (st === null) return { missing: true };
    if (!st.isSymbolicLink()) {
      real = path;
      continue;
    }
    if (!ownLink(st) || ++links > MAX_LINKS) return { link: path, owner: st.uid };
    const to = readlinkSync(path);
    if (isAbsolute(to)) real = "/";
    queue.unshift(...to.split("/"));
  }
  return { real };
}
