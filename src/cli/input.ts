/**
 * Reading a command's input: a FILE argument or `-` / piped stdin, with
 * errors that name the file.
 *
 * @module
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { ScoutError, usageError } from "../errors.ts";
import { decodeChat } from "../chat/encoding.ts";
import { decodeUtf8, readBytes } from "../util/fs.ts";
import type { Io } from "./io.ts";

/** Text read for a command, and the name to use for it in messages. */
export interface Input {
  /** The text (invalid UTF-8 replaced by U+FFFD). */
  text: string;
  /** Display name: the path as given, or `<stdin>`. */
  name: string;
  /** Absolute path, or null for stdin. */
  path: string | null;
  /** True if the bytes were not valid UTF-8 (U+FFFD substituted). */
  lossy: boolean;
}

/**
 * Before stdin is read from a terminal, one line on stderr saying so and how
 * to end it (R141-8): an explicit `-` at a terminal otherwise waits in
 * silence, like a hung command. Only when stdin and stderr are both
 * terminals: never for piped or redirected stdin, and not into a log file.
 *
 * @param io the command's Io
 * @param what what is read: `the chat`, `--eggs`, `stdin`
 */
export function stdinHint(io: Io, what: string): void {
  if (!io.stdinIsTTY || !io.stderrIsTTY) return;
  io.stderr.write(`scout-ai: reading ${what} from the terminal (end with Ctrl-D)\n`);
}

/**
 * Reads `file` (or stdin for `-`, or when `file` is omitted and stdin is piped).
 *
 * @param file path, `-`, or undefined
 * @param io the command's Io
 * @param o `chat`: the input is a chat, refused in UTF-16/UTF-32 (`chat/encoding.ts`);
 *   `what`: what stdin holds, for the hint a terminal gets ({@link stdinHint})
 * @returns the text and its display name
 * @throws ScoutError `usage` when there is no input at all; `not_found`/`io` naming the file;
 *   `chat_encoding` for a chat in UTF-16/UTF-32
 */
export async function readInput(
  file: string | undefined,
  io: Io,
  o: { chat?: boolean; what?: string } = {},
): Promise<Input> {
  const decode = (bytes: Uint8Array, name: string) =>
    o.chat ? decodeChat(bytes, name) : decodeUtf8(bytes);
  if (file === undefined || file === "-") {
    if (file === undefined && io.stdinIsTTY) {
      throw usageError("Missing FILE argument (use - to read stdin)");
    }
    stdinHint(io, o.what ?? (o.chat ? "the chat" : "stdin"));
    if (io.readStdinBytes !== undefined) {
      const { text, lossy } = decode(await io.readStdinBytes(), "<stdin>");
      return { text, name: "<stdin>", path: null, lossy };
    }
    return { text: await io.readStdin(), name: "<stdin>", path: null, lossy: false };
  }
  const path = resolve(io.cwd, file);
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch { /* readText reports a missing file */ }
  if (isDir) throw new ScoutError("io", `Is a directory, not a file: "${file}"`, { file });
  const bytes = await readBytes(path).catch((e) => {
    throw new ScoutError(e.code ?? "io", e.message.replace(`"${path}"`, `"${file}"`), { file });
  });
  const { text, lossy } = decode(bytes, file);
  return { text, name: file, path, lossy };
}
