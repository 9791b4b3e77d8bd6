/**
 * The `.chat` text parser (`chat.md` §2): a line-by-line state machine that
 * reproduces the Ruby parser, quirks included, except the items the spec marks
 * DIVERGE (D1 escapes, D3 xml protection, D4 one-line `[[x]]` and separate
 * `[[`/`{{{` modes, D5 only a block's own closer is special, D6 whitespace
 * tail, D8 bare directive headers) and the port's additions of
 * `docs/spec-notes/chat.md` (D26 line escapes, D27 empty-message marker).
 *
 * Pure and total: never throws, on any string.
 *
 * @module
 */
import type { Chat } from "./types.ts";
import { parseCore } from "./parse_machine.ts";

export {
  CMD_CLOSE,
  CMD_CLOSE_REPLACE,
  CMD_OPEN,
  CMD_OPEN_REPLACE,
  KEEP_EMPTY_BLOCK,
  lastCloserOffsets,
  openSquare,
  RESET_TO_USER,
  XML_CLOSE,
  XML_OPEN,
} from "./parse_rules.ts";

/**
 * Parses chat text into messages (`chat.md` §2).
 *
 * @param text chat text (LF or CRLF line ends)
 * @param initialRole role of text before the first header (default `user`)
 * @returns the messages; text starting with a header yields a leading
 *   `{role: initialRole, content: ""}` (parity quirk)
 *
 * @example
 * ```ts
 * import { parse } from "./parse.ts";
 * parse("system:\n\nBe brief\n\nuser: hi");
 * // [{role:"user",content:""},{role:"system",content:"Be brief"},{role:"user",content:"hi"}]
 * ```
 */
export function parse(text: string, initialRole = "user"): Chat {
  return parseCore(text, initialRole, null);
}

/**
 * {@link parse}, also giving the 1-based line each message starts on: its
 * header line, or the first non-blank line of its text when it has none
 * (what compile errors cite as `file:line`).
 *
 * @param text chat text
 * @param initialRole role of text before the first header
 * @returns the messages and one start line per message
 *
 * @example
 * ```ts
 * import { parseWithLines } from "./parse.ts";
 * parseWithLines("intro\n\nuser:\n\nhi").lines; // [1, 3]
 * ```
 */
export function parseWithLines(
  text: string,
  initialRole = "user",
): { chat: Chat; lines: number[] } {
  const lines: number[] = [];
  return { chat: parseCore(text, initialRole, lines), lines };
}
