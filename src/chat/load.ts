/**
 * The safe loader (`chat.md` §7): read a chat file and parse it, compiling
 * nothing. Provenance, accounting and inspection use only this.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import type { Chat } from "./types.ts";
import { parse } from "./parse.ts";
import { fileError, readText } from "../util/fs.ts";

/**
 * Reads `path` (UTF-8, invalid bytes → U+FFFD) and parses it. No imports,
 * tasks, files or options are processed.
 *
 * @param path chat file
 * @returns the raw messages (leading `{user,""}` quirk included)
 * @throws ScoutError `not_found` / `io` naming the path
 *
 * @example
 * ```ts ignore
 * import { loadRaw } from "./load.ts";
 * const chat = await loadRaw("session.chat");
 * ```
 */
export async function loadRaw(path: string): Promise<Chat> {
  return parse(await readText(path));
}

/**
 * Synchronous {@link loadRaw}.
 *
 * @param path chat file
 * @returns the raw messages
 */
export function loadRawSync(path: string): Chat {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw fileError(path, e);
  }
  return parse(new TextDecoder("utf-8", { fatal: false }).decode(bytes));
}
