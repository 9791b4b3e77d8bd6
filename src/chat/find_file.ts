/**
 * File lookup for compile (`chat.md` §5.3) and the small reader compile does
 * its I/O through (`DESIGN.md` §1: "compile reads files through a small reader
 * passed in"), so that tests and embedders can swap the file system.
 *
 * @module
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { Buffer } from "node:buffer";
import { dirname, join, resolve } from "node:path";
import { ScoutError } from "../errors.ts";
import { expandHome, scoutHome } from "../config/home.ts";
import { fileError } from "../util/fs.ts";
import { decodeChat, readChatFile } from "./encoding.ts";
import { pathKind } from "../util/path_kind.ts";

/** What compile needs from the outside world to read references. */
export interface ChatFileReader {
  /**
   * `directory`; `file` for a regular file, a pipe (`<(…)`, a FIFO) or a
   * character device (read once); null when nothing readable is there (never
   * throws).
   */
  kind(path: string): "file" | "directory" | null;
  /** Text of a file (invalid UTF-8 → U+FFFD) or of an `http(s)://` URL. */
  readText(pathOrUrl: string): Promise<string>;
  /**
   * Text of a chat file or URL (`import:`, `continue:`, `last:`, the file
   * `compileFile` reads): as {@link ChatFileReader.readText}, but one in
   * UTF-16/UTF-32 (by its byte-order mark) is refused, `chat_encoding`
   * (`encoding.ts`). Optional: without it, `readText` reads chats too.
   */
  readChat?(pathOrUrl: string): Promise<string>;
  /**
   * Files below `dir` as Ruby's recursive `Dir.glob` lists them (`chat.md`
   * §4.3 `directory`): each directory's entries in byte order, a directory's
   * files right after it (depth first), dot-files and dot-dirs skipped,
   * symlinked directories not descended; links to files (and dangling links)
   * listed.
   */
  listFiles(dir: string): Promise<string[]>;
}

/** Lenient UTF-8 (invalid bytes → U+FFFD, a BOM dropped); stateless, so one serves every read. */
const utf8 = new TextDecoder("utf-8", { fatal: false });

const URL_REF = /^(?:https?|ftp|ssh):\/\//i;

/**
 * Whether a reference is a URL (`http(s)://`, `ftp://`, `ssh://`).
 *
 * @param ref reference as written
 * @returns true for a URL
 */
export function isUrlRef(ref: string): boolean {
  return URL_REF.test(ref);
}

/**
 * The default reader: the local file system through `node:fs`, and
 * `http(s)://` URLs through `fetch` (other URL schemes are not supported).
 */
export const nodeFileReader: ChatFileReader = {
  kind(path) {
    const kind = pathKind(path);
    return kind === "directory" ? kind : kind === "file" || kind === "stream" ? "file" : null;
  },
  async readText(pathOrUrl) {
    if (isUrlRef(pathOrUrl)) return utf8.decode(await fetchBytes(pathOrUrl));
    let bytes: Uint8Array;
    try {
      bytes = await readFile(pathOrUrl);
    } catch (e) {
      throw fileError(pathOrUrl, e);
    }
    return utf8.decode(bytes);
  },
  async readChat(pathOrUrl) {
    return isUrlRef(pathOrUrl)
      ? decodeChat(await fetchBytes(pathOrUrl), pathOrUrl).text
      : (await readChatFile(pathOrUrl)).text;
  },
  async listFiles(dir) {
    const out: string[] = [];
    const walk = async (d: string) => {
      const entries = await readdir(d, { withFileTypes: true }).catch((e) => {
        throw fileError(d, e);
      });
      entries.sort((a, b) => byteOrder(a.name, b.name));
      for (const e of entries) {
        if (e.name.startsWith(".")) continue;
        const p = join(d, e.name);
        if (e.isDirectory()) await walk(p);
        else if (e.isFile()) out.push(p);
        else if (e.isSymbolicLink()) {
          // `**/` never descends a linked directory and the link is dropped as
          // a directory; a link to a file is listed, and so is a dangling one
          // (reading it then fails, as Ruby's "File not found").
          const s = await stat(p).catch(() => null);
          if (s === null || s.isFile()) out.push(p);
        }
      }
    };
    await walk(dir);
    return out;
  },
};

/**
 * Reads a chat through `reader`: its `readChat`, else its `readText`.
 *
 * @param reader the compile's reader
 * @param pathOrUrl the chat
 * @returns its text
 */
export function readChatText(reader: ChatFileReader, pathOrUrl: string): Promise<string> {
  return reader.readChat !== undefined ? reader.readChat(pathOrUrl) : reader.readText(pathOrUrl);
}

/** Compares names by their UTF-8 bytes, as Ruby's `Dir.glob` sorts a directory. */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

async function fetchBytes(url: string): Promise<Uint8Array> {
  if (!/^https?:/i.test(url)) {
    throw new ScoutError("not_available", `Cannot read "${url}": only http(s) URLs are supported`, {
      reference: url,
    });
  }
  let res: Response;
  try {
    res = await fetch(url);
  } catch (e) {
    throw new ScoutError("io", `Cannot fetch "${url}": ${(e as Error).message}`, {
      reference: url,
      cause: e,
    });
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new ScoutError("io", `Cannot fetch "${url}": HTTP ${res.status}`, { reference: url });
  }
  return new Uint8Array(await res.arrayBuffer());
}

/** Options of {@link findFile}. */
export interface FindFileOptions {
  /** The file the reference appears in (relative refs resolve next to it first). */
  origin?: string | undefined;
  /** A library directory searched after the origin (only with an origin, as in Ruby). */
  libDir?: string | undefined;
  /** Working directory (default `process.cwd()`). */
  cwd?: string | undefined;
  /** Chat search path (default `<cwd>/chats`, `$SCOUT_HOME/chats`). */
  chatDirs?: readonly string[] | undefined;
  /** Environment for `~` and `SCOUT_HOME` (default `process.env`). */
  env?: Record<string, string | undefined> | undefined;
  /** Reader (default {@link nodeFileReader}). */
  reader?: ChatFileReader | undefined;
}

/**
 * The default chat search path: `<cwd>/chats`, then `$SCOUT_HOME/chats`
 * (`~/.scout/chats` by default).
 *
 * @param cwd working directory
 * @param env environment (for `SCOUT_HOME`/`HOME`)
 * @returns the directories
 */
export function defaultChatDirs(
  cwd: string = process.cwd(),
  env: Record<string, string | undefined> = process.env,
): string[] {
  return [join(cwd, "chats"), join(scoutHome(env), "chats")];
}

/**
 * Finds what a chat reference points to (`chat.md` §5.3): first existing
 * file or directory of (1) next to `origin`, (2) in `libDir` (with an
 * origin), (3) the reference itself (cwd-relative or absolute), (4) the
 * reference if it is a URL (unchecked), (5) each chat directory. `~/` is
 * expanded. Ruby's `.gz`/`.zip` fallbacks are not ported.
 *
 * @param ref the reference as written (trimmed by the caller)
 * @param opts origin, directories, reader
 * @returns an absolute path, the URL, or null when nothing matches
 *
 * @example
 * ```ts ignore
 * import { findFile } from "./find_file.ts";
 * findFile("intro.chat", { origin: "chats/session.chat" }); // "/…/chats/intro.chat" or null
 * ```
 */
export function findFile(ref: string, opts: FindFileOptions = {}): string | null {
  if (ref === "") return null;
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const reader = opts.reader ?? nodeFileReader;
  const target = expandHome(ref, env);
  const candidates: string[] = [];
  if (opts.origin !== undefined) {
    candidates.push(resolve(cwd, dirname(opts.origin), target));
    if (opts.libDir !== undefined) candidates.push(resolve(cwd, opts.libDir, target));
  }
  candidates.push(resolve(cwd, target));
  for (const c of candidates) if (reader.kind(c) !== null) return c;
  if (isUrlRef(ref)) return ref;
  for (const dir of opts.chatDirs ?? defaultChatDirs(cwd, env)) {
    const c = resolve(cwd, dir, target);
    if (reader.kind(c) !== null) return c;
  }
  return null;
}
