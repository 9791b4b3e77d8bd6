/**
 * Where a compiled message was written (file and line), kept on the message
 * itself so that lines resolved at ask time — `tool:`, `introduce:`,
 * `endpoint:` of a user's chat or of an agent's `start_chat` — fail naming
 * them, long after the compile that knew it (defect R41-2).
 *
 * The mark is a non-enumerable symbol-keyed property: `print`, JSON, the
 * inference cache key and `deepStrictEqual` never see it, so chats written
 * stay byte-identical. Object spreads and `structuredClone` drop it: copies
 * that must keep it use {@link keepWrittenAt} / {@link copyMessages}.
 * Messages built in code carry none (their errors name no file). On an
 * agent's task route the job reads its chat from the printed input; the route
 * hands the job the messages it printed, in memory, and the job's read gives
 * their marks back ({@link keepWrittenAtParsed}).
 *
 * @module
 */
import { isScoutError } from "../errors.ts";
import type { Message } from "./types.ts";

/** The mark's key (registered: survives bundles and realms). */
export const WRITTEN_AT: unique symbol = Symbol.for("scout-ai.written_at");

/** Where a message was written. */
export interface WrittenAt {
  /** The chat file as named in errors (as given, or relative to the cwd for imports). */
  readonly file: string;
  /** 1-based line of the message's header. */
  readonly line: number;
}

/** Where an option in force was set: its message's {@link WrittenAt} and the value it set. */
export interface OptionLine extends WrittenAt {
  /** The value the line set (an error uses the line only while this is the value in use). */
  readonly value: unknown;
}

/**
 * Where a message was written, if it carries the mark.
 *
 * @param m a message (or any object)
 * @returns file and line, or undefined
 *
 * @example
 * ```ts
 * import { markWrittenAt, writtenAt } from "./written_at.ts";
 * const m = markWrittenAt({ role: "tool", content: "X" }, { file: "a.chat", line: 3 });
 * writtenAt(m); // { file: "a.chat", line: 3 }
 * writtenAt({ ...m }); // undefined: spreads drop the mark
 * ```
 */
export function writtenAt(m: object): WrittenAt | undefined {
  return (m as { [WRITTEN_AT]?: WrittenAt })[WRITTEN_AT];
}

/**
 * Marks a message with where it was written (non-enumerable).
 *
 * @param m the message (modified)
 * @param at file and line
 * @returns `m`
 */
export function markWrittenAt<T extends object>(m: T, at: WrittenAt): T {
  Object.defineProperty(m, WRITTEN_AT, { value: at, configurable: true, writable: true });
  return m;
}

/**
 * Gives a copy the mark of its original, if it has one.
 *
 * @param from the original
 * @param to the copy (modified)
 * @returns `to`
 */
export function keepWrittenAt<T extends object>(from: object, to: T): T {
  const at = writtenAt(from);
  return at === undefined ? to : markWrittenAt(to, at);
}

/**
 * `structuredClone` of messages, each copy keeping its original's mark.
 *
 * @param messages the messages
 * @returns the copies
 */
export function copyMessages(messages: readonly Message[]): Message[] {
  return structuredClone(messages as Message[]).map((m, i) => keepWrittenAt(messages[i]!, m));
}

/**
 * Gives messages parsed back from `print(originals)` the marks of their
 * originals, position by position (a leading empty `user` of the parse, the
 * blank line `print` begins with, is skipped). A message whose role, or whose
 * text, differs from its original's keeps none; when the counts do not match,
 * none is given.
 *
 * @param parsed the messages read back (modified)
 * @param originals the messages that were printed
 * @returns `parsed`
 */
export function keepWrittenAtParsed(
  parsed: Message[],
  originals: readonly Message[],
): Message[] {
  const skip = parsed.length - originals.length;
  if (skip === 1 ? !isBlankUser(parsed[0]!) : skip !== 0) return parsed;
  originals.forEach((original, i) => {
    const copy = parsed[i + skip]!;
    if (copy.role !== original.role || !sameText(copy.content, original.content)) return;
    keepWrittenAt(original, copy);
  });
  return parsed;
}

const isBlankUser = (m: Message) => m.role === "user" && String(m.content).trim() === "";

function sameText(a: unknown, b: unknown): boolean {
  return typeof a === "string" && typeof b === "string" && a.trim() === b.trim();
}

/**
 * Gives an error thrown on behalf of a written line that line's file and
 * line, unless it already names a file.
 *
 * @param e what was thrown
 * @param at where the line was written, if known
 * @returns `e`
 */
export function locateAt(e: unknown, at: WrittenAt | undefined): unknown {
  if (at === undefined || !isScoutError(e) || e.file !== undefined) return e;
  e.file = at.file;
  e.line = at.line;
  return e;
}

/**
 * Option lines of two sources, the second's over the first's (a call's over
 * an agent's start chat's); undefined when neither has any.
 *
 * @param under the lower source's lines
 * @param over the higher source's lines
 * @returns the merged lines, or undefined
 */
export function mergeOptionLines(
  under: Record<string, OptionLine> | undefined,
  over: Record<string, OptionLine> | undefined,
): Record<string, OptionLine> | undefined {
  if (under === undefined || over === undefined) return over ?? under;
  return { ...under, ...over };
}
