/**
 * The `.chat` text parser (`chat.md` §2): a line-by-line state machine that
 * reproduces the Ruby parser, quirks included, except the items the spec marks
 * DIVERGE (D1 escapes, D3 xml protection, D4 one-line `[[x]]` and separate
 * `[[`/`{{{` modes, D5 only a block's own closer is special, D6 whitespace
 * tail, D8 bare directive headers).
 *
 * Pure and total: never throws, on any string.
 *
 * @module
 */
import type { Chat } from "./types.ts";
import { escapedHeaderDepth, isBlank, roleNameLength, rubyStrip, SPACE, WORD } from "./text.ts";

const enum Mode {
  None,
  Fence,
  Square,
  Cmd,
  Xml,
}

/** Roles whose empty block survives parsing ([DIVERGE D8]). */
const KEEP_EMPTY_BLOCK = new Set(["clear", "clear_tools", "skip"]);
/** Inline headers after which text continues as `user`. */
const RESET_TO_USER = new Set(["previous_response_id", "agent"]);

/** Row 4: `^\S*:-- .* \{\{\{` on the stripped line (Ruby `.` = any char but `\n`). */
export const CMD_OPEN = new RegExp(String.raw`^[^ \t\n\v\f\r]*:-- [^\n]* \{\{\{`);
const CMD_OPEN_REPLACE = new RegExp(String.raw`^[^ \t\n\v\f\r]*:-- ([^\n]*) \{\{\{[^\n]*`);
/**
 * Row 5: `^.*:--.* \}\}\}` on the stripped line, written so that it anchors on
 * the first `:--` (same matches, linear time: the literal form backtracks
 * quadratically on a long line full of `:--` without a closer).
 */
export const CMD_CLOSE = /^(?:(?!:--)[^\n])*:--[^\n]* \}\}\}/;
const CMD_CLOSE_REPLACE = /^(?:(?!:-- )[^\n])*:-- [^\n]* \}\}\}[^\n]*/;
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

/**
 * The parser's one state machine. With `lines`, it also records each
 * message's start line (the tracking is skipped entirely when null, so
 * {@link parse} pays nothing for it).
 */
function parseCore(text: string, initialRole: string, lines: number[] | null): Chat {
  const out: Chat = [];
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 10) end--;
  if (end === 0) return out;

  let role = initialRole;
  let buf = "";
  let freshBlock = false;
  let mode = Mode.None;
  const xmlStack: string[] = [];
  let closers: Map<string, number> | null = null;

  // Line tracking (only when `lines` is given).
  let lineNo = 0;
  let headerLine = 0; // line of the current block header, 0 after an inline header
  let textLine = 0; // first non-blank line buffered since the last header
  const push = (r: string, content: string, at: number) => {
    out.push({ role: r, content });
    if (lines !== null) lines.push(at);
  };
  const add = (l: string) => {
    buf += "\n" + l;
    if (lines !== null && textLine === 0 && !isBlank(l)) textLine = lineNo;
  };

  const flush = () => {
    const t = rubyStrip(buf);
    if (t !== "") push(role, t, headerLine || textLine || lineNo);
    else if (out.length === 0) push(role, "", headerLine || lineNo);
    else if (freshBlock && KEEP_EMPTY_BLOCK.has(role)) push(role, "", headerLine || lineNo);
    freshBlock = false;
  };

  // Row 7 with [DIVERGE D3]: enter xml mode only if the opening line lacks
  // `</tag>` and a later line has it.
  const opensXml = (l: string, nextLineStart: number): boolean => {
    const m = XML_OPEN.exec(rubyStrip(l));
    if (m === null) return false;
    const tag = m[1]!;
    if (l.includes(`</${tag}>`)) return false;
    closers ??= lastCloserOffsets(text, end);
    const last = closers.get(tag);
    if (last === undefined || last < nextLineStart) return false;
    xmlStack.push(tag);
    mode = Mode.Xml;
    return true;
  };

  let pos = 0;
  for (;;) {
    let nl = text.indexOf("\n", pos);
    if (nl === -1 || nl > end) nl = end;
    const line = text.slice(pos, nl);
    const next = nl + 1;
    pos = next;
    lineNo++;

    if (mode === Mode.None) {
      const c0 = firstNonSpace(line);
      if (c0 === 96 /* ` */ && rubyStrip(line).startsWith("```")) {
        mode = Mode.Fence;
        add(line);
      } else if (c0 === 91 /* [ */ && rubyStrip(line).startsWith("[[")) {
        const { text: rest, closed } = openSquare(line);
        if (!closed) mode = Mode.Square;
        if (!isBlank(rest)) add(rest);
      } else if (line.includes(":-- ") && CMD_OPEN.test(rubyStrip(line))) {
        mode = Mode.Cmd;
        const replaced = line.replace(
          CMD_OPEN_REPLACE,
          (_m, cmd: string) => `<cmd_output cmd="${cmd}">`,
        );
        if (!isBlank(replaced)) add(replaced);
      } else if (c0 === 60 /* < */ && opensXml(line, next)) {
        add(line);
      } else {
        const n = roleNameLength(line);
        if (n > 0 && line.charCodeAt(n) === 58 /* : */) {
          const name = line.slice(0, n);
          const inline = rubyStrip(line.slice(n + 1));
          flush();
          buf = "";
          textLine = 0;
          if (inline === "") {
            role = name;
            headerLine = lineNo;
            freshBlock = true;
          } else {
            push(name, inline, lineNo);
            headerLine = 0;
            if (RESET_TO_USER.has(name)) role = "user";
          }
        } else if (line.charCodeAt(0) === 92 /* \ */ && escapedHeaderDepth(line) > 0) {
          add(line.slice(1));
        } else {
          add(line);
        }
      }
    } else if (mode === Mode.Fence) {
      if (rubyStrip(line).startsWith("```")) mode = Mode.None;
      add(line);
    } else if (mode === Mode.Square) {
      if (rubyStrip(line).endsWith("]]")) {
        mode = Mode.None;
        const rest = line.replace("]]", "");
        if (!isBlank(rest)) add(rest);
      } else {
        add(line);
      }
    } else if (mode === Mode.Cmd) {
      if (line.includes(":--") && CMD_CLOSE.test(rubyStrip(line))) {
        mode = Mode.None;
        const replaced = line.replace(CMD_CLOSE_REPLACE, "</cmd_output>");
        if (!isBlank(replaced)) add(replaced);
      } else {
        add(line);
      }
    } else {
      // Mode.Xml
      if (line.includes("</")) {
        const m = XML_CLOSE.exec(rubyStrip(line));
        if (m !== null && m[1] === xmlStack[xmlStack.length - 1]) xmlStack.pop();
        if (xmlStack.length === 0) mode = Mode.None;
      }
      add(line);
    }

    if (nl >= end) break;
  }

  if (!isBlank(buf)) push(role, rubyStrip(buf), headerLine || textLine);
  else if (freshBlock && KEEP_EMPTY_BLOCK.has(role)) push(role, "", headerLine);
  return out;
}

function firstNonSpace(line: string): number {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (!(c === 32 || (c >= 9 && c <= 13) || c === 0)) return c;
  }
  return -1;
}
