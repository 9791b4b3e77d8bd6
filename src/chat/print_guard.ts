/**
 * The printer's guard (`docs/spec-notes/chat.md`, D26): which lines of a
 * message body to escape so that the parser reads the body back exactly, in
 * its own message, and the Ruby parser reads it as the same message too.
 *
 * It replays the parser over the body, outside blocks:
 * - a fence or xml block is kept as it is when it closes within the message
 *   and holds no line the Ruby parser would treat otherwise (a `[[` or
 *   command-block opener, which Ruby lets take over any block, or a fence line
 *   inside an xml block, which Ruby drops); otherwise its opening line is
 *   escaped and the lines after it are read outside blocks;
 * - `[[` and command-block openers are always escaped (the parser rewrites
 *   them), and so are headers and lines that already look escaped;
 * - an opening-tag line that the port reads as text but Ruby would open an xml
 *   block on (its closer is anywhere in the chat, even on the same line or
 *   earlier) is escaped.
 *
 * @module
 */
import { escapeLine, isEscapedLine } from "./escape.ts";
import { CMD_OPEN, lastCloserOffsets, XML_CLOSE, XML_OPEN } from "./parse.ts";
import { firstNonSpace, isHeaderLine, rubyStrip } from "./text.ts";

/** What the guard needs to know about the rest of the printed chat. */
export interface GuardContext {
  /** True if `</tag>` occurs in the text printed after this message. */
  closedLater(tag: string): boolean;
  /** True if `</tag>` occurs anywhere in the printed chat. */
  closedAnywhere(tag: string): boolean;
}

/**
 * A body without any line that starts (after spaces) with ```` ``` ````,
 * `[[`, `<` or `\`, without a column-0 header and without `:--` needs no
 * escape: the common case, found with one scan.
 */
const MAYBE_SPECIAL = /(?:^|\n)[ \t\v\f\r\0]*(?:```|\[\[|<|\\)|(?:^|\n)[a-z0-9_]+:|:--/;

/** The stripped line, if it starts with ```` ``` ````. */
function isFence(s: string): boolean {
  return s.startsWith("```");
}

/** A line the Ruby parser acts on inside any block: `[[` or a cmd opener. */
function hijacks(line: string, s: string): boolean {
  return s.startsWith("[[") || (line.includes(":-- ") && CMD_OPEN.test(s));
}

/**
 * The line that closes the fence opened on line `i`, or -1 if none does
 * within the body or a line before it would hijack the block in Ruby.
 */
function fenceEnd(lines: string[], i: number): number {
  for (let k = i + 1; k < lines.length; k++) {
    const line = lines[k]!;
    const s = rubyStrip(line);
    if (isFence(s)) return k;
    if (hijacks(line, s)) return -1;
  }
  return -1;
}

/**
 * The line that closes the xml block `tag` opened on line `i` (its first
 * closing tag is `</tag>`), and whether it does so within the body without a
 * line Ruby would drop or act on: `{end}` or `{fail}`, the line where the scan
 * stopped (any later opener of the same tag before it fails too).
 */
function xmlEnd(lines: string[], i: number, tag: string): { end: number } | { fail: number } {
  for (let k = i + 1; k < lines.length; k++) {
    const line = lines[k]!;
    const s = rubyStrip(line);
    if (isFence(s) || hijacks(line, s)) return { fail: k };
    if (line.includes("</")) {
      const m = XML_CLOSE.exec(s);
      if (m !== null && m[1] === tag) return { end: k };
    }
  }
  return { fail: lines.length };
}

/**
 * Escapes the lines of a message body that need it (see the module doc).
 *
 * @param body trimmed message text
 * @param ctx what the rest of the chat holds
 * @returns the body to print (`body` itself when nothing needs an escape)
 */
export function guardBody(body: string, ctx: GuardContext): string {
  if (!MAYBE_SPECIAL.test(body)) return body;
  const lines = body.split("\n");
  let changed = false;
  const escape = (i: number) => {
    lines[i] = escapeLine(lines[i]!);
    changed = true;
  };
  let closers: Map<string, number> | null = null;
  const xmlFail = new Map<string, number>();
  let at = 0; // offset of line i in body
  for (let i = 0; i < lines.length;) {
    const line = lines[i]!;
    const next = at + line.length + 1;
    const c0 = line.charCodeAt(firstNonSpace(line, 0, line.length));
    let end = i; // the last line this step covers
    let rubyXml = false;
    if (c0 === 96 /* ` */ || c0 === 91 /* [ */ || c0 === 60 /* < */ || line.includes(":-- ")) {
      const s = rubyStrip(line);
      if (isFence(s)) {
        const j = fenceEnd(lines, i);
        if (j === -1) escape(i);
        else end = j;
      } else if (hijacks(line, s)) {
        escape(i);
      } else if (c0 === 60) {
        const m = XML_OPEN.exec(s);
        if (m !== null) {
          const tag = m[1]!;
          closers ??= lastCloserOffsets(body);
          const opens = !line.includes(`</${tag}>`) &&
            ((closers.get(tag) ?? -1) >= next || ctx.closedLater(tag));
          if (opens) {
            const failed = (xmlFail.get(tag) ?? -1) > i;
            const r = failed ? null : xmlEnd(lines, i, tag);
            if (r !== null && "end" in r) end = r.end;
            else {
              if (r !== null) xmlFail.set(tag, r.fail);
              escape(i);
            }
          } else {
            rubyXml = ctx.closedAnywhere(tag);
          }
        }
      }
    }
    if (end === i && lines[i] === line) {
      if (isHeaderLine(line) || isEscapedLine(line) || rubyXml) escape(i);
    }
    at = next;
    for (let k = i + 1; k <= end; k++) at += lines[k]!.length + 1;
    i = end + 1;
  }
  return changed ? lines.join("\n") : body;
}
