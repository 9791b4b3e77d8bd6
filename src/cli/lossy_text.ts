/**
 * The warning the README promises for invalid UTF-8 ("replaced by U+FFFD
 * with a warning"), given wherever a command reads text: the files compile
 * reads (`-f`, `-i`, `file:`, `directory:`, imports), stdin, the file a
 * question's `...` stands for. Once per file and command (R81-13).
 *
 * @module
 */
import { resolve } from "node:path";
import { displayPath } from "../chat/compile_context.ts";
import { type ChatFileReader, isUrlRef, nodeFileReader, readChatText } from "../chat/find_file.ts";
import { readChatFile } from "../chat/encoding.ts";
import { readTextChecked } from "../util/fs.ts";
import { type Io, warn } from "./io.ts";
import { readInput } from "./input.ts";

/** The files each command (its Io) has warned about, by absolute path (`-` for stdin). */
const warnedFiles = new WeakMap<Io, Set<string>>();

/**
 * Warns that a text had invalid UTF-8, replaced by U+FFFD.
 *
 * @param io the command's Io
 * @param name the file as messages name it (`<stdin>` for stdin)
 * @param key what the file is, to warn once per command (default: `name`)
 */
export function warnLossy(io: Io, name: string, key: string = name): void {
  let warned = warnedFiles.get(io);
  if (warned === undefined) warnedFiles.set(io, warned = new Set());
  if (warned.has(key)) return;
  warned.add(key);
  warn(io, `${name}: invalid UTF-8 replaced by U+FFFD`);
}

/**
 * A compile reader that reads files as the default one does and warns once
 * per file whose bytes are not valid UTF-8; a chat (`readChat`: an import)
 * in UTF-16/UTF-32 is refused.
 *
 * @param io the command's Io (warnings; paths shown relative to its cwd)
 * @param base the reader to wrap (URLs, kinds and listings go to it)
 * @returns the reader
 */
export function warningFileReader(io: Io, base: ChatFileReader = nodeFileReader): ChatFileReader {
  return {
    kind: (path) => base.kind(path),
    listFiles: (dir) => base.listFiles(dir),
    async readText(pathOrUrl) {
      if (isUrlRef(pathOrUrl)) return await base.readText(pathOrUrl);
      const { text, lossy } = await readTextChecked(pathOrUrl);
      if (lossy) warnLossy(io, displayPath(pathOrUrl, io.cwd), resolve(io.cwd, pathOrUrl));
      return text;
    },
    async readChat(pathOrUrl) {
      if (isUrlRef(pathOrUrl)) return await readChatText(base, pathOrUrl);
      const { text, lossy } = await readChatFile(pathOrUrl);
      if (lossy) warnLossy(io, displayPath(pathOrUrl, io.cwd), resolve(io.cwd, pathOrUrl));
      return text;
    },
  };
}

/**
 * All of stdin as text, with the warning when invalid UTF-8 was replaced.
 *
 * @param io the command's Io
 * @param what what stdin holds, for the hint a terminal gets (`input.ts` `stdinHint`)
 * @returns the text
 */
export async function readStdinText(io: Io, what?: string): Promise<string> {
  const { text, lossy } = await readInput("-", io, what === undefined ? {} : { what });
  if (lossy) warnLossy(io, "<stdin>", "-");
  return text;
}

/**
 * {@link readStdinText} of chat text (`-i -`, a question on stdin): refused
 * in UTF-16/UTF-32 (`chat/encoding.ts`).
 *
 * @param io the command's Io
 * @param what what stdin holds, for the hint a terminal gets (`input.ts` `stdinHint`)
 * @returns the text
 * @throws ScoutError `chat_encoding`
 */
export async function readStdinChat(io: Io, what?: string): Promise<string> {
  const { text, lossy } = await readInput("-", io, { chat: true, ...(what && { what }) });
  if (lossy) warnLossy(io, "<stdin>", "-");
  return text;
}

/**
 * A file's text, with the warning when invalid UTF-8 was replaced.
 *
 * @param io the command's Io
 * @param path the file (absolute)
 * @param name the file as the user gave it
 * @returns the text
 */
export async function readTextWarned(io: Io, path: string, name: string): Promise<string> {
  const { text, lossy } = await readTextChecked(path);
  if (lossy) warnLossy(io, name, path);
  return text;
}
