/**
 * A chat file is UTF-8 (`docs/spec-notes/chat.md` §7, [TS-FIX] R133-1). One
 * whose byte-order mark says UTF-16 or UTF-32 (Windows PowerShell 5's `>`,
 * Notepad's "Unicode") would read as one message of NUL-riddled U+FFFD text,
 * go to the model as that, and get UTF-8 appended by `-o`: a file in two
 * encodings. Such a chat is refused, naming the file, wherever one is read —
 * before anything is asked or written. Other bad bytes still read as U+FFFD
 * with a warning (`decodeUtf8`).
 *
 * @module
 */
import { closeSync, openSync, readSync } from "node:fs";
import { ScoutError } from "../errors.ts";
import { decodeUtf8, readBytes } from "../util/fs.ts";
import { type WideBom, wideBom } from "../util/utf8_bytes.ts";

/**
 * The error for a chat in UTF-16/UTF-32: `Chat "u16.chat" is UTF-16 text
 * (byte-order mark FF FE); …: save it as UTF-8 (iconv -f UTF-16 -t UTF-8)`.
 * Its `cause` holds the reason alone (what follows "is"), for a message that
 * names the file itself.
 *
 * @param name the chat as the user gave it (`<stdin>` for stdin)
 * @param wide the mark found
 * @param noun what the text is, for the message's start
 * @returns a `chat_encoding` ScoutError with `file`, `encoding` and `mark`
 */
export function wideChatError(name: string, wide: WideBom, noun = "Chat"): ScoutError {
  const why = `${wide.encoding} text (byte-order mark ${wide.mark}); scout-ai reads chats as ` +
    `UTF-8: save it as UTF-8 (iconv -f ${wide.encoding} -t UTF-8)`;
  return new ScoutError("chat_encoding", `${noun} "${name}" is ${why}`, {
    file: name,
    encoding: wide.encoding,
    mark: wide.mark,
    cause: new Error(why),
  });
}

/**
 * Throws when a chat's bytes are UTF-16 or UTF-32 (by their byte-order mark).
 *
 * @param bytes the chat's bytes
 * @param name the chat as the user gave it
 * @param noun what the text is (`Chat`, `Template`)
 * @throws ScoutError `chat_encoding`
 */
export function refuseWideChat(bytes: Uint8Array, name: string, noun?: string): void {
  const wide = wideBom(bytes);
  if (wide !== null) throw wideChatError(name, wide, noun);
}

/**
 * A chat's text: refused in UTF-16/UTF-32, else UTF-8 with a UTF-8 BOM
 * dropped and invalid bytes as U+FFFD.
 *
 * @param bytes the chat's bytes
 * @param name the chat as the user gave it (`<stdin>` for stdin)
 * @param noun what the text is (`Chat`, `Template`)
 * @returns the text, and `lossy: true` when invalid bytes were replaced
 * @throws ScoutError `chat_encoding`
 */
export function decodeChat(
  bytes: Uint8Array,
  name: string,
  noun?: string,
): { text: string; lossy: boolean } {
  refuseWideChat(bytes, name, noun);
  return decodeUtf8(bytes);
}

/**
 * Reads a chat file as {@link decodeChat} decodes it.
 *
 * @param path the file
 * @param name the file as messages name it (default: `path`)
 * @param noun what the text is (`Chat`, `Template`)
 * @returns the text and whether it was lossy
 * @throws ScoutError `chat_encoding`; `not_found` / `io` naming `path`
 */
export async function readChatFile(
  path: string,
  name: string = path,
  noun?: string,
): Promise<{ text: string; lossy: boolean }> {
  return decodeChat(await readBytes(path), name, noun);
}

/**
 * Refuses an existing chat file in UTF-16/UTF-32 without reading more than
 * its first bytes: the `-o` chat, checked before the ask. A file that cannot
 * be opened or read is left to the write's own checks.
 *
 * @param path a regular file (not a pipe: a read would take its data)
 * @param name the file as the user gave it
 * @throws ScoutError `chat_encoding`
 */
export function refuseWideChatFile(path: string, name: string): void {
  const head = new Uint8Array(4);
  let n: number;
  try {
    const fd = openSync(path, "r");
    try {
      n = readSync(fd, head, 0, 4, 0);
    } finally {
      closeSync(fd);
    }
  } catch {
    return;
  }
  refuseWideChat(head.subarray(0, n), name);
}
