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
import { unescapeLine } from "./escape.ts";
import {
  firstNonSpace,
  isBlank,
  isBlankRange,
  lastNonSpace,
  roleNameLength,
  rubyStrip,
  SPACE,
  stripRange,
  WORD,
} from "./text.ts";

const enum Mode {
  None,
  Fence,
  Square,
  Cmd,
  Xml,
}

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
 *
 * It works on positions in `text`: a line is sliced only when a rare rule
 * needs it as a string (a `[[`, `{{{`, xml or escaped-header line), and a
 * message whose lines are all kept as they are (nearly all of them) is one
 * slice of `text` rather than a concatenation of its lines. The rules are
 * those of the line-by-line reading `chat.md` §2 describes; only the
 * bookkeeping differs.
 */
function parseCore(text: string, initialRole: string, lines: number[] | null): Chat {
  const out: Chat = [];
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 10) end--;
  if (end === 0) return out;

  let role = initialRole;
  let freshBlock = false;
  // A `[[` block opened in the body of the current block header: an empty
  // body with one is an empty message of that role (D27).
  let sawSquare = false;
  let mode = Mode.None;
  const xmlStack: string[] = [];
  let closers: Map<string, number> | null = null;

  // The text buffered since the last header, "\n" before each line: nothing
  // (Buffer.Empty); the lines text[rangeStart, rangeEnd) as they are
  // (Buffer.Range); or, once a line was changed or skipped, the string `buf`.
  let kind = Buffer.Empty;
  let rangeStart = 0;
  let rangeEnd = 0;
  let buf = "";

  // Line tracking (only when `lines` is given).
  let lineNo = 0;
  let headerLine = 0; // line of the current block header, 0 after an inline header
  let textLine = 0; // first non-blank line buffered since the last header
  const push = (r: string, content: string, at: number) => {
    out.push({ role: r, content });
    if (lines !== null) lines.push(at);
  };
  const materialize = () => {
    if (kind === Buffer.Range) buf = "\n" + text.slice(rangeStart, rangeEnd);
    else if (kind === Buffer.Empty) buf = "";
    kind = Buffer.Text;
  };
  /** Buffers the line text[a, b) unchanged. */
  const addRange = (a: number, b: number) => {
    if (kind === Buffer.Empty) {
      kind = Buffer.Range;
      rangeStart = a;
      rangeEnd = b;
    } else if (kind === Buffer.Range && a === rangeEnd + 1) {
      rangeEnd = b;
    } else {
      materialize();
      buf += "\n" + text.slice(a, b);
    }
    if (lines !== null && textLine === 0 && !isBlankRange(text, a, b)) textLine = lineNo;
  };
  /** Buffers a changed line. */
  const addText = (l: string) => {
    materialize();
    buf += "\n" + l;
    if (lines !== null && textLine === 0 && !isBlank(l)) textLine = lineNo;
  };
  /** The buffered text, stripped. */
  const content = (): string =>
    kind === Buffer.Range
      ? stripRange(text, rangeStart, rangeEnd)
      : kind === Buffer.Text
      ? rubyStrip(buf)
      : "";

  const flush = () => {
    const t = content();
    if (t !== "") push(role, t, headerLine || textLine || lineNo);
    else if (out.length === 0) push(role, "", headerLine || lineNo);
    else if (freshBlock && (sawSquare || KEEP_EMPTY_BLOCK.has(role))) {
      push(role, "", headerLine || lineNo);
    }
    freshBlock = false;
    sawSquare = false;
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

  // Next offsets of the substrings some rules look for in a line (-1: none
  // left), searched again only once passed: linear on any text.
  let cmdAt = 0; // ":--" (rows 4 and the D26 command escape)
  let cmdCloseAt = 0; // ":--"
  let xmlCloseAt = 0; // "</"

  let pos = 0;
  for (;;) {
    let nl = text.indexOf("\n", pos);
    if (nl === -1 || nl > end) nl = end;
    const from = pos; // the line is text[from, nl)
    const next = nl + 1;
    pos = next;
    lineNo++;

    if (mode === Mode.None) {
      const i = firstNonSpace(text, from, nl);
      const c0 = i === nl ? -1 : text.charCodeAt(i);
      if (cmdAt !== -1 && cmdAt < from) cmdAt = text.indexOf(":--", from);
      if (c0 === 96 /* ` */ && i + 3 <= nl && text.startsWith("```", i)) {
        mode = Mode.Fence;
        addRange(from, nl);
      } else if (c0 === 91 /* [ */ && i + 2 <= nl && text.charCodeAt(i + 1) === 91) {
        const { text: rest, closed } = openSquare(text.slice(from, nl));
        if (!closed) mode = Mode.Square;
        if (freshBlock) sawSquare = true;
        if (!isBlank(rest)) addText(rest);
      } else if (
        cmdAt !== -1 && cmdAt < nl && CMD_OPEN.test(rubyStrip(text.slice(from, nl)))
      ) {
        mode = Mode.Cmd;
        const replaced = text.slice(from, nl).replace(
          CMD_OPEN_REPLACE,
          (_m, cmd: string) => `<cmd_output cmd="${cmd}">`,
        );
        if (!isBlank(replaced)) addText(replaced);
      } else if (c0 === 60 /* < */ && opensXml(text.slice(from, nl), next)) {
        addRange(from, nl);
      } else {
        const n = roleNameLength(text, from);
        if (n > 0 && from + n < nl && text.charCodeAt(from + n) === 58 /* : */) {
          const name = text.slice(from, from + n);
          const inline = stripRange(text, from + n + 1, nl);
          flush();
          kind = Buffer.Empty;
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
        } else if (c0 === 92 /* \ */ || (cmdAt !== -1 && cmdAt < nl)) {
          // D26 escapes: a lead `\` (first non-space) or one after a `:--`.
          const u = unescapeLine(text.slice(from, nl));
          if (u !== null) addText(u);
          else addRange(from, nl);
        } else {
          addRange(from, nl);
        }
      }
    } else if (mode === Mode.Fence) {
      const i = firstNonSpace(text, from, nl);
      if (i + 3 <= nl && text.startsWith("```", i)) mode = Mode.None;
      addRange(from, nl);
    } else if (mode === Mode.Square) {
      const j = lastNonSpace(text, from, nl);
      if (j - 1 >= from && text.charCodeAt(j) === 93 && text.charCodeAt(j - 1) === 93) {
        mode = Mode.None;
        const rest = text.slice(from, nl).replace("]]", "");
        if (!isBlank(rest)) addText(rest);
      } else {
        addRange(from, nl);
      }
    } else if (mode === Mode.Cmd) {
      if (cmdCloseAt !== -1 && cmdCloseAt < from) cmdCloseAt = text.indexOf(":--", from);
      const line = cmdCloseAt !== -1 && cmdCloseAt < nl ? text.slice(from, nl) : null;
      if (line !== null && CMD_CLOSE.test(rubyStrip(line))) {
        mode = Mode.None;
        const replaced = line.replace(CMD_CLOSE_REPLACE, "</cmd_output>");
        if (!isBlank(replaced)) addText(replaced);
      } else {
        addRange(from, nl);
      }
    } else {
      // Mode.Xml
      if (xmlCloseAt !== -1 && xmlCloseAt < from) xmlCloseAt = text.indexOf("</", from);
      if (xmlCloseAt !== -1 && xmlCloseAt < nl) {
        const m = XML_CLOSE.exec(stripRange(text, from, nl));
        if (m !== null && m[1] === xmlStack[xmlStack.length - 1]) xmlStack.pop();
        if (xmlStack.length === 0) mode = Mode.None;
      }
      addRange(from, nl);
    }

    if (nl >= end) break;
  }

  const t = content();
  if (t !== "") push(role, t, headerLine || textLine);
  else if (freshBlock && (sawSquare || KEEP_EMPTY_BLOCK.has(role))) push(role, "", headerLine);
  return out;
}

/** What {@link parseCore} has buffered since the last header. */
const enum Buffer {
  Empty,
  Range,
  Text,
}
