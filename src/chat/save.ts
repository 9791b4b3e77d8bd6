/**
 * Writing chats to disk (`chat.md` §8 `save`/`write`/`writeAnswer`), always
 * atomically (temp file + fsync + rename), with the port's path rule
 * ([DIVERGE D25]): relative paths are cwd-relative and only a bare file name
 * that does not exist in cwd goes to the chats directory. A symbolic link is
 * written through (its target rewritten, its mode kept; the link stays) and
 * a read-only file is refused, as for `llm ask -o` (`util/in_place.ts`).
 *
 * @module
 */
import { isAbsolute, join, resolve } from "node:path";
import { expandHome } from "../config/home.ts";
import { ScoutError } from "../errors.ts";
import { exists, isDirectory } from "../util/fs.ts";
import { writeInPlace } from "../util/in_place.ts";
import { defaultChatDirs } from "./find_file.ts";
import type { Chat, Message } from "./types.ts";
import { print } from "./print.ts";
import { answer } from "./answer.ts";

/** Options of {@link save}, {@link write} and {@link writeAnswer}. */
export interface SaveOptions {
  /** Overwrite an existing file (default true); false makes an existing file a no-op. */
  force?: boolean;
  /** Directory relative paths resolve against (default: the process cwd). */
  cwd?: string;
  /** Environment for `~` and `SCOUT_HOME` (default: the process environment). */
  env?: Record<string, string | undefined>;
  /**
   * Chat directories a bare name may go to: the first existing one wins, else
   * the last one. Default: `<cwd>/chats`, `<SCOUT_HOME>/chats`.
   */
  chatDirs?: string[];
}

/**
 * Where a chat named `path` is written. Absolute and `~/` paths as they are;
 * paths with a directory part (`./x`, `../x`, `a/x`) against `cwd`
 * ([DIVERGE D25]: Ruby sends `../x` to the chats dir); a bare name that exists
 * in `cwd` there; any other bare name into the first existing chat directory
 * (default `<cwd>/chats`, then `<SCOUT_HOME>/chats`, created if neither exists).
 *
 * @param path the name or path given by the caller
 * @param opts cwd, env, chat directories
 * @returns the absolute path
 *
 * @example
 * ```ts
 * import { chatPath } from "./save.ts";
 * chatPath("./notes.chat", { cwd: "/work" }); // "/work/notes.chat"
 * chatPath("session.chat", { cwd: "/work", chatDirs: ["/work/chats"] }); // "/work/chats/session.chat"
 * ```
 */
export function chatPath(path: string, opts: Omit<SaveOptions, "force"> = {}): string {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const expanded = expandHome(path, env);
  if (isAbsolute(expanded)) return expanded;
  if (expanded.includes("/") || expanded.includes("\\") || expanded === "." || expanded === "..") {
    return resolve(cwd, expanded);
  }
  const inCwd = resolve(cwd, expanded);
  if (exists(inCwd)) return inCwd;
  const dirs = opts.chatDirs ?? defaultChatDirs(cwd, env);
  const dir = dirs.find(isDirectory) ?? dirs[dirs.length - 1];
  if (dir === undefined) return inCwd;
  return join(dir, expanded);
}

/** The target of `path`, or null when it exists and `force` is false (the write is skipped). */
function target(path: string, opts: SaveOptions): string | null {
  const file = chatPath(path, opts);
  return opts.force === false && exists(file) ? null : file;
}

/**
 * Writes `text` to `file` atomically, through a symbolic link (an `io`
 * ScoutError naming the file on failure, or for a read-only file, a
 * directory, a link to nothing).
 */
async function writeText(text: string, file: string): Promise<string> {
  await writeInPlace(file, text);
  return file;
}

/**
 * Writes `print(chat)` to `path` (see {@link chatPath}), atomically.
 *
 * @param chat messages
 * @param path file name or path
 * @param opts force, cwd, env, chat directories
 * @returns the path written, or null when the file existed and `force` is false
 * @throws ScoutError `io` naming the path when it cannot be written (a read-only file too)
 *
 * @example
 * ```ts ignore
 * import { save } from "./save.ts";
 * await save([{ role: "user", content: "hi" }], "./hello.chat");
 * ```
 */
export async function save(
  chat: readonly Message[],
  path: string,
  opts: SaveOptions = {},
): Promise<string | null> {
  const file = target(path, opts);
  return file === null ? null : await writeText(print(chat), file);
}

/** Options of {@link write}: {@link SaveOptions} plus the compiler to run first. */
export interface WriteOptions extends SaveOptions {
  /** Compiles the chat before printing (`compile` of the chat module, with its options bound). */
  compile: (chat: readonly Message[]) => Chat | Promise<Chat>;
}

/**
 * Writes the **compiled** chat (`print(compile(chat))`, Ruby instance
 * `write`) to `path`, atomically. The compiler is passed in so this module
 * stays free of compile's I/O and job dependencies.
 *
 * @param chat messages
 * @param path file name or path
 * @param opts the compiler, force, cwd, env, chat directories
 * @returns the path written, or null when skipped
 *
 * @example
 * ```ts ignore
 * import { write } from "./save.ts";
 * import { compile } from "./compile.ts";
 * await write(chat, "./compiled.chat", { compile: (c) => compile(c) });
 * ```
 */
export async function write(
  chat: readonly Message[],
  path: string,
  opts: WriteOptions,
): Promise<string | null> {
  const file = target(path, opts);
  if (file === null) return null;
  return await writeText(print(await opts.compile(chat)), file);
}

/**
 * Writes the chat's answer (content of its final message; objects as JSON) to
 * `path`, atomically.
 *
 * @param chat messages
 * @param path file name or path
 * @param opts force, cwd, env, chat directories
 * @returns the path written, or null when skipped
 * @throws ScoutError `invalid_input` when the chat has no message to answer with
 *
 * @example
 * ```ts ignore
 * import { writeAnswer } from "./save.ts";
 * await writeAnswer([{ role: "assistant", content: "42" }], "./answer.txt");
 * ```
 */
export async function writeAnswer(
  chat: readonly Message[],
  path: string,
  opts: SaveOptions = {},
): Promise<string | null> {
  const value = answer(chat);
  if (value === undefined) {
    throw new ScoutError("invalid_input", `Nothing to write to "${path}": the chat has no answer`);
  }
  const text = value === null
    ? ""
    : typeof value === "object"
    ? JSON.stringify(value)
    : String(value);
  const file = target(path, opts);
  return file === null ? null : await writeText(text, file);
}
