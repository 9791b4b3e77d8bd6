/**
 * What a command does with a chat that holds git merge-conflict markers
 * (`mergeConflict`, [TS-FIX] `chat.md` §7, R86-3, R90-2): the commands that
 * send a chat to a model (`llm ask`, `agent ask`: the `-c` chat and the `-o`
 * one) refuse, before any request, a conflict whose region holds a role
 * header (a merge of the chat's turns), and send one inside a message (a chat
 * discussing a conflict) with a warning; the read-only ones (`chat parse`,
 * `chat compile`, `chat prompt`, `llm prov`) warn and go on.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import {
  mergeConflict,
  mergeConflictError,
  mergeConflictLine,
  mergeConflictWarning,
} from "../chat/conflict.ts";
import { decodeUtf8, isFile } from "../util/fs.ts";
import { type Io, warn } from "./io.ts";

/**
 * Fails when `text` holds a merge conflict of the chat's turns (a role header
 * between its `<<<<<<<` and `>>>>>>>`); warns (stderr, `file:line`) of one
 * inside a message, which is sent as text (R90-2).
 *
 * @param io the command's Io
 * @param text the chat's text
 * @param name the file as the user gave it (`<stdin>` for stdin)
 * @param quiet no warning (the same file was already checked)
 * @throws ScoutError `merge_conflict` naming the file and the `<<<<<<<` line
 */
export function refuseConflict(io: Io, text: string, name: string, quiet = false): void {
  const found = mergeConflict(text);
  if (found === undefined) return;
  const { line } = found;
  if (found.header === undefined) {
    if (!quiet) warn(io, mergeConflictWarning(name, line, true));
    return;
  }
  throw mergeConflictError(name, line);
}

/**
 * {@link refuseConflict} for a chat file that may exist: a regular file is
 * read and checked; a missing file, a pipe or a terminal is not read.
 *
 * @param io the command's Io
 * @param path absolute path
 * @param name the file as the user gave it
 * @param quiet no warning (the file is also the `-c` chat, which warns)
 * @throws ScoutError `merge_conflict`
 */
export function refuseConflictedFile(io: Io, path: string, name: string, quiet = false): void {
  const text = regularFileText(path);
  if (text !== undefined) refuseConflict(io, text, name, quiet);
}

/**
 * Warns (stderr, with `file:line`) when `text` holds a merge conflict.
 *
 * @param io the command's Io
 * @param text the chat's text
 * @param name the file as the user gave it (`<stdin>` for stdin)
 */
export function warnConflict(io: Io, text: string, name: string): void {
  const line = mergeConflictLine(text);
  if (line === undefined) return;
  warn(io, mergeConflictWarning(name, line, false));
}

/**
 * {@link warnConflict} for a chat file: only a regular file is read (a pipe
 * can be read once, by the command).
 *
 * @param io the command's Io
 * @param path absolute path
 * @param name the file as the user gave it
 */
export function warnConflictedFile(io: Io, path: string, name: string): void {
  const text = regularFileText(path);
  if (text !== undefined) warnConflict(io, text, name);
}

/** The text of a regular file, or undefined (missing, unreadable, not a regular file). */
function regularFileText(path: string): string | undefined {
  if (!isFile(path)) return undefined;
  try {
    return decodeUtf8(readFileSync(path)).text;
  } catch {
    return undefined; // the command's own read reports it
  }
}
