/**
 * The safe loader (`chat.md` §7): read a chat file and parse it, compiling
 * nothing. Provenance, accounting and inspection use only this.
 *
 * @module
 */
import { closeSync, openSync, readSync } from "node:fs";
import type { Chat } from "./types.ts";
import { parse } from "./parse.ts";
import { fileError } from "../util/fs.ts";
import { readChatFile, refuseWideChat } from "./encoding.ts";

/**
 * Reads `path` (UTF-8, invalid bytes → U+FFFD, a UTF-8 BOM dropped) and
 * parses it. No imports, tasks, files or options are processed.
 *
 * @param path chat file
 * @returns the raw messages (leading `{user,""}` quirk included)
 * @throws ScoutError `not_found` / `io` naming the path; `chat_encoding` for a
 *   UTF-16/UTF-32 file (`encoding.ts`)
 *
 * @example
 * ```ts ignore
 * import { loadRaw } from "./load.ts";
 * const chat = await loadRaw("session.chat");
 * ```
 */
export async function loadRaw(path: string): Promise<Chat> {
  return parse((await readChatFile(path)).text);
}

/**
 * Synchronous {@link loadRaw}. Reads through one reused buffer: a
 * provenance walk reads thousands of files, and a fresh buffer per file is
 * garbage the size of the whole store.
 *
 * @param path chat file
 * @returns the raw messages
 * @throws ScoutError as {@link loadRaw}
 */
export function loadRawSync(path: string): Chat {
  let bytes: Uint8Array;
  try {
    bytes = readReused(path);
  } catch (e) {
    throw fileError(path, e);
  }
  refuseWideChat(bytes, path);
  const text = utf8.decode(bytes);
  if (readBuffer.length > 1 << 24) readBuffer = new Uint8Array(1 << 18); // after a huge file
  return parse(text);
}

/** Decoder of {@link loadRawSync} (stateless without `stream`, so one serves every call). */
const utf8 = new TextDecoder("utf-8", { fatal: false });
/** The read buffer of {@link loadRawSync} (one per thread), grown as needed. */
let readBuffer = new Uint8Array(1 << 18);

/** The bytes of a file, in (a view of) {@link readBuffer}: valid until the next call. */
function readReused(path: string): Uint8Array {
  const fd = openSync(path, "r");
  try {
    let size = 0;
    for (;;) {
      if (size === readBuffer.length) {
        const bigger = new Uint8Array(readBuffer.length * 2);
        bigger.set(readBuffer);
        readBuffer = bigger;
      }
      const n = readSync(fd, readBuffer, size, readBuffer.length - size, null);
      if (n === 0) return readBuffer.subarray(0, size);
      size += n;
    }
  } finally {
    closeSync(fd);
  }
}
