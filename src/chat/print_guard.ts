/**
 * The printer's guard (`docs/spec-notes/chat.md`, D26): which lines of a
 * message body to escape so that the parser reads the body back exactly, in
 * its own message, and the Ruby parser reads it as the same message too.
 *
 * It replays the parser over the body, outside blocks:
 * - a fence or xml block is kept as it is when it closes within the message
 *   and holds no line the Ruby parser would treat otherwise (a `[[` or
 *   command-block opener, which Ruby lets take over any block, or a fence line
 *   inside an xml block, which Ruby drops, or a merge-conflict marker line,
 *   which must be escaped); otherwise its opening line is
 *   escaped and the lines after it are read outside blocks;
 * - `[[` and command-block openers are always escaped (the parser rewrites
 *   them), and so are headers, column-0 merge-conflict markers (so that any
 *   unescaped one in a file is git's, R95-2) and lines that already look
 *   escaped;
 * - an opening-tag line that the port reads as text but Ruby would open an xml
 *   block on (its closer is anywhere in the chat, even on the same line or
 *   earlier) is escaped.
 *
 * Like the parser, it works on positions in the body, slices a line only
 * when a rare rule needs it as a string, and builds the result once.
 *
 * @module
 */
import { escapePoints, isConflictMarkerAt, isEscapedLine } from "./escape.ts";
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
 * True unless the body has no line that starts (after spaces) with
 * ```` ``` ````, `[[`, `<` or `\`, no column-0 `[a-z0-9_]+:` or `=======`,
 * `>>>>>>>`, `|||||||`, and no `:--`:
 * such a body needs no escape. The common case, found with one pass (faster
 * than the equivalent regular expression).
 */
function maybeSpecial(b: string): boolean {
  if (b.includes(":--")) return true;
  for (let pos = 0;;) {
    let i = pos;
    let c = b.charCodeAt(i);
    while (c === 32 || c === 9 || c === 0 || (c >= 11 && c <= 13)) c = b.charCodeAt(++i);
    if (c === 60 /* < */ || c === 92 /* \ */) return true;
    if (c === 96 /* ` */ && b.startsWith("```", i)) return true;
    if (c === 91 /* [ */ && b.charCodeAt(i + 1) === 91) return true;
    if (i === pos) {
      const n = roleNameLength(b, i);
      if (n > 0 && b.charCodeAt(i + n) === 58 /* : */) return true;
      if ((c === 61 || c === 62 || c === 124) && b.charCodeAt(i + 6) === c) return true;
    }
    const nl = b.indexOf("\n", i);
    if (nl === -1) return false;
    pos = nl + 1;
  }
}

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

/**
 * Memoises a search "first qualifying offset at or after `from`": the answer
 * for `from` holds for every start up to it, so a forward walk searches once.
 */
function remember(find: (from: number) => number): (from: number) => number {
  let asked = Infinity;
  let found = -1;
  return (from) => {
    if (from >= asked && from <= found) return found;
    asked = from;
    found = find(from);
    return found;
  };
}

/**
 * Start of the first line at or after `from` (a line start) whose stripped
 * form starts with `needle`, or `body.length + 1` if none: found by
 * searching the needle, not by walking lines.
 */
function lineStarting(body: string, needle: string): (from: number) => number {
  return (from) => {
    for (let k = body.indexOf(needle, from); k !== -1; k = body.indexOf(needle, k + 1)) {
      const start = body.lastIndexOf("\n", k - 1) + 1;
      if (firstNonSpace(body, start, k) === k) return start;
    }
    return body.length + 1;
  };
}

/** Start of the first command-opener line at or after `from`, or `body.length + 1`. */
function cmdLine(body: string, lineEnd: (from: number) => number): (from: number) => number {
  return (from) => {
    for (let k = body.indexOf(":-- ", from); k !== -1; k = body.indexOf(":-- ", k + 1)) {
      const start = body.lastIndexOf("\n", k - 1) + 1;
      const to = lineEnd(k);
      if (CMD_OPEN.test(stripRange(body, start, to))) return start;
      k = to;
    }
    return body.length + 1;
  };
}

/** Column-0 runs that may start a merge-conflict marker. */
const MARKER_RUN = /^(?:<{7}|={7}|>{7}|\|{7})/gm;

/** Start of the first merge-conflict marker line at or after `from`, or `body.length + 1`. */
function markerLine(body: string, lineEnd: (from: number) => number): (from: number) => number {
  return (from) => {
    const re = new RegExp(MARKER_RUN);
    re.lastIndex = from;
    for (let m = re.exec(body); m !== null; m = re.exec(body)) {
      const col0 = m.index === 0 || body.charCodeAt(m.index - 1) === 10; // not after a lone \r
      if (col0 && isConflictMarkerAt(body.slice(m.index, lineEnd(m.index)), 0)) return m.index;
      re.lastIndex = m.index + 1;
    }
    return body.length + 1;
  };
}

/** The line searches over one body, each memoised for a forward walk. */
interface Scanner {
  body: string;
  /** End of the line at `from` (its newline, or the body's end). */
  lineEnd: (from: number) => number;
  /** ":--" on a line: a prefilter for command openers and command escapes. */
  hasCmdMarker: (from: number, to: number) => boolean;
  /** Start of the first fence line at or after `from`, or `body.length + 1`. */
  fenceLine: (from: number) => number;
  /** Start of the first `[[` line at or after `from`, or `body.length + 1`. */
  squareLine: (from: number) => number;
  /** Start of the first command-opener line at or after `from`, or `body.length + 1`. */
  cmdOpenLine: (from: number) => number;
  /** Start of the first merge-conflict marker line at or after `from`, or `body.length + 1`. */
  markerLine: (from: number) => number;
  /** The first `</` at or after `from`, or `body.length + 1`: where a closing tag may be. */
  closerMark: (from: number) => number;
}

function scanner(body: string): Scanner {
  const lineEnd = (from: number): number => {
    const nl = body.indexOf("\n", from);
    return nl === -1 ? body.length : nl;
  };
  return {
    body,
    lineEnd,
    hasCmdMarker: contains(body, ":--"),
    fenceLine: remember(lineStarting(body, "```")),
    squareLine: remember(lineStarting(body, "[[")),
    cmdOpenLine: remember(cmdLine(body, lineEnd)),
    markerLine: remember(markerLine(body, lineEnd)),
    // memoised: each xml opener's scan would search again up to the next `</`, past its stop
    // (`"<a>\n```\n".repeat(n) + "</a>"` took quadratic time)
    closerMark: remember((from) => {
      const k = body.indexOf("</", from);
      return k === -1 ? body.length + 1 : k;
    }),
  };
}

/** True if the stripped line (first non-space at `i`, ending at `to`) starts with a fence. */
function isFence(body: string, i: number, to: number): boolean {
  return i + 3 <= to && body.startsWith("```", i);
}

/** True if the line [from, to) opens a command block (Ruby's row 4, any mode). */
function opensCommand(body: string, from: number, to: number): boolean {
  return CMD_OPEN.test(stripRange(body, from, to));
}

/**
 * Start of the line after the one that closes the fence opened before
 * `from`, or -1 if none does or a line before it would hijack it in Ruby.
 */
function fenceEnd(s: Scanner, from: number): number {
  const close = s.fenceLine(from);
  if (close > s.body.length) return -1;
  if (s.squareLine(from) < close || s.cmdOpenLine(from) < close) return -1;
  return s.lineEnd(close) + 1;
}

/**
 * Start of the line after the one closing xml block `tag` (its first
 * closing tag is `</tag>`) opened before `from`; or `-h - 1`, h the start
 * of the line where the scan stopped: one Ruby would drop or act on, a
 * merge-conflict marker, or the end of the body (any later opener of `tag` before h fails too).
 */
function xmlEnd(s: Scanner, from: number, tag: string): number {
  const { body } = s;
  // a marker line too: kept in the block it would stay unescaped, a conflict to `conflict.ts` (R95-2)
  const stop = Math.min(
    s.fenceLine(from),
    s.squareLine(from),
    s.cmdOpenLine(from),
    s.markerLine(from),
  );
  for (let k = s.closerMark(from); k < stop; k = s.closerMark(k)) {
    const start = body.lastIndexOf("\n", k - 1) + 1;
    const to = s.lineEnd(k);
    const m = XML_CLOSE.exec(stripRange(body, start, to));
    if (m !== null && m[1] === tag) return to + 1;
    k = to;
  }
  return -stop - 1;
}

/** The xml-block state of one walk over a body (made at its first `<` line). */
interface XmlWalk {
  scan: Scanner;
  ctx: GuardContext;
  /** The offset of each tag's last closer in the body (found at the first opener). */
  closers: Map<string, number> | null;
  /** Per tag, where a scan for its closer stopped: an opener before that fails too. */
  xmlFail: Map<string, number>;
}

/** Verdict: escape the line. */
const ESCAPE = -1;
/** Verdict: a plain line, kept as it is (of xmlVerdict: not an xml block, plain rules decide). */
const PLAIN = -2;

/**
 * The verdict on an opening-tag line [pos, to): the start of the line after
 * its block (kept whole), ESCAPE, or PLAIN when it opens no block here.
 */
function xmlVerdict(w: XmlWalk, pos: number, to: number): number {
  const { scan, ctx } = w;
  const { body } = scan;
  const m = XML_OPEN.exec(stripRange(body, pos, to));
  if (m === null) return PLAIN;
  const tag = m[1]!;
  const next = to + 1;
  w.closers ??= lastCloserOffsets(body);
  const opens = !body.slice(pos, to).includes(`</${tag}>`) &&
    ((w.closers.get(tag) ?? -1) >= next || ctx.closedLater(tag));
  if (!opens) return ctx.closedAnywhere(tag) ? ESCAPE : PLAIN;
  const end = (w.xmlFail.get(tag) ?? -1) > pos ? -1 : xmlEnd(scan, next, tag);
  if (end >= 0) return end;
  if (end < -1) w.xmlFail.set(tag, -end - 1);
  return ESCAPE;
}

/** The body with a `\` inserted before each offset (ascending). */
function withEscapes(body: string, inserts: readonly number[]): string {
  let out = "";
  let at = 0;
  for (const p of inserts) {
    out += body.slice(at, p) + "\\";
    at = p;
  }
  return out + body.slice(at);
}

/**
 * Escapes the lines of a message body that need it (see the module doc).
 *
 * @param body trimmed message text
 * @param ctx what the rest of the chat holds
 * @returns the body to print (`body` itself when nothing needs an escape)
 */
export function guardBody(body: string, ctx: GuardContext): string {
  if (!maybeSpecial(body)) return body;
  const scan = scanner(body);
  let xml: XmlWalk | null = null;
  const inserts: number[] = []; // offsets before which a `\` goes, ascending
  for (let pos = 0; pos <= body.length;) {
    const to = scan.lineEnd(pos);
    const next = to + 1;
    const i = firstNonSpace(body, pos, to);
    const c0 = i < to ? body.charCodeAt(i) : -1;
    // a block kept whole (the start of the line after it), ESCAPE, or PLAIN
    let verdict = PLAIN;
    if (c0 === 96 /* ` */ && isFence(body, i, to)) {
      const end = fenceEnd(scan, next);
      verdict = end === -1 ? ESCAPE : end;
    } else if (
      // Ruby's rows 3/4 (any mode): the line opens `[[` or a command block
      (c0 === 91 /* [ */ && body.charCodeAt(i + 1) === 91) ||
      (scan.hasCmdMarker(pos, to) && opensCommand(body, pos, to))
    ) {
      verdict = ESCAPE;
    } else if (c0 === 60 /* < */) {
      xml ??= { scan, ctx, closers: null, xmlFail: new Map() };
      verdict = xmlVerdict(xml, pos, to);
    }
    if (verdict === PLAIN) {
      // a header, a conflict marker, or a line that already looks escaped
      const n = roleNameLength(body, pos);
      if (
        (n > 0 && pos + n < to && body.charCodeAt(pos + n) === 58) ||
        (i === pos && body.charCodeAt(pos + 6) === c0 &&
          isConflictMarkerAt(body.slice(pos, to), 0)) ||
        ((c0 === 92 || scan.hasCmdMarker(pos, to)) && isEscapedLine(body.slice(pos, to)))
      ) verdict = ESCAPE;
    }
    if (verdict === ESCAPE) {
      for (const p of escapePoints(body.slice(pos, to))) inserts.push(pos + p);
    }
    pos = verdict >= 0 ? verdict : next;
  }
  return inserts.length === 0 ? body : withEscapes(body, inserts);
}
