/** Files for tests: what a test lays out in its temp directory before it runs anything. */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * Writes `data` (text or bytes; empty by default) to `root/rel`, making its
 * directories.
 *
 * @returns the file's path, `join(root, rel)`
 */
export function put(root: string, rel: string, data: string | Uint8Array = ""): string {
  const path = join(root, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, data);
  return path;
}
