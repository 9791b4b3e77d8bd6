/**
 * The read/write allow-lists of the file tools, fed by the chat roles
 * `allow_path:` (read and write) and `allow_read_path:` (read only)
 * (`chat.md` §4.2). A list is plain data — `{ read: string[], write: string[] }`
 * of absolute directory or file paths — plus functions; one process-wide
 * instance is what `compile` feeds by default and what file tools consult.
 *
 * @module
 */
import { isAbsolute, relative, resolve, sep } from "node:path";
import { expandHome } from "./home.ts";

/** Paths the file tools may read and write. `write` implies `read`. */
export interface AllowPaths {
  /** Absolute paths readable (with everything below them). */
  read: string[];
  /** Absolute paths writable (with everything below them). */
  write: string[];
}

/** Access asked for. */
export type PathAccess = "read" | "write";

let processLists: AllowPaths | null = null;

/**
 * The process-wide allow-lists (created empty on first use).
 *
 * @returns the shared lists
 */
export function processAllowPaths(): AllowPaths {
  processLists ??= emptyAllowPaths();
  return processLists;
}

/**
 * New, empty allow-lists (for tests and isolated runs).
 *
 * @returns `{ read: [], write: [] }`
 */
export function emptyAllowPaths(): AllowPaths {
  return { read: [], write: [] };
}

/**
 * Adds a path to a list (idempotent). Relative paths resolve against `base`;
 * `~/` expands to the home directory.
 *
 * @param lists the lists (mutated)
 * @param path the path as written
 * @param access `write` (role `allow_path`) or `read` (role `allow_read_path`)
 * @param base directory relative paths resolve against (default: cwd)
 * @returns the absolute path added
 *
 * @example
 * ```ts
 * import { addAllowedPath, emptyAllowPaths, isPathAllowed } from "./allow_paths.ts";
 * const lists = emptyAllowPaths();
 * addAllowedPath(lists, "/tmp/work", "write");
 * isPathAllowed(lists, "/tmp/work/a.txt", "read"); // true
 * ```
 */
export function addAllowedPath(
  lists: AllowPaths,
  path: string,
  access: PathAccess,
  base: string = process.cwd(),
): string {
  const abs = resolve(base, expandHome(path.trim()));
  const list = access === "write" ? lists.write : lists.read;
  if (!list.includes(abs)) list.push(abs);
  return abs;
}

/**
 * Whether `path` lies at or below an allowed path for `access` (write
 * entries also grant read). Compares resolved paths; `..` cannot escape.
 *
 * @param lists the lists
 * @param path an absolute path, or relative to `base`
 * @param access what is asked
 * @param base directory relative paths resolve against (default: cwd)
 * @returns true if allowed
 */
export function isPathAllowed(
  lists: AllowPaths,
  path: string,
  access: PathAccess,
  base: string = process.cwd(),
): boolean {
  const abs = resolve(base, expandHome(path));
  const roots = access === "write" ? lists.write : [...lists.read, ...lists.write];
  return roots.some((root) => {
    const rel = relative(root, abs);
    return rel === "" || (!rel.startsWith(".." + sep) && rel !== ".." && !isAbsolute(rel));
  });
}
