/**
 * The reference reading of `chat.md` §2 for tests: the parser's rules
 * applied line by line to sliced lines, concatenating each message's lines —
 * the straightforward form of the state machine in `src/chat/parse.ts`,
 * which works on positions and slices each message once. A property test
 * requires both to give the same messages and start lines on any text.
 *
 * The line escapes (D26 of `docs/spec-notes/chat.md`) are written here as
 * the regular expressions the notes give, independently of
 * `src/chat/escape.ts`, so the property also checks that scanner.
 *
 * @module
 */
import type { Chat } from "../../src/chat/types.ts";
import { isBlank, roleNameLength, rubyStrip, SPACE, WORD } from "../../src/chat/text.ts";
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
} from "../../src/chat/parse.ts";

/** Leading and trailing Ruby-strip space of a line, and what lies between. */
const STRIPPED = /^([ \t\n\v\f\r\0]*)(.*?)([ \t\n\v\f\r\0]*)$/s;
/** D26 cmd escape: `\S*:--` + one or more `\` + ` … {{{`; drop one `\`. */
const CMD_ESCAPED = /^([^ \t\n\v\f\r]*:--)\\(\\* [^\n]* \{\{\{)/;
/** D26 lead escape after trimming: `\`+ then a fence, `[[` or an opening tag. */
const LEAD_ESCAPED = new RegExp(
  String.raw`^\\+(?:\x60{3}|\[\[|<${WORD}+(?:${SPACE}+[^>]*)?>)`,
  "u",
);
/** D26 lead escape at column 0: `\`+ then a header word and `:`. */
const HEADER_ESCAPED = /^\\+[a-z0-9_]+:/;
/** R95-2 lead escape at column 0: `\`+ then a merge-conflict marker, the rest of the line. */
const MARKER_ESCAPED = /^\\+(?:(?:<{7}|\|{7}|>{7})(?: .*)?|={7})$/s;

/** The D26 unescape of one line, or null if it holds no escape. */
function unescapeReference(line: string): string | null {
  const [, pre, core, post] = STRIPPED.exec(line)!;
  let t = core!.replace(CMD_ESCAPED, "$1$2");
  let changed = t !== core;
  if (LEAD_ESCAPED.test(t) || (pre === "" && (HEADER_ESCAPED.test(t) || MARKER_ESCAPED.test(t)))) {
    t = t.slice(1);
    changed = true;
  }
  return changed ? pre + t + post : null;
}

const enum Mode {
  None,
  Fence,
  Square,
  Cmd,
  Xml,
}

/**
 * Parses `text` line by line (see the module doc).
 *
 * @param text chat text
 * @param initialRole role of text before the first header
 * @returns the messages and each one's start line
 */
export function referenceParse(
  text: string,
  initialRole = "user",
): { chat: Chat; lines: number[] } {
  const lines: number[] = [];
  return { chat: parseCore(text, initialRole, lines), lines };
}

function parseCore(text: string, initialRole: string, lines: number[] | null): Chat {
  const out: Chat = [];
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 10) end--;
  if (end === 0) return out;

  let role = initialRole;
  let buf = "";
  let freshBlock = false;
  let sawSquare = false; // a `[[` block right after a block header (D27)
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
        if (freshBlock) sawSquare = true;
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
        } else {
          add(unescapeReference(line) ?? line);
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
  else if (freshBlock && (sawSquare || KEEP_EMPTY_BLOCK.has(role))) push(role, "", headerLine);
  return out;
}

function firstNonSpace(line: string): number {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (!(c === 32 || (c >= 9 && c <= 13) || c === 0)) return c;
  }
  return -1;
}
