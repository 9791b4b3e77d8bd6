/**
 * Line numbers for compile errors: the line each parsed message starts on
 * (its header line, or the first line of its text when it has no header),
 * from the parser's own state machine ({@link parseWithLines}).
 *
 * @module
 */
import type { Message } from "./types.ts";
import { parseWithLines } from "./parse.ts";

/**
 * The 1-based line each parsed message starts on.
 *
 * @param text the chat text that was parsed
 * @param parsed `parse(text)` (checked: if it is not the parse of `text` the
 *   lines are reported unknown rather than wrong)
 * @returns one line number per message, or all `undefined` when `parsed`
 *   does not match `text`
 */
export function messageLines(text: string, parsed: readonly Message[]): (number | undefined)[] {
  const { chat, lines } = parseWithLines(text);
  if (chat.length !== parsed.length || chat.some((m, i) => m.role !== String(parsed[i]!.role))) {
    return parsed.map(() => undefined);
  }
  return lines;
}
