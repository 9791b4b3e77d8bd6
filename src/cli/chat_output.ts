/**
 * The `-o FILE` chat of `llm ask` / `agent ask`: checked before anything is
 * asked (an answer paid for must not be lost to a typo in a path), and
 * appended under the file's persist lock, so two runs appending to one chat
 * at once both land (each rewrite is atomic, temp + rename). A symbolic link
 * is written through: its target is the chat (locked, checked and rewritten;
 * the link stays), as an editor saves a linked file (`util/in_place.ts`). A
 * pipe or terminal (`>(…)`, a FIFO, `/dev/stdout` on a pipe) cannot be read
 * back or rewritten: the new messages are written to it, as a chat.
 *
 * @module
 */
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { readFile } from "node:fs/promises";
import { appendChatBytes } from "../chat/print_append.ts";
import { refuseWideChat, refuseWideChatFile } from "../chat/encoding.ts";
import { wideBom } from "../util/utf8_bytes.ts";
import { type ChatSnapshot, checkedTurn } from "./chat_changed.ts";
import type { Message } from "../chat/types.ts";
import { scoutHome } from "../config/home.ts";
import { ScoutError, usageError } from "../errors.ts";
import { exists, fileError, writeFileAtomicSync } from "../util/fs.ts";
import { errnoReason } from "../util/errno_text.ts";
import { refusedByFileSystem } from "../util/fs_refused.ts";
import { outOfDescriptors, whenDescriptorsFree } from "../util/descriptors.ts";
import { type Io, writeBytes } from "./io.ts";
import { inPlace, inPlaceWrite, writeWhere } from "../util/in_place.ts";
import { acquireLock, type HeldLock, takeLockFileSync } from "../workflow/lock.ts";
import { lockPathFor } from "../workflow/store.ts";
import { lockWaitText } from "./lock_wait.ts";
import { escapeLine } from "../provenance/one_line.ts";
import { probeCreate } from "../util/create_probe.ts";

/**
 * Fails when `-o` cannot be written: a directory or no file (a usage error,
 * exit 2); an unwritable or read-only file, or no writable directory to
 * create or replace it in (missing parents are created, so the nearest
 * existing one decides) — a permission, exit 1 (R92-5); or no new file can
 * be made there (no free inode, an inode quota: exit 1, R102-9); or an existing
 * chat in UTF-16/UTF-32, which UTF-8 must not be appended to (`chat_encoding`,
 * R133-1).
 *
 * @param given absolute path (a symbolic link: its target is checked)
 * @param shown the path as given, for the message
 * @param flag the flag that named it: `-o`, or `-c` alone, which appends to its chat (R149-2)
 */
export function checkChatOutput(given: string, shown: string, flag = "-o"): void {
  const hint = flag === "-c"
    ? " (-c appends the turn to its chat; -o FILE writes it elsewhere)"
    : "";
  const where = inPlace(given);
  const { problem, denied } = where;
  if (problem === null) {
    if (where.stream !== true) refuseWideChatFile(where.file, shown);
    // the save's temp file needs an inode: none free, or a quota, is told before the ask (R102-9)
    const refused = where.stream === true ? null : probeCreate(where.file);
    if (refused === null) return;
    throw new ScoutError("io", `Cannot write ${flag} "${shown}": ${errnoReason(refused)}${hint}`, {
      file: shown,
    });
  }
  const message = `Cannot write ${flag} "${shown}": ${problem}${hint}`;
  throw denied ? new ScoutError("io", message, { file: shown }) : usageError(message);
}

/**
 * Appends messages to a chat file atomically (creating it if needed), under
 * its persist lock in `$SCOUT_HOME/tmp/persist_locks`. The old part of the
 * file is kept byte for byte: a byte-order mark, and bytes that are not UTF-8.
 *
 * With `o.seen` (what `-c` read of this very chat), a chat that changed
 * since is told and the turn's `_c` totals rebased (`chat_changed.ts`,
 * R101-4). Out of file descriptors, the save closes the run's idle
 * connections and tries again for about 3 s (`util/descriptors.ts`, R119-5).
 *
 * @param path absolute path
 * @param messages messages to append
 * @param env environment (`SCOUT_HOME`)
 * @param warn where a lock taken next to the chat, or a chat changed meanwhile, is told
 * @param o `seen`: what `-c` read of it; `shown`: its name as given; `prepared`:
 *   told the file's new bytes, under the lock, before they are written
 */
export async function appendToChat(
  path: string,
  messages: readonly Message[],
  env: Record<string, string | undefined>,
  warn: (message: string) => void = () => {},
  o: AppendChatOptions = {},
): Promise<void> {
  if (messages.length === 0) return;
  // a run's idle connections may hold the descriptors the save needs: freed, then tried again
  await whenDescriptorsFree(() => appendOnce(path, messages, env, warn, o));
}

/** What {@link appendToChat} is given besides the messages. */
export interface AppendChatOptions {
  /** What `-c` read of this very chat. */
  seen?: ChatSnapshot;
  /** The chat's name as given. */
  shown?: string;
  /**
   * Told the bytes the file (a link's target; not a stream) is about to be
   * rewritten with, under its lock: what a late signal that exits before the
   * write is done writes at once ({@link rewriteChatSync}, R141-1).
   */
  prepared?: (file: string, bytes: Uint8Array) => void;
}

/** {@link appendToChat}'s one try: nothing is left held when it throws. */
async function appendOnce(
  path: string,
  messages: readonly Message[],
  env: Record<string, string | undefined>,
  warn: (message: string) => void,
  o: AppendChatOptions,
): Promise<void> {
  const where = inPlaceWrite(path);
  const file = where.file;
  // the lock is the target's: two runs writing through different links to one chat share it
  const lock = await fileLock(file, env, warn);
  try {
    const existing = exists(file) && where.stream !== true
      ? await readFile(file).catch((e) => Promise.reject(fileError(file, e)))
      : new Uint8Array(0);
    refuseWideChat(existing, o.shown ?? path); // made UTF-16 since the check: left as it is
    const turn = o.seen === undefined || where.stream === true
      ? messages
      : checkedTurn(messages, existing, { seen: o.seen, shown: o.shown ?? path, warn });
    const shown = o.shown ?? path;
    const onRewritten = () =>
      warn(
        `"${shown}" ends inside an open block (a fence, [[, {{{ or a tag): the new messages ` +
          `could not simply follow it, so the whole chat was printed again (every message kept)`,
      );
    const bytes = appendChatBytes(existing, turn, { onRewritten });
    if (where.stream !== true) o.prepared?.(file, bytes);
    await writeWhere(where, bytes, path);
  } finally {
    lock.release();
  }
}

/**
 * The messages a save could not append for want of file descriptors (after
 * {@link appendToChat}'s tries: the process's limit is held by what it cannot
 * close), written to stderr as chat text after a line that says so — to be
 * appended by hand rather than lost (R119-5). Any other failure shows
 * nothing: the path, the disk or the lock is the user's to fix, and was
 * checked before the ask.
 *
 * @param io where the messages go (its stderr; never silenced by `--quiet`)
 * @param shown the chat's name as given
 * @param messages the messages not saved
 * @param e why the save failed
 * @returns whether they were shown
 */
export function showUnsaved(
  io: Io,
  shown: string,
  messages: readonly Message[],
  e: unknown,
): boolean {
  const errno = outOfDescriptors(e);
  if (errno === null || messages.length === 0) return false;
  io.stderr.write(
    `scout-ai: Cannot save the chat to "${shown}" (${errnoReason(errno)}): ` +
      `its new messages follow, to append to it by hand\n`,
  );
  writeBytes(io.stderr, appendChatBytes(new Uint8Array(0), messages));
  return true;
}

/**
 * The persist lock of a file the user named (a `-o` chat, an `--inline`
 * file) in `$SCOUT_HOME/tmp/persist_locks`; when the home refuses it
 * (read-only on a compute node, another user's), in the file's own directory
 * instead — which was found writable before the ask — so an answer paid for
 * is still saved, and runs writing one file from such homes still take turns.
 *
 * @param file the file (a link's target)
 * @param env environment (`SCOUT_HOME`)
 * @param warn where a lock taken next to the file, and a wait on another
 *   process's lock past a few seconds (R148-1), are told
 * @param noun what the file is, for that message
 * @returns the held lock
 */
export async function fileLock(
  file: string,
  env: Record<string, string | undefined>,
  warn: (message: string) => void,
  noun = "chat",
): Promise<HeldLock> {
  const home = join(scoutHome(env), "tmp", "persist_locks");
  // a wait past a few seconds is told, as a job's is: an empty lock a crash left waits the stale age
  const onLongWait = (lock: string, holder: string) =>
    warn(`Saving the ${noun} "${escapeLine(file)}": ${lockWaitText(lock, holder)}`);
  try {
    return await acquireLock(file, home, { onLongWait });
  } catch (e) {
    const errno = refusedByFileSystem(e);
    if (errno === null) throw e;
    warn(`Cannot lock in "${home}" (${errnoReason(errno)}): locking next to the ${noun}`);
    return await acquireLock(file, dirname(file), { onLongWait });
  }
}

/** How long a save on a signal path waits for another process's lock on the chat. */
const SYNC_LOCK_WAIT_MS = 1_000;

/**
 * {@link appendToChat} without the event loop, for a second signal that
 * exits at once (R91-1): under the same persist lock (one this process holds
 * for a save the signal cut short is taken over; another process's is waited
 * for a second, then the save is given up: appending without it could drop
 * that process's turn). A pipe or FIFO `-o` is skipped (opening one may block).
 *
 * @param path absolute path
 * @param messages messages to append
 * @param env environment (`SCOUT_HOME`)
 * @returns whether the messages were appended
 */
export function appendToChatSync(
  path: string,
  messages: readonly Message[],
  env: Record<string, string | undefined>,
): boolean {
  const where = inPlaceWrite(path);
  if (messages.length === 0 || where.stream === true) return false;
  const file = where.file;
  return underSyncLock(file, env, () => {
    const existing = exists(file) ? readFileSync(file) : new Uint8Array(0);
    if (wideBom(existing) !== null) return false; // a UTF-16 chat is not appended to (R133-1)
    writeFileAtomicSync(file, appendChatBytes(existing, messages));
    return true;
  });
}

/**
 * Writes `bytes` to the chat `file` without the event loop, under its
 * persist lock as {@link appendToChatSync} takes it: the bytes an
 * {@link appendToChat} cut short by a late signal was writing (its
 * `prepared`), made under the lock this process still holds — written again
 * at once rather than appended again (the file has not changed since, and
 * appending would parse a large chat a second time).
 *
 * @param file the chat (a link's target), a regular file
 * @param bytes its whole new content
 * @param env environment (`SCOUT_HOME`)
 * @returns whether they were written
 */
export function rewriteChatSync(
  file: string,
  bytes: Uint8Array,
  env: Record<string, string | undefined>,
): boolean {
  return underSyncLock(file, env, () => {
    writeFileAtomicSync(file, bytes);
    return true;
  });
}

/** Runs `write` under `file`'s persist lock taken at once; false when the lock is not had. */
function underSyncLock(
  file: string,
  env: Record<string, string | undefined>,
  write: () => boolean,
): boolean {
  const lock = syncLock(file, join(scoutHome(env), "tmp", "persist_locks")) ??
    syncLock(file, dirname(file));
  if (lock === "busy" || lock === undefined) return false;
  try {
    return write();
  } finally {
    lock.release();
  }
}

/**
 * {@link fileLock}'s lock taken at once in `dir`: `busy` when another process
 * holds it, undefined when `dir` refuses it (then the file's own directory).
 */
function syncLock(file: string, dir: string): HeldLock | "busy" | undefined {
  try {
    mkdirSync(dir, { recursive: true });
    return takeLockFileSync(lockPathFor(file, dir), SYNC_LOCK_WAIT_MS) ?? "busy";
  } catch {
    return undefined;
  }
}
