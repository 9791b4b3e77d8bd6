/**
 * A chat file is UTF-8 (`docs/spec-notes/chat.md` §7, [TS-FIX] R133-1). One
 * whose byte-order mark says UTF-16 or UTF-32 (Windows PowerShell 5's `>`,
 * Notepad's "Unicode") would read as one message of NUL-riddled U+FFFD text,
 * go to the model as that, and get UTF-8 appended by `-o`: a file in two
 * encodings. Such a chat is refused, naming the file, wherever one is read —
 * before anything is asked or written. One that an older scout-ai already
 * appended UTF-8 to is told as that, with where the UTF-8 part starts and
 * how to convert the wide part alone (R136-3: `iconv` on the whole file
 * reads the UTF-8 as wide text too). Other bad bytes still read as U+FFFD with a warning (`decodeUtf8`).
 *
 * @module
 */
import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { ScoutError } from "../errors.ts";
import { decodeUtf8, readBytes } from "../util/fs.ts";
import { shellQuote } from "../util/shell_words.ts";
import { type WideBom, wideBom } from "../util/utf8_bytes.ts";
import { utf8TailStart } from "./mixed_encoding.ts";

/** A chat's wide encoding: its byte-order mark, and where UTF-8 appended to it starts. */
export interface WideChat extends WideBom {
  /** Offset of the UTF-8 part ({@link utf8TailStart}), when the file has one. */
  utf8From?: number;
}

/** How {@link wideChatError} names the chat. */
export interface WideChatNames {
  /** What the text is, for the message's start (default `Chat`). */
  noun?: string;
  /** The file the recipe of a mixed file converts (default: the name). */
  path?: string;
}

/**
 * What to do about a chat in two encodings: convert the wide part alone and
 * keep the UTF-8 part, `{ head -c N F | iconv -f UTF-16 -t UTF-8; tail -c +N+1 F; } > F.utf8`
 * (`FILE` for a chat that is no file: stdin, a url). A wide part that ends
 * inside a code unit (the append stripped NULs off the text's end) gets them
 * back from `printf` first.
 */
function mixedAdvice(wide: WideBom, from: number, path: string): string {
  const file = path.startsWith("<") || path.includes("://") ? "FILE" : path;
  const [f, out] = [shellQuote(file), shellQuote(`${file}.utf8`)];
  const unit = wide.encoding === "UTF-16" ? 2 : 4;
  const nuls = "\\000".repeat((unit - from % unit) % unit);
  const head = nuls === "" ? `head -c ${from} ${f}` : `{ head -c ${from} ${f}; printf '${nuls}'; }`;
  const enc = wide.encoding;
  return `convert the ${enc} part alone and keep the UTF-8 part as it is (iconv on the ` +
    `whole file reads that as ${enc} too): { ${head} | iconv -f ${enc} -t UTF-8; ` +
    `tail -c +${from + 1} ${f}; } > ${out}`;
}

/**
 * The error for a chat in UTF-16/UTF-32: `Chat "u16.chat" is UTF-16 text
 * (byte-order mark FF FE); …: save it as UTF-8 (iconv -f UTF-16 -t UTF-8)`;
 * for one with UTF-8 appended (`utf8From`), `… with UTF-8 text appended
 * from byte N on (two encodings); …` and the recipe that converts the wide
 * part alone. Its `cause` holds the reason alone (what follows "is"), for a
 * message that names the file itself.
 *
 * @param name the chat as the user gave it (`<stdin>` for stdin)
 * @param wide the mark found, and where UTF-8 starts if it does
 * @param o `noun` (`Chat`, `Template`, `Import`), `path` for the recipe
 * @returns a `chat_encoding` ScoutError with `file`, `encoding`, `mark`
 *   (and `utf8From`)
 */
export function wideChatError(name: string, wide: WideChat, o: WideChatNames = {}): ScoutError {
  const { encoding, mark, utf8From } = wide;
  const what = `${encoding} text (byte-order mark ${mark})`;
  const why = utf8From === undefined
    ? `${what}; scout-ai reads chats as UTF-8: save it as UTF-8 (iconv -f ${encoding} -t UTF-8)`
    : `${what} with UTF-8 text appended from byte ${utf8From} on (two encodings: an older ` +
      `scout-ai appended to it); scout-ai reads chats as UTF-8: ` +
      mixedAdvice(wide, utf8From, o.path ?? name);
  return new ScoutError("chat_encoding", `${o.noun ?? "Chat"} "${name}" is ${why}`, {
    file: name,
    encoding,
    mark,
    ...(utf8From === undefined ? {} : { utf8From }),
    cause: new Error(why),
  });
}

/**
 * The wide encoding of a chat's bytes, with where UTF-8 appended to them
 * starts; null for a chat that is not UTF-16/UTF-32 by its mark.
 *
 * @param bytes the chat's bytes (all of them: the end is looked at)
 * @returns the encoding, or null
 */
export function wideChat(bytes: Uint8Array): WideChat | null {
  const wide = wideBom(bytes);
  if (wide === null) return null;
  const from = utf8TailStart(bytes, wide);
  return from === null ? wide : { ...wide, utf8From: from };
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
  const wide = wideChat(bytes);
  if (wide !== null) throw wideChatError(name, wide, noun === undefined ? {} : { noun });
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
 * its first bytes (the whole file only once it is refused, to tell UTF-8
 * appended to it): the `-o` chat, checked before the ask. A file that cannot
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
  if (wideBom(head.subarray(0, n)) === null) return;
  // refused: the whole file read, to tell one that UTF-8 was appended to
  let bytes = head.subarray(0, n);
  try {
    bytes = new Uint8Array(readFileSync(path));
  } catch { /* refused on its mark alone */ }
  refuseWideChat(bytes, name);
}
