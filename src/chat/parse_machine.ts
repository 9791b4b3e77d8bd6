/**
 * The `.chat` parser's state machine (`chat.md` §2; the rules it applies:
 * `parse_rules.ts`; the public entry points: `parse.ts`).
 *
 * @module
 */
import type { Chat } from "./types.ts";
import { unescapeLine } from "./escape.ts";
import {
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
import {
  firstNonSpace,
  isBlank,
  isBlankRange,
  lastNonSpace,
  roleNameLength,
  rubyStrip,
  stripRange,
} from "./text.ts";

const enum Mode {
  None,
  Fence,
  Square,
  Cmd,
  Xml,
}

/**
 * The parser's one state machine. With `lines`, it also records each
 * message's start line (the tracking is skipped entirely when null, so
 * `parse` pays nothing for it).
 *
 * It works on positions in `text`: a line is sliced only when a rare rule
 * needs it as a string (a `[[`, `{{{`, xml or escaped-header line), and a
 * message whose lines are all kept as they are (nearly all of them) is one
 * slice of `text` rather than a concatenation of its lines. The rules are
 * those of the line-by-line reading `chat.md` §2 describes; only the
 * bookkeeping differs. Each mode reads its lines in a function of its own
 * over one {@link ParseState}.
 */
export function parseCore(text: string, initialRole: string, lines: number[] | null): Chat {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 10) end--;
  const s = parseState(text, end, initialRole, lines);
  if (end === 0) return s.out;
  let pos = 0;
  for (;;) {
    let nl = text.indexOf("\n", pos);
    if (nl === -1 || nl > end) nl = end;
    const from = pos; // the line is text[from, nl)
    pos = nl + 1;
    s.lineNo++;
    if (s.mode === Mode.None) lineNone(s, from, nl);
    else if (s.mode === Mode.Fence) lineFence(s, from, nl);
    else if (s.mode === Mode.Square) lineSquare(s, from, nl);
    else if (s.mode === Mode.Cmd) lineCmd(s, from, nl);
    else lineXml(s, from, nl);
    if (nl >= end) break;
  }
  const t = content(s);
  if (t !== "") push(s, s.role, t, s.headerLine || s.textLine);
  else if (s.freshBlock && (s.sawSquare || KEEP_EMPTY_BLOCK.has(s.role))) {
    push(s, s.role, "", s.headerLine);
  }
  return s.out;
}

/** Where {@link parseCore} is in its text. */
interface ParseState {
  /** The text, and where its content ends (trailing newlines cut). */
  readonly text: string;
  readonly end: number;
  /** The messages so far, and their start lines (null: not tracked). */
  readonly out: Chat;
  readonly lines: number[] | null;
  /** The role of the block being read. */
  role: string;
  /** The block was opened by a header line (not inline). */
  freshBlock: boolean;
  /**
   * A `[[` block opened in the body of the current block header: an empty
   * body with one is an empty message of that role (D27).
   */
  sawSquare: boolean;
  mode: Mode;
  readonly xmlStack: string[];
  /** The last offset of each xml closer (made on the first xml opener). */
  closers: Map<string, number> | null;
  /**
   * The text buffered since the last header, "\n" before each line: nothing
   * (Buffer.Empty); the lines text[rangeStart, rangeEnd) as they are
   * (Buffer.Range); or, once a line was changed or skipped, the string `buf`.
   */
  kind: Buffer;
  rangeStart: number;
  rangeEnd: number;
  buf: string;
  /** Line tracking (only when `lines` is given): the current line. */
  lineNo: number;
  /** Line of the current block header, 0 after an inline header. */
  headerLine: number;
  /** First non-blank line buffered since the last header. */
  textLine: number;
  /**
   * Next offsets of the substrings some rules look for in a line (-1: none
   * left), searched again only once passed: linear on any text. `cmdAt` and
   * `cmdCloseAt`: ":--" (row 4, the D26 command escape, the closer);
   * `xmlCloseAt`: "</".
   */
  cmdAt: number;
  cmdCloseAt: number;
  xmlCloseAt: number;
}

function parseState(
  text: string,
  end: number,
  role: string,
  lines: number[] | null,
): ParseState {
  return {
    text,
    end,
    out: [],
    lines,
    role,
    freshBlock: false,
    sawSquare: false,
    mode: Mode.None,
    xmlStack: [],
    closers: null,
    kind: Buffer.Empty,
    rangeStart: 0,
    rangeEnd: 0,
    buf: "",
    lineNo: 0,
    headerLine: 0,
    textLine: 0,
    cmdAt: 0,
    cmdCloseAt: 0,
    xmlCloseAt: 0,
  };
}

function push(s: ParseState, role: string, content: string, at: number): void {
  s.out.push({ role, content });
  if (s.lines !== null) s.lines.push(at);
}

function materialize(s: ParseState): void {
  if (s.kind === Buffer.Range) s.buf = "\n" + s.text.slice(s.rangeStart, s.rangeEnd);
  else if (s.kind === Buffer.Empty) s.buf = "";
  s.kind = Buffer.Text;
}

/** Buffers the line text[a, b) unchanged. */
function addRange(s: ParseState, a: number, b: number): void {
  if (s.kind === Buffer.Empty) {
    s.kind = Buffer.Range;
    s.rangeStart = a;
    s.rangeEnd = b;
  } else if (s.kind === Buffer.Range && a === s.rangeEnd + 1) {
    s.rangeEnd = b;
  } else {
    materialize(s);
    s.buf += "\n" + s.text.slice(a, b);
  }
  if (s.lines !== null && s.textLine === 0 && !isBlankRange(s.text, a, b)) s.textLine = s.lineNo;
}

/** Buffers a changed line. */
function addText(s: ParseState, l: string): void {
  materialize(s);
  s.buf += "\n" + l;
  if (s.lines !== null && s.textLine === 0 && !isBlank(l)) s.textLine = s.lineNo;
}

/** The buffered text, stripped. */
function content(s: ParseState): string {
  return s.kind === Buffer.Range
    ? stripRange(s.text, s.rangeStart, s.rangeEnd)
    : s.kind === Buffer.Text
    ? rubyStrip(s.buf)
    : "";
}

/** Ends the current block at a header: its message, if it makes one. */
function flush(s: ParseState): void {
  const t = content(s);
  if (t !== "") push(s, s.role, t, s.headerLine || s.textLine || s.lineNo);
  else if (s.out.length === 0) push(s, s.role, "", s.headerLine || s.lineNo);
  else if (s.freshBlock && (s.sawSquare || KEEP_EMPTY_BLOCK.has(s.role))) {
    push(s, s.role, "", s.headerLine || s.lineNo);
  }
  s.freshBlock = false;
  s.sawSquare = false;
}

/**
 * Row 7 with [DIVERGE D3]: enter xml mode only if the opening line lacks
 * `</tag>` and a later line has it.
 */
function opensXml(s: ParseState, l: string, nextLineStart: number): boolean {
  const m = XML_OPEN.exec(rubyStrip(l));
  if (m === null) return false;
  const tag = m[1]!;
  if (l.includes(`</${tag}>`)) return false;
  s.closers ??= lastCloserOffsets(s.text, s.end);
  const last = s.closers.get(tag);
  if (last === undefined || last < nextLineStart) return false;
  s.xmlStack.push(tag);
  s.mode = Mode.Xml;
  return true;
}

/** A line outside any protected block: an opener, a header, an escape or text. */
function lineNone(s: ParseState, from: number, nl: number): void {
  const text = s.text;
  const i = firstNonSpace(text, from, nl);
  const c0 = i === nl ? -1 : text.charCodeAt(i);
  if (s.cmdAt !== -1 && s.cmdAt < from) s.cmdAt = text.indexOf(":--", from);
  if (c0 === 96 /* ` */ && i + 3 <= nl && text.startsWith("```", i)) {
    s.mode = Mode.Fence;
    addRange(s, from, nl);
  } else if (c0 === 91 /* [ */ && i + 2 <= nl && text.charCodeAt(i + 1) === 91) {
    const { text: rest, closed } = openSquare(text.slice(from, nl));
    if (!closed) s.mode = Mode.Square;
    if (s.freshBlock) s.sawSquare = true;
    if (!isBlank(rest)) addText(s, rest);
  } else if (
    s.cmdAt !== -1 && s.cmdAt < nl && CMD_OPEN.test(rubyStrip(text.slice(from, nl)))
  ) {
    s.mode = Mode.Cmd;
    const replaced = text.slice(from, nl).replace(
      CMD_OPEN_REPLACE,
      (_m, cmd: string) => `<cmd_output cmd="${cmd}">`,
    );
    if (!isBlank(replaced)) addText(s, replaced);
  } else if (c0 === 60 /* < */ && opensXml(s, text.slice(from, nl), nl + 1)) {
    addRange(s, from, nl);
  } else {
    const n = roleNameLength(text, from);
    if (n > 0 && from + n < nl && text.charCodeAt(from + n) === 58 /* : */) {
      header(s, text.slice(from, from + n), stripRange(text, from + n + 1, nl));
    } else if (c0 === 92 /* \ */ || (s.cmdAt !== -1 && s.cmdAt < nl)) {
      // D26 escapes: a lead `\` (first non-space) or one after a `:--`.
      const u = unescapeLine(text.slice(from, nl));
      if (u !== null) addText(s, u);
      else addRange(s, from, nl);
    } else {
      addRange(s, from, nl);
    }
  }
}

/** A `role:` line: a block header (nothing after the colon) or an inline message. */
function header(s: ParseState, name: string, inline: string): void {
  flush(s);
  s.kind = Buffer.Empty;
  s.textLine = 0;
  if (inline === "") {
    s.role = name;
    s.headerLine = s.lineNo;
    s.freshBlock = true;
  } else {
    push(s, name, inline, s.lineNo);
    s.headerLine = 0;
    if (RESET_TO_USER.has(name)) s.role = "user";
  }
}

/** A line in a ``` fence: kept; a fence line closes it. */
function lineFence(s: ParseState, from: number, nl: number): void {
  const i = firstNonSpace(s.text, from, nl);
  if (i + 3 <= nl && s.text.startsWith("```", i)) s.mode = Mode.None;
  addRange(s, from, nl);
}

/** A line in a `[[` block: kept; a line ending in `]]` closes it (the `]]` removed). */
function lineSquare(s: ParseState, from: number, nl: number): void {
  const text = s.text;
  const j = lastNonSpace(text, from, nl);
  if (j - 1 >= from && text.charCodeAt(j) === 93 && text.charCodeAt(j - 1) === 93) {
    s.mode = Mode.None;
    const rest = text.slice(from, nl).replace("]]", "");
    if (!isBlank(rest)) addText(s, rest);
  } else {
    addRange(s, from, nl);
  }
}

/** A line in a `{{{` command block: kept; its closer becomes `</cmd_output>`. */
function lineCmd(s: ParseState, from: number, nl: number): void {
  if (s.cmdCloseAt !== -1 && s.cmdCloseAt < from) s.cmdCloseAt = s.text.indexOf(":--", from);
  const line = s.cmdCloseAt !== -1 && s.cmdCloseAt < nl ? s.text.slice(from, nl) : null;
  if (line !== null && CMD_CLOSE.test(rubyStrip(line))) {
    s.mode = Mode.None;
    const replaced = line.replace(CMD_CLOSE_REPLACE, "</cmd_output>");
    if (!isBlank(replaced)) addText(s, replaced);
  } else {
    addRange(s, from, nl);
  }
}

/** A line in an xml block: kept; the innermost tag's closer pops it. */
function lineXml(s: ParseState, from: number, nl: number): void {
  if (s.xmlCloseAt !== -1 && s.xmlCloseAt < from) s.xmlCloseAt = s.text.indexOf("</", from);
  if (s.xmlCloseAt !== -1 && s.xmlCloseAt < nl) {
    const m = XML_CLOSE.exec(stripRange(s.text, from, nl));
    if (m !== null && m[1] === s.xmlStack[s.xmlStack.length - 1]) s.xmlStack.pop();
    if (s.xmlStack.length === 0) s.mode = Mode.None;
  }
  addRange(s, from, nl);
}

/** What {@link parseCore} has buffered since the last header. */
const enum Buffer {
  Empty,
  Range,
  Text,
}
