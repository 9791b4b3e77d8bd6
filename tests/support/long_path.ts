/**
 * Real paths near PATH_MAX for tests (R119-2): a directory nested under a
 * temp directory, made, whose path is exactly as many bytes as asked.
 *
 * @module
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";

/**
 * Makes `base/ddd…/ddd…/…` whose path is exactly `bytes` bytes (ASCII),
 * each component at most 200 bytes (within NAME_MAX).
 *
 * @param base an existing directory (ASCII path), shorter than `bytes` - 1
 * @param bytes the length of the directory's path
 * @returns the directory
 */
export function dirOfLength(base: string, bytes: number): string {
  let dir = base;
  while (dir.length < bytes) {
    const left = bytes - dir.length - 1; // less the "/"
    // never leave a remainder of 0 after a "/" (a component needs a byte)
    const step = left > 200 ? Math.min(200, left - 2) : left;
    dir = join(dir, "d".repeat(step));
  }
  if (dir.length !== bytes) throw new Error(`cannot make a directory path of ${bytes} bytes`);
  mkdirSync(dir, { recursive: true });
  return dir;
}
