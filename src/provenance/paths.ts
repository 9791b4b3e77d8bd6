/**
 * Node identity (`provenance.md` §1.4): one canonical path per node, used for
 * ids, evidence sources and addresses alike; and the byte order used for
 * every path sort.
 *
 * @module
 */
import { existsSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import type { NodeKind } from "./types.ts";

export { compareBytes } from "../util/byte_order.ts";

const realpath: (p: string) => string = realpathSync.native ?? realpathSync;

/**
 * The canonical form of a path: absolute against `cwd`; its realpath if it
 * exists and that is a path (not the `pipe:[N]` of a `/dev/fd/N`); else
 * `realpath(dirname)/basename` when the directory exists; else the
 * normalized absolute path.
 *
 * @param path any path
 * @param cwd base for relative paths
 * @returns the canonical absolute path
 */
export function canonicalPath(path: string, cwd: string): string {
  const abs = resolve(cwd, path);
  if (existsSync(abs)) {
    try {
      const real = realpath(abs);
      // `/dev/fd/63` is a link to `pipe:[N]`, which Bun returns as it is: no path to use
      if (isAbsolute(real)) return real;
    } catch { /* a dangling link or a race: try its directory */ }
  }
  try {
    return join(realpath(dirname(abs)), basename(abs));
  } catch {
    return abs;
  }
}

/**
 * A node id: `chat:<path>` or `job:<path>`.
 *
 * @param kind node kind
 * @param path canonical path
 * @returns the id
 */
export function nodeId(kind: NodeKind, path: string): string {
  return `${kind}:${path}`;
}
