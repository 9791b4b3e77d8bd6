/**
 * Node identity (`provenance.md` §1.4): one canonical path per node, used for
 * ids, evidence sources and addresses alike; and the byte order used for
 * every path sort.
 *
 * @module
 */
import { existsSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { NodeKind } from "./types.ts";

const realpath: (p: string) => string = realpathSync.native ?? realpathSync;

/**
 * The canonical form of a path: absolute against `cwd`; its realpath if it
 * exists; else `realpath(dirname)/basename` when the directory exists; else
 * the normalized absolute path.
 *
 * @param path any path
 * @param cwd base for relative paths
 * @returns the canonical absolute path
 */
export function canonicalPath(path: string, cwd: string): string {
  const abs = resolve(cwd, path);
  if (existsSync(abs)) {
    try {
      return realpath(abs);
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

/**
 * Compares strings in code-point order, which is the byte order of their
 * UTF-8 encodings (plain `<` compares UTF-16 units and misorders astral
 * characters against U+E000–U+FFFF).
 *
 * @param a a string
 * @param b another
 * @returns negative, zero or positive
 */
export function compareBytes(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}
