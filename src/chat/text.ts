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
 * @returns trimmed copy
 */
export function rubyStrip(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isRubySpace(s.charCodeAt(a))) a++;
  while (b > a && isRubySpace(s.charCodeAt(b - 1))) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

/** True if `s` is empty after {@link rubyStrip}. */
export function isBlank(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (!isRubySpace(s.charCodeAt(i))) return false;
  return true;
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

/** Number of leading backslashes of `line` if followed by `[a-z0-9_]+:`, else 0. */
export function escapedHeaderDepth(line: string): number {
  let i = 0;
  while (line.charCodeAt(i) === 92) i++;
  if (i === 0) return 0;
  const n = roleNameLength(line, i);
  return n > 0 && line.charCodeAt(i + n) === 58 ? i : 0;
}

/** Ruby-compatible word characters (`\w` on UTF-8 strings matches letters/marks/numbers/`_` in any script). */
export const WORD = String.raw`[\p{L}\p{M}\p{N}\p{Pc}]`;
/** Ruby `\s`: ASCII whitespace only. */
export const SPACE = String.raw`[ \t\n\v\f\r]`;
