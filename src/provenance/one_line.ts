/**
 * Text from the store made safe for one terminal line: file and folder
 * names, `.info` workflow and task names, meta values and tool names can
 * hold newlines, tabs and escape sequences, which every text view of `prov`
 * writes escaped, never raw.
 *
 * @module
 */

/** Control characters: C0, DEL, C1 and the two Unicode line separators. */
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
// deno-lint-ignore no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

const SHORT_ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/**
 * Text safe for one terminal line: control characters (newlines, escape
 * sequences, DEL, C1) become JSON-style escapes; other text is returned
 * as is.
 *
 * @param s any text
 * @returns the escaped text
 *
 * @example
 * ```ts
 * import { escapeLine } from "./one_line.ts";
 * escapeLine("W\u001b[2J/t\tx"); // "W\\u001b[2J/t\\tx"
 * ```
 */
export function escapeLine(s: string): string {
  if (!CONTROL.test(s)) return s;
  return s.replace(
    CONTROLS,
    (c) => SHORT_ESCAPES[c] ?? "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"),
  );
}
