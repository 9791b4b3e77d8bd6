/**
 * Text made safe for one terminal line: file and folder names, `.info`
 * workflow and task names, meta values and tool names can hold newlines,
 * tabs and escape sequences, which every text view of `prov` writes escaped,
 * never raw; so can a name an error message echoes (an endpoint's, a
 * setting's, a model's in the price file).
 *
 * @module
 */

/**
 * Control characters: C0, DEL, C1, the two Unicode line separators; the bidi
 * controls (U+061C, U+200E/200F, U+202A–202E, U+2066–2069), which reorder
 * what follows them on the line (R99-3); and the invisible U+200B–200D and
 * U+FEFF, which make two different names look the same.
 */
const CONTROL_CLASS =
  "[\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u061c\\u200b-\\u200f\\u202a-\\u202e\\u2066-\\u2069\\ufeff]";
const CONTROL = new RegExp(CONTROL_CLASS);
const CONTROLS = new RegExp(CONTROL_CLASS, "g");

const SHORT_ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/**
 * Text safe for one terminal line: control characters (newlines, escape
 * sequences, DEL, C1), bidi controls and zero-width characters become
 * JSON-style escapes; other text is returned as is.
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
