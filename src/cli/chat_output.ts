/**
 * The `-o FILE` chat of `llm ask` / `agent ask`: checked before anything is
 * asked (an answer paid for must not be lost to a typo in a path), and
 * appended under the file's persist lock, so two runs appending to one chat
 * at once both land (each rewrite is atomic, temp + rename). A symbolic link
 * is written through: its target is the chat (locked, checked and rewritten;
 * the link stays), as an editor saves a linked file.
 *
 * @module
 */
import { accessSync, constants, lstatSync, realpathSync, type Stats, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { readFile } from "node:fs/promises";
import { appendChatBytes } from "../chat/print_append.ts";
import type { Message } from "../chat/types.ts";
import { scoutHome } from "../config/home.ts";
import { ScoutError, usageError } from "../errors.ts";
import { exists, fileError, writeFileAtomic } from "../util/fs.ts";
import { acquireLock } from "../workflow/lock.ts";

/**
 * Fails (usage error, exit 2) when `-o` cannot be written: a directory, an
 * unwritable file, or no writable directory to create it in (missing
 * parents are created, so the nearest existing one decides).
 *
 * @param given absolute path (a symbolic link: its target is checked)
 * @param shown the path as given, for the message
 */
export function checkChatOutput(given: string, shown: string): void {
  let path: string;
  try {
    path = chatTarget(given);
  } catch (e) {
    throw usageError(`Cannot write -o "${shown}": ${(e as Error).message}`);
  }
  const st = statOrNull(path);
  if (st?.isDirectory()) throw usageError(`Cannot write -o "${shown}": it is a directory`);
  if (st && !st.isFile()) throw usageError(`Cannot write -o "${shown}": not a regular file`);
  if (st && !writable(path)) {
    throw usageError(`Cannot write -o "${shown}": the file is not writable`);
  }
  // a rewrite is a temp file beside the chat, renamed over it: its directory must take one
  let dir = dirname(path);
  while (statOrNull(dir) === null && dirname(dir) !== dir) dir = dirname(dir);
  if (!statOrNull(dir)?.isDirectory() || !writable(dir)) {
    throw usageError(`Cannot write -o "${shown}": "${dir}" is not a writable directory`);
  }
}

/**
 * The file a `-o` path stands for: itself, or a symbolic link's target
 * (followed to the end).
 *
 * @throws Error for a link to nothing, or a loop of links
 */
function chatTarget(path: string): string {
  let link: boolean;
  try {
    link = lstatSync(path).isSymbolicLink();
  } catch {
    return path; // not there yet: created
  }
  if (!link) return path;
  try {
    return realpathSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(
      code === "ELOOP"
        ? "a loop of symbolic links"
        : "a symbolic link to a file that does not exist (create it first)",
    );
  }
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Appends messages to a chat file atomically (creating it if needed), under
 * its persist lock in `$SCOUT_HOME/tmp/persist_locks`. The old part of the
 * file is kept byte for byte: a byte-order mark, and bytes that are not UTF-8.
 *
 * @param path absolute path
 * @param messages messages to append
 * @param env environment (`SCOUT_HOME`)
 */
export async function appendToChat(
  path: string,
  messages: readonly Message[],
  env: Record<string, string | undefined>,
): Promise<void> {
  if (messages.length === 0) return;
  let file: string;
  try {
    file = chatTarget(path);
  } catch (e) {
    throw new ScoutError("io", `Cannot write "${path}": ${(e as Error).message}`, { file: path });
  }
  // the lock is the target's: two runs writing through different links to one chat share it
  const lock = await acquireLock(file, join(scoutHome(env), "tmp", "persist_locks"));
  try {
    const existing = exists(file)
      ? await readFile(file).catch((e) => Promise.reject(fileError(file, e)))
      : new Uint8Array(0);
    await writeFileAtomic(file, appendChatBytes(existing, messages));
  } finally {
    lock.release();
  }
}
