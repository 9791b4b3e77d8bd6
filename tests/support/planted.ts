/**
 * A shared store's hostile member for the tests (R125): files of the user's
 * own dated back, and symbolic links another user "plants" — `nobody`'s when
 * the tests run as root, so that the code under test sees a link it did not
 * make.
 *
 * @module
 */
import { lchownSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A day in ms. */
export const DAY = 86_400_000;
/** The tests run as root: B's links can be another user's. */
export const ROOT_USER: boolean = Deno.uid() === 0;

/** Writes `text` to `file` (its directory made), dated `days` back; returns `file`. */
export function putAged(file: string, text: string, days: number): string {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, text);
  const t = new Date(Date.now() - days * DAY);
  Deno.utimeSync(file, t, t);
  return file;
}

/** A symbolic link B plants: `nobody`'s when the tests run as root. */
export function plant(target: string, link: string): void {
  mkdirSync(join(link, ".."), { recursive: true });
  symlinkSync(target, link);
  if (ROOT_USER) lchownSync(link, 65534, 65534);
}
