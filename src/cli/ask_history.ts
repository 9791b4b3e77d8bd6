/**
 * The `-c` history of an `llm ask` / `agent ask` turn: the chat file (or `-c -`,
 * stdin) compiled, cut by the new part's `clear:`/`clear_tools:`/`clean_role:`
 * (`cutHistory`), then its options taken out — after the cut, so an option
 * line or a `previous_response_id` before a `clear:` no longer applies, as in
 * the saved chat's next compile. Options written in the history yield to the
 * command-line flags (agents.md §5.3); options written in the question stay in
 * the chat and win.
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { compileText } from "../chat/compile.ts";
import type { CompileOptions } from "../chat/compile.ts";
import { type ExtractedOptions, extractOptions } from "../chat/options.ts";
import type { Message } from "../chat/types.ts";
import { ScoutError } from "../errors.ts";
import { exists, namedFileError, samePath } from "../util/fs.ts";
import { decodeChat } from "../chat/encoding.ts";
import { type ChatSnapshot, chatSnapshot } from "./chat_changed.ts";
import { cutHistory } from "./ask_new_part.ts";
import { refuseConflict } from "./chat_conflict.ts";
import type { Io } from "./io.ts";

/** Where the history comes from. */
export interface HistorySource {
  /** `-c -`: the chat read from stdin. */
  stdinChat?: { text: string; name: string };
  /** `-c FILE` as given. */
  chat?: string;
  /** The `-o` path (resolved): a missing `-c` chat is fine when it is the one to write. */
  outPath?: string;
}

/** The `-c` history as compiled, before the new part's cut; where it was read. */
export interface CompiledHistory {
  /** Its compiled messages, options still in. */
  compiled: Message[];
  /** The chat file (resolved), for `format:` lines; none for stdin. */
  origin?: string;
  /** The chat file was not valid UTF-8 (its bad bytes read as U+FFFD). */
  lossy?: boolean;
  /** What was read of a `-c` chat that is also the `-o` one (a new one: empty), R101-4. */
  seen?: ChatSnapshot;
}

/**
 * Reads and compiles the `-c` history — first, before the new part compiles
 * (and runs its `task:` lines): a missing chat fails with nothing done.
 *
 * @param src where it comes from
 * @param compileOpts cwd, env, config and jobs of the compile
 * @param io where a warning of conflict markers inside a message goes
 * @returns the compiled history (empty without `-c`, or for a new `-o` chat)
 * @throws ScoutError `file_not_found` for a missing `-c` chat that is not the `-o` one;
 *   `merge_conflict` for a chat whose turns a git merge left in conflict (R86-3, R90-2);
 *   `chat_encoding` for one in UTF-16/UTF-32 (R133-1)
 */
export async function readHistory(
  src: HistorySource,
  compileOpts: CompileOptions & { cwd: string },
  io: Io,
): Promise<CompiledHistory> {
  if (src.stdinChat !== undefined) {
    const { text, name } = src.stdinChat;
    refuseConflict(io, text, name);
    return { compiled: await compileText(text, { ...compileOpts, name }) };
  }
  if (src.chat === undefined) return { compiled: [] };
  const origin = resolve(compileOpts.cwd, src.chat);
  if (!exists(origin)) {
    if (origin === src.outPath) return { compiled: [], seen: chatSnapshot(new Uint8Array(0)) };
    throw new ScoutError("file_not_found", `Chat file not found: "${src.chat}"`, {
      file: src.chat,
    });
  }
  const bytes = await readFile(origin).catch((e) => {
    throw namedFileError(src.chat!, e, "Chat file not found");
  });
  const { text, lossy } = decodeChat(bytes, src.chat); // UTF-16 refused: nothing sent (R133-1)
  refuseConflict(io, text, src.chat); // both sides of a merge of turns must not go to the model
  const compiled = await compileText(text, { ...compileOpts, origin: src.chat });
  // the -o chat: its append checks that nothing changed it meanwhile (R101-4)
  const seen = sameFile(origin, src.outPath) ? { seen: chatSnapshot(bytes) } : {};
  return { compiled, origin, lossy, ...seen };
}

/** Whether `-c` and `-o` are one file (through links too). */
function sameFile(chat: string, out: string | undefined): boolean {
  return out !== undefined && samePath(chat, out);
}

/**
 * The history as the turn sends it: cut by the new part, then its options
 * taken out (after the cut: those before a `clear:` no longer apply).
 *
 * @param read the compiled history
 * @param part the new part's raw messages (their cuts apply)
 * @param cwd working directory (for `format:` files)
 * @returns the history (`chat`), its options and where their lines were written
 */
export function historyToSend(
  read: CompiledHistory,
  part: readonly Message[],
  cwd: string,
): ExtractedOptions {
  return extractOptions(cutHistory(read.compiled, part), {
    ...(read.origin !== undefined ? { origin: read.origin } : {}),
    cwd,
  });
}
