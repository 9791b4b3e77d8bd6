/**
 * A `-c` chat that is also the `-o` chat, changed while the ask ran
 * (R101-4): another run continuing it appended its turn meanwhile (two
 * terminals), or it was edited. The `-o` append is locked, so both turns
 * land whole; but this turn was answered without the other, and its meta
 * records' chat totals (`_c`, inference.md §4.1/§4.3) were counted from the
 * file as it was read. At append time, under the lock, the file is compared
 * with what `-c` read (size and sha256): when it changed, a warning says so
 * and the `_c` of the metas appended are rebased on the file's last ones,
 * so every `_c` stays the running sum of the records. An unchanged file gets
 * exactly the messages given.
 *
 * @module
 */
import { currentMeta } from "../chat/meta_chat.ts";
import { parseMeta } from "../chat/meta.ts";
import { parse } from "../chat/parse.ts";
import type { Message } from "../chat/types.ts";
import {
  type ChatTotals,
  chatTotalsBase,
  chatTotalsOf,
  shiftChatTotals,
} from "../llm/meta_record.ts";
import { decodeUtf8 } from "../util/fs.ts";
import { sha256hex } from "../util/hash.ts";

/** What `-c` read of the chat `-o` appends to. */
export interface ChatSnapshot {
  /** Its size in bytes (0: it did not exist). */
  size: number;
  /** The sha256 of its bytes (hex). */
  sha256: string;
}

/**
 * The snapshot of the bytes `-c` read.
 *
 * @param bytes the file's bytes (empty when it did not exist)
 * @returns size and digest
 */
export function chatSnapshot(bytes: Uint8Array): ChatSnapshot {
  return { size: bytes.length, sha256: sha256hex(bytes) };
}

/** How the file differs from what was read: `appended` when what was read is still its start. */
export type ChatChange = "appended" | "rewritten";

/**
 * Whether the file changed since it was read, and how.
 *
 * @param seen what was read
 * @param now the file's bytes now
 * @returns null when unchanged
 */
export function chatChange(seen: ChatSnapshot, now: Uint8Array): ChatChange | null {
  if (now.length === seen.size && sha256hex(now) === seen.sha256) return null;
  if (now.length > seen.size && sha256hex(now.subarray(0, seen.size)) === seen.sha256) {
    return "appended";
  }
  return "rewritten";
}

/**
 * The warning of a changed chat.
 *
 * @param shown the chat as the user named it
 * @param change how it changed
 * @returns one line
 */
export function changedWarning(shown: string, change: ChatChange): string {
  const how = change === "appended" ? "another run appended to it" : "it was edited or replaced";
  const without = change === "appended" ? "it" : "the change";
  return `"${shown}" changed while this ask ran (${how}): this turn was answered without ${without}`;
}

/**
 * The messages with the `_c` of their metas rebased on the file's current
 * meta: each moved by the file's last `_c` less the totals the turn's first
 * meta with `_c` was built on. Unchanged when none has `_c`, or nothing moves.
 *
 * @param messages the messages to append
 * @param now the file's bytes now
 * @returns the messages (changed metas as new objects)
 */
export function rebaseTurn(messages: readonly Message[], now: Uint8Array): readonly Message[] {
  let base: ChatTotals | null = null;
  for (const m of messages) {
    if (m.role === "meta" && typeof m.content === "string") {
      base = chatTotalsBase(parseMeta(m.content));
      if (base !== null) break;
    }
  }
  if (base === null) return messages;
  const file = chatTotalsOf(currentMeta(parse(decodeUtf8(now).text)));
  const delta = {} as ChatTotals;
  for (const k of Object.keys(base) as (keyof ChatTotals)[]) delta[k] = file[k] - base[k];
  if (Object.values(delta).every((d) => d === 0)) return messages;
  return messages.map((m) =>
    m.role === "meta" && typeof m.content === "string" && chatTotalsBase(parseMeta(m.content))
      ? { ...m, content: shiftChatTotals(m.content, delta) }
      : m
  );
}

/**
 * The messages to append to a chat `-c` read as `seen`: as given when it is
 * unchanged; else, with a warning, rebased ({@link rebaseTurn}).
 *
 * @param messages the messages to append
 * @param now the file's bytes now (read under its lock)
 * @param o what `-c` read, the chat's name as given, where the warning goes
 * @returns the messages to append
 */
export function checkedTurn(
  messages: readonly Message[],
  now: Uint8Array,
  o: { seen: ChatSnapshot; shown: string; warn: (message: string) => void },
): readonly Message[] {
  const change = chatChange(o.seen, now);
  if (change === null) return messages;
  o.warn(changedWarning(o.shown, change));
  return rebaseTurn(messages, now);
}
