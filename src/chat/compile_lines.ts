/**
 * Line numbers for compile errors. `parse` returns messages without
 * positions; this pass replays the parser's block modes over the text
 * (with the parser's own delimiter predicates) to find the line each message
 * starts on: its header line, or the first line of its text when it has no
 * header. The result is checked against `parse`'s output (same count, same
 * roles); if the two ever disagree the lines are reported unknown rather
 * than wrong.
 *
 * @module
 */
import type { Message } from "./types.ts";
import {
  CMD_CLOSE,
  CMD_OPEN,
  lastCloserOffsets,
  openSquare,
  XML_CLOSE,
  XML_OPEN,
} from "./parse.ts";
import { escapedHeaderDepth, isBlank, roleNameLength, rubyStrip } from "./text.ts";

/** Roles whose empty block survives parsing ([DIVERGE D8]; mirrors parse.ts). */
const KEEP_EMPTY_BLOCK = new Set(["clear", "clear_tools", "skip"]);
const RESET_TO_USER = new Set(["previous_response_id", "agent"]);

const enum Mode {
  None,
  Fence,
  Square,
  Cmd,
  Xml,
}

/**
 * The 1-based line each parsed message starts on.
 *
 * @param text the chat text that was parsed
 * @param parsed `parse(text)`
 * @returns one line number per message, or all `undefined` if the replay
 *   disagrees with `parsed`
 */
export function messageLines(text: string, parsed: readonly Message[]): (number | undefined)[] {
  const lines = replay(text);
  if (
    lines.length !== parsed.length || lines.some((l, i) => l.role !== String(parsed[i]!.role))
  ) {
    return parsed.map(() => undefined);
  }
  return lines.map((l) => l.line);
}

interface Start {
  role: string;
  line: number;
}

function replay(text: string): Start[] {
  const out: Start[] = [];
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 10) end--;
  if (end === 0) return out;
  let role = "user";
  let blank = true; // buffer is blank
  let firstTextLine = 0; // line of the first non-blank buffered text
  let headerLine = 0; // line of the current block header (0: none)
  let freshBlock = false;
  let mode = Mode.None;
  const xmlStack: string[] = [];
  let closers: Map<string, number> | null = null;
  let lineNo = 0;

  const append = (s: string) => {
    if (blank && !isBlank(s)) {
      blank = false;
      firstTextLine = lineNo;
    }
  };
  const flush = (at: number) => {
    const start = headerLine || firstTextLine || at;
    if (!blank) out.push({ role, line: start });
    else if (out.length === 0) out.push({ role, line: headerLine || at });
    else if (freshBlock && KEEP_EMPTY_BLOCK.has(role)) out.push({ role, line: headerLine || at });
    freshBlock = false;
  };

  let pos = 0;
  for (;;) {
    let nl = text.indexOf("\n", pos);
    if (nl === -1 || nl > end) nl = end;
    const line = text.slice(pos, nl);
    const next = nl + 1;
    pos = next;
    lineNo++;
    const s = rubyStrip(line);
    if (mode === Mode.None) {
      if (s.startsWith("```")) {
        mode = Mode.Fence;
        append(line);
      } else if (s.startsWith("[[")) {
        const { text: rest, closed } = openSquare(line);
        if (!closed) mode = Mode.Square;
        if (!isBlank(rest)) append(rest);
      } else if (line.includes(":-- ") && CMD_OPEN.test(s)) {
        mode = Mode.Cmd;
        append("<cmd_output>");
      } else if (s.startsWith("<") && opensXml(line, next)) {
        append(line);
      } else {
        const n = roleNameLength(line);
        if (n > 0 && line.charCodeAt(n) === 58 /* : */) {
          const name = line.slice(0, n);
          const inline = rubyStrip(line.slice(n + 1));
          flush(lineNo);
          blank = true;
          firstTextLine = 0;
          if (inline === "") {
            role = name;
            headerLine = lineNo;
            freshBlock = true;
          } else {
            out.push({ role: name, line: lineNo });
            headerLine = 0;
            if (RESET_TO_USER.has(name)) role = "user";
          }
        } else {
          append(
            line.charCodeAt(0) === 92 /* \ */ && escapedHeaderDepth(line) > 0
              ? line.slice(1)
              : line,
          );
        }
      }
    } else if (mode === Mode.Fence) {
      if (s.startsWith("```")) mode = Mode.None;
      append(line);
    } else if (mode === Mode.Square) {
      if (s.endsWith("]]")) {
        mode = Mode.None;
        append(line.replace("]]", ""));
      } else append(line);
    } else if (mode === Mode.Cmd) {
      if (line.includes(":--") && CMD_CLOSE.test(s)) {
        mode = Mode.None;
        append("</cmd_output>");
      } else append(line);
    } else {
      if (line.includes("</")) {
        const m = XML_CLOSE.exec(s);
        if (m !== null && m[1] === xmlStack[xmlStack.length - 1]) xmlStack.pop();
        if (xmlStack.length === 0) mode = Mode.None;
      }
      append(line);
    }
    if (nl >= end) break;
  }
  if (!blank) out.push({ role, line: headerLine || firstTextLine });
  else if (freshBlock && KEEP_EMPTY_BLOCK.has(role)) out.push({ role, line: headerLine });
  return out;

  function opensXml(l: string, nextLineStart: number): boolean {
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
  }
}
