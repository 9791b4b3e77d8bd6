/**
 * Line escapes of the `.chat` format (`docs/spec-notes/chat.md`, D26): how
 * the printer writes a content line that the parser would otherwise read as
 * syntax, and how the parser reads it back.
 *
 * Two escape points, each one backslash:
 * - **lead**: before the first non-space character of a line whose trimmed
 *   form is `\`* followed by a fence (```` ``` ````), `[[`, or an opening tag
 *   `<tag…>`, or of a column-0 line `\`* followed by `[a-z0-9_]+:` (a header)
 *   or by a git merge-conflict marker (`<<<<<<<`, `|||||||` or `>>>>>>>` alone
 *   or before a space, or `=======` alone; R95-2);
 * - **cmd**: after the `:--` ending the first word of a line whose trimmed
 *   form is a command-block opener `\S*:--` `\`* ` … {{{` (a leading
 *   backslash cannot break that pattern, since `\S*` swallows it).
 *
 * The printer adds one backslash at each point that applies
 * ({@link escapePoints}, `print_guard.ts`);
 * {@link unescapeLine} removes one at each point that has one or more. The
 * parser applies it only to a line outside blocks that no other rule claims,
 * so an escaped line is plain text for the port and for the Ruby parser (which
 * shows the added backslashes, except the one of `\name:`).
 *
 * @module
 */
import { firstNonSpace, lastNonSpace, roleNameLength, SPACE, WORD } from "./text.ts";

/**
 * A git merge-conflict marker, the line stripped: what `conflict.ts` reads as
 * one (and `|||||||` of diff3), so an unescaped marker in a file is git's.
 */
const CONFLICT_MARKER = /^(?:(?:<{7}|\|{7}|>{7})(?: |$)|={7}$)/;

/**
 * True if the column-0 line `line` holds, from `k` to its stripped end, a
 * merge-conflict marker (R95-2).
 *
 * @param line one line (no `\n`)
 * @param k where the marker would start (after any backslashes)
 * @returns whether it is one
 */
export function isConflictMarkerAt(line: string, k: number): boolean {
  const c = line.charCodeAt(k);
  if (c !== 60 && c !== 61 && c !== 62 && c !== 124) return false; // < = > |
  return CONFLICT_MARKER.test(line.slice(k, lastNonSpace(line, k, line.length) + 1));
}

/** An opening-tag shape (`<tag>` or `<tag attrs…>`) at a sticky position. */
const XML_SHAPE = new RegExp(String.raw`<${WORD}+(?:${SPACE}+[^>]*)?>`, "uy");

/** True for the characters Ruby's `\s` matches (`\S` is everything else). */
function isRegexSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/**
 * True if `line[k…]` starts with a fence, `[[`, an opening tag, or (when
 * `col0`) a header word followed by `:` or is a merge-conflict marker.
 */
function leadShapeAt(line: string, k: number, col0: boolean): boolean {
  if (col0 && isConflictMarkerAt(line, k)) return true;
  const c = line.charCodeAt(k);
  if (c === 96 /* ` */) return line.startsWith("```", k);
  if (c === 91 /* [ */) return line.charCodeAt(k + 1) === 91;
  if (c === 60 /* < */) {
    XML_SHAPE.lastIndex = k;
    return XML_SHAPE.test(line);
  }
  if (!col0) return false;
  const n = roleNameLength(line, k);
  return n > 0 && line.charCodeAt(k + n) === 58 /* : */;
}

/**
 * Where the lead escape goes: the first non-space index of `line` if the line
 * is `\`{min,} followed by a lead shape (see the module doc), else -1.
 */
function leadPoint(line: string, min: number): number {
  const i = firstNonSpace(line, 0, line.length);
  let k = i;
  while (line.charCodeAt(k) === 92 /* \ */) k++;
  if (k - i < min) return -1;
  return leadShapeAt(line, k, i === 0) ? i : -1;
}

/**
 * Where the cmd escape goes: if the trimmed line is `\S*:--` + `\`{min,} +
 * ` ` + `[^\n]* {{{`, the index just after that `:--`; else -1.
 */
function cmdPoint(line: string, min: number): number {
  const a = firstNonSpace(line, 0, line.length);
  const b = lastNonSpace(line, a, line.length) + 1;
  let w = a;
  while (w < b && !isRegexSpace(line.charCodeAt(w))) w++;
  if (w >= b || line.charCodeAt(w) !== 32) return -1;
  let p = w;
  while (p > a && line.charCodeAt(p - 1) === 92) p--;
  if (w - p < min || p - 3 < a || !line.startsWith(":--", p - 3)) return -1;
  const brace = line.indexOf(" {{{", w + 1);
  return brace !== -1 && brace + 4 <= b ? p : -1;
}

/**
 * True if {@link unescapeLine} would change `line`: the line holds an escape.
 *
 * @param line one line (no `\n`)
 * @returns whether the line is escaped
 */
export function isEscapedLine(line: string): boolean {
  return leadPoint(line, 1) !== -1 || cmdPoint(line, 1) !== -1;
}

/**
 * Removes one backslash at each escape point of `line` (see the module doc).
 *
 * @param line one line (no `\n`)
 * @returns the unescaped line, or null if the line holds no escape
 *
 * @example
 * ````ts
 * import { unescapeLine } from "./escape.ts";
 * unescapeLine("\\```ts"); // "```ts"
 * unescapeLine("\\sh:--\\ ls {{{"); // "sh:-- ls {{{"
 * unescapeLine("plain"); // null
 * ````
 */
export function unescapeLine(line: string): string | null {
  let l = line;
  const c = cmdPoint(l, 1);
  if (c !== -1) l = l.slice(0, c) + l.slice(c + 1);
  const i = leadPoint(l, 1);
  if (i !== -1) l = l.slice(0, i) + l.slice(i + 1);
  return c === -1 && i === -1 ? null : l;
}

/**
 * Where the printer puts its backslashes: offsets in `line`, ascending (each
 * backslash goes before the character at that offset), so that
 * {@link unescapeLine} gives `line` back and neither parser reads it as a
 * fence, `[[`, command block, xml block or header (nor `conflict.ts` as a
 * merge-conflict marker).
 *
 * @param line one line (no `\n`)
 * @returns zero, one or two offsets
 */
export function escapePoints(line: string): number[] {
  const i = leadPoint(line, 0);
  const c = cmdPoint(line, 0);
  if (c === -1) return i === -1 ? [] : [i];
  return i === -1 ? [c] : [i, c];
}
