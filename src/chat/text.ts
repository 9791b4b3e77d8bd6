/**
 * Character-level helpers shared by the parser and printer, reproducing Ruby's
 * semantics where JavaScript differs (`strip`, `\s`, `\w`, `.`).
 *
 * @module
 */

/** True for the characters Ruby's `String#strip` removes: NUL, \t \n \v \f \r, space. */
export function isRubySpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0;
}

/**
 * Ruby `strip`: removes leading and trailing ASCII whitespace and NUL, never
 * Unicode spaces.
 *
 * @param s input
 * @returns trimmed copy (`s` itself when nothing is removed)
 */
export function rubyStrip(s: string): string {
  return stripRange(s, 0, s.length);
}

/**
 * `rubyStrip(text.slice(from, to))`, slicing at most once.
 *
 * @param text the text
 * @param from start offset
 * @param to end offset (exclusive)
 * @returns the stripped range (`text` itself when that is the whole of it)
 */
export function stripRange(text: string, from: number, to: number): string {
  const a = firstNonSpace(text, from, to);
  const b = lastNonSpace(text, a, to) + 1;
  if (a === b) return "";
  return a === 0 && b === text.length ? text : text.slice(a, b);
}

/**
 * Index of the first character of `text[from, to)` that Ruby's `strip` keeps.
 *
 * @param text the text
 * @param from start offset
 * @param to end offset (exclusive)
 * @returns the index, or `to` when the range is blank
 */
export function firstNonSpace(text: string, from: number, to: number): number {
  let i = from;
  while (i < to && isRubySpace(text.charCodeAt(i))) i++;
  return i;
}

/**
 * Index of the last character of `text[from, to)` that Ruby's `strip` keeps.
 *
 * @param text the text
 * @param from start offset
 * @param to end offset (exclusive)
 * @returns the index, or `from - 1` when the range is blank
 */
export function lastNonSpace(text: string, from: number, to: number): number {
  let j = to - 1;
  while (j >= from && isRubySpace(text.charCodeAt(j))) j--;
  return j;
}

/** True if `s` is empty after {@link rubyStrip}. */
export function isBlank(s: string): boolean {
  return isBlankRange(s, 0, s.length);
}

/** True if `text[from, to)` is empty after {@link rubyStrip}. */
export function isBlankRange(text: string, from: number, to: number): boolean {
  return firstNonSpace(text, from, to) === to;
}

/** Length of the role-name prefix `[a-z0-9_]+` at `from`, or 0. */
export function roleNameLength(s: string, from = 0): number {
  let i = from;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95)) break;
  }
  return i - from;
}

/** True if `line` starts with `[a-z0-9_]+:` (a header line, unstripped). */
export function isHeaderLine(line: string): boolean {
  const n = roleNameLength(line);
  return n > 0 && line.charCodeAt(n) === 58;
}

/** Ruby-compatible word characters (`\w` on UTF-8 strings matches letters/marks/numbers/`_` in any script). */
export const WORD = String.raw`[\p{L}\p{M}\p{N}\p{Pc}]`;
/** Ruby `\s`: ASCII whitespace only. */
export const SPACE = String.raw`[ \t\n\v\f\r]`;

/**
 * A text's line end, as an editor saved it: CRLF when its first line ends so,
 * else LF (also for a text of one line). What an append (`llm ask -o`) or an
 * inline answer (`--inline`) writes into a file uses it.
 *
 * @param text a file's text
 * @returns `"\r\n"` or `"\n"`
 */
export function lineEndOf(text: string): "\n" | "\r\n" {
  const nl = text.indexOf("\n");
  return nl > 0 && text.charCodeAt(nl - 1) === 13 ? "\r\n" : "\n";
}

/**
 * `text` with each line end (LF or CRLF) made `eol`.
 *
 * @param text the text
 * @param eol the line end wanted
 * @returns the text with its line ends made `eol` (`text` itself for LF: an LF
 *   append never rewrites a CRLF inside a content)
 */
export function withLineEnds(text: string, eol: "\n" | "\r\n"): string {
  return eol === "\n" ? text : text.replace(/\r?\n/g, "\r\n");
}
