/**
 * The line rules the `.chat` parser (`parse_machine.ts`) and the printer's
 * guards (`print.ts`, `print_guard.ts`) share (`chat.md` §2): the command
 * block's opener and closer, xml tags, `[[` blocks, and the roles whose empty
 * block survives.
 *
 * @module
 */
import { rubyStrip, SPACE, WORD } from "./text.ts";

/** Roles whose empty block survives parsing ([DIVERGE D8]). */
export const KEEP_EMPTY_BLOCK = new Set(["clear", "clear_tools", "skip"]);
/** Inline headers after which text continues as `user`. */
export const RESET_TO_USER = new Set(["previous_response_id", "agent"]);

/** Row 4: `^\S*:-- .* \{\{\{` on the stripped line (Ruby `.` = any char but `\n`). */
export const CMD_OPEN = new RegExp(String.raw`^[^ \t\n\v\f\r]*:-- [^\n]* \{\{\{`);
/** Row 4's replacement: the opening line becomes `<cmd_output cmd="…">`. */
export const CMD_OPEN_REPLACE = new RegExp(String.raw`^[^ \t\n\v\f\r]*:-- ([^\n]*) \{\{\{[^\n]*`);
/**
 * Row 5: `^.*:--.* \}\}\}` on the stripped line, written so that it anchors on
 * the first `:--` (same matches, linear time: the literal form backtracks
 * quadratically on a long line full of `:--` without a closer).
 */
export const CMD_CLOSE = /^(?:(?!:--)[^\n])*:--[^\n]* \}\}\}/;
/** Row 5's replacement: the closing line becomes `</cmd_output>`. */
export const CMD_CLOSE_REPLACE = /^(?:(?!:-- )[^\n])*:-- [^\n]* \}\}\}[^\n]*/;
/** Row 7: an opening xml tag at the start of the stripped line. */
export const XML_OPEN = new RegExp(String.raw`^<(${WORD}+)(?:${SPACE}+[^>]*)?>`, "u");
/** A closing xml tag anywhere in a line (first match). */
export const XML_CLOSE = new RegExp(String.raw`</(${WORD}+)>`, "u");
const XML_CLOSE_ALL = new RegExp(String.raw`</(${WORD}+)>`, "gu");

/**
 * Offsets of the last `</tag>` of each tag in `text[0, end)`: lets the parser
 * ask "does a later line close this tag?" in O(1) ([DIVERGE D3]).
 */
export function lastCloserOffsets(text: string, end = text.length): Map<string, number> {
  const map = new Map<string, number>();
  XML_CLOSE_ALL.lastIndex = 0;
  const scan = end === text.length ? text : text.slice(0, end);
  for (let m = XML_CLOSE_ALL.exec(scan); m !== null; m = XML_CLOSE_ALL.exec(scan)) {
    map.set(m[1]!, m.index);
  }
  return map;
}

/**
 * If the stripped line `s` opens a `[[` block: the line with its first `[[`
 * removed, and whether the block also closes on that line ([DIVERGE D4]).
 */
export function openSquare(line: string): { text: string; closed: boolean } {
  const rest = line.replace("[[", "");
  if (rubyStrip(rest).endsWith("]]")) return { text: rest.replace("]]", ""), closed: true };
  return { text: rest, closed: false };
}
