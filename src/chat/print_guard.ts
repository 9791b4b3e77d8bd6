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
 * Like the parser, it works on positions in the body, slices a line only
 * when a rare rule needs it as a string, and builds the result once.
 *
 * @module
 */
import { escapePoints, isEscapedLine } from "./escape.ts";
import { CMD_OPEN, lastCloserOffsets, XML_CLOSE, XML_OPEN } from "./parse.ts";
import { firstNonSpace, roleNameLength, stripRange } from "./text.ts";

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

/**
 * A test "does the line [from, to) contain `needle`?" that remembers the next
 * occurrence, so a forward walk searches the body once (scans that go back
 * to an earlier line search again from there).
 */
function contains(body: string, needle: string): (from: number, to: number) => boolean {
  let searched = Infinity; // searched from there on (none yet)
  let at = -1;
  return (from, to) => {
    if (from < searched || (at !== -1 && at < from)) {
      searched = from;
      at = body.indexOf(needle, from);
    }
    return at !== -1 && at < to;
  };
}

/** Line helpers over one body. */
function scanner(body: string) {
  const hasCmdMarker = contains(body, ":-- ");
  const hasCloser = contains(body, "</");
  const hasCmdEscape = contains(body, ":--\\");
  const lineEnd = (from: number): number => {
    const nl = body.indexOf("\n", from);
    return nl === -1 ? body.length : nl;
  };
  /** True if the stripped line (first non-space at `i`) starts with a fence. */
  const isFence = (i: number, to: number): boolean => i + 3 <= to && body.startsWith("```", i);
  /** Rows 3/4 in Ruby (any mode): the line [from, to) opens `[[` or a command block. */
  const hijacks = (from: number, i: number, to: number): boolean =>
    (body.charCodeAt(i) === 91 && body.charCodeAt(i + 1) === 91) ||
    (hasCmdMarker(from, to) && CMD_OPEN.test(stripRange(body, from, to)));
  /**
   * Start of the line after the one that closes the fence opened before
   * `from`, or -1 if none does or a line before it would hijack it in Ruby.
   */
  const fenceEnd = (from: number): number => {
    for (let pos = from; pos <= body.length;) {
      const to = lineEnd(pos);
      const i = firstNonSpace(body, pos, to);
      if (isFence(i, to)) return to + 1;
      if (hijacks(pos, i, to)) return -1;
      pos = to + 1;
    }
    return -1;
  };
  /**
   * Start of the line after the one closing xml block `tag` (its first
   * closing tag is `</tag>`) opened before `from`; or `-h - 1`, h the start
   * of the line where the scan stopped: one Ruby would drop or act on, or the
   * end of the body (any later opener of `tag` before h fails too).
   */
  const xmlEnd = (from: number, tag: string): number => {
    let pos = from;
    while (pos <= body.length) {
      const to = lineEnd(pos);
      const i = firstNonSpace(body, pos, to);
      if (isFence(i, to) || hijacks(pos, i, to)) return -pos - 1;
      if (hasCloser(pos, to)) {
        const m = XML_CLOSE.exec(stripRange(body, pos, to));
        if (m !== null && m[1] === tag) return to + 1;
      }
      pos = to + 1;
    }
    return -pos - 1;
  };
  return { lineEnd, hasCmdMarker, hasCmdEscape, isFence, hijacks, fenceEnd, xmlEnd };
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
  const scan = scanner(body);
  const inserts: number[] = []; // offsets before which a `\` goes, ascending
  let closers: Map<string, number> | null = null;
  const xmlFail = new Map<string, number>();
  for (let pos = 0; pos <= body.length;) {
    const to = scan.lineEnd(pos);
    const next = to + 1;
    const i = firstNonSpace(body, pos, to);
    const c0 = i < to ? body.charCodeAt(i) : -1;
    let after = next; // start of the first line this step does not cover
    let escape = false;
    let rubyXml = false;
    let decided = false;
    if (c0 === 96 /* ` */ && scan.isFence(i, to)) {
      decided = true;
      const end = scan.fenceEnd(next);
      if (end === -1) escape = true;
      else after = end;
    } else if (
      (c0 === 91 /* [ */ || scan.hasCmdMarker(pos, to)) && scan.hijacks(pos, i, to)
    ) {
      decided = escape = true;
    } else if (c0 === 60 /* < */) {
      const m = XML_OPEN.exec(stripRange(body, pos, to));
      if (m !== null) {
        const tag = m[1]!;
        closers ??= lastCloserOffsets(body);
        const opens = !body.slice(pos, to).includes(`</${tag}>`) &&
          ((closers.get(tag) ?? -1) >= next || ctx.closedLater(tag));
        if (opens) {
          decided = true;
          const end = (xmlFail.get(tag) ?? -1) > pos ? -1 : scan.xmlEnd(next, tag);
          if (end >= 0) after = end;
          else {
            if (end < -1) xmlFail.set(tag, -end - 1);
            escape = true;
          }
        } else {
          rubyXml = ctx.closedAnywhere(tag);
        }
      }
    }
    if (!decided) {
      const n = roleNameLength(body, pos);
      escape = rubyXml || (n > 0 && pos + n < to && body.charCodeAt(pos + n) === 58) ||
        ((c0 === 92 || scan.hasCmdEscape(pos, to)) && isEscapedLine(body.slice(pos, to)));
    }
    if (escape) { for (const p of escapePoints(body.slice(pos, to))) inserts.push(pos + p); }
    pos = after;
  }
  if (inserts.length === 0) return body;
  let out = "";
  let at = 0;
  for (const p of inserts) {
    out += body.slice(at, p) + "\\";
    at = p;
  }
  return out + body.slice(at);
}
