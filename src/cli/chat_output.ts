/**
 * The `-o FILE` chat of `llm ask` / `agent ask`: checked before anything is
 * asked (an answer paid for must not be lost to a typo in a path), and
 * appended under the file's persist lock, so two runs appending to one chat
 * at once both land (each rewrite is atomic, temp + rename).
 *
 * @module
 */
import { accessSync, constants, type Stats, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { appendChatText } from "../chat/print_append.ts";
import type { Message } from "../chat/types.ts";
import { scoutHome } from "../config/home.ts";
import { usageError } from "../errors.ts";
import { exists, readText, writeFileAtomic } from "../util/fs.ts";
import { acquireLock } from "../workflow/lock.ts";

/**
 * Fails (usage error, exit 2) when `-o` cannot be written: a directory, an
 * unwritable file, or no writable directory to create it in (missing
 * parents are created, so the nearest existing one decides).
 *
 * @param path absolute path
 * @param shown the path as given, for the message
 */
export function checkChatOutput(path: string, shown: string): void {
  const st = statOrNull(path);
  if (st?.isDirectory()) throw usageError(`Cannot write -o "${shown}": it is a directory`);
  if (st) {
    if (!writable(path)) throw usageError(`Cannot write -o "${shown}": the file is not writable`);
    return;
  }
  let dir = dirname(path);
  while (statOrNull(dir) === null && dirname(dir) !== dir) dir = dirname(dir);
  if (!statOrNull(dir)?.isDirectory() || !writable(dir)) {
    throw usageError(`Cannot write -o "${shown}": "${dir}" is not a writable directory`);
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
 * its persist lock in `$SCOUT_HOME/tmp/persist_locks`.
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
  const lock = await acquireLock(path, join(scoutHome(env), "tmp", "persist_locks"));
  try {
    const existing = exists(path) ? await readText(path) : "";
    await writeFileAtomic(path, appendChatText(existing, messages));
  } finally {
    lock.release();
  }
}
