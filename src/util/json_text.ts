/**
 * JSON text for a user or another program (`--json` documents, `.info`
 * files, result, queue and relay files): `JSON.stringify`, with every lone
 * surrogate written as U+FFFD, as a UTF-8 writer writes it (chat files,
 * plain output). `JSON.stringify` writes one as a `\ud800` escape, which a
 * strict reader (jq 1.6, Ruby's `JSON.parse` into UTF-8) refuses (R162-1).
 *
 * The inference cache keeps its exact escapes: only this process reads it
 * back, and a replay must hand on the very strings the live run had.
 *
 * @module
 */

/**
 * A lone surrogate escape in `JSON.stringify`'s output, or an escaped
 * backslash (consumed first, so the `\\ud800` of a literal backslash
 * followed by `ud800` is never taken for one). `JSON.stringify` writes a
 * paired surrogate as its characters and any other surrogate as a
 * lowercase `\udxxx` escape, so every escape this finds is a lone one.
 */
const LONE_ESCAPE = /\\(?:\\|ud[89a-f][0-9a-f]{2})/g;

/**
 * JSON text from `JSON.stringify` with each lone surrogate escape replaced
 * by U+FFFD (as {@link ./code_points.ts wellFormed} makes the string it came
 * from); text without a `\ud` is returned as it is, unscanned.
 *
 * @param text output of `JSON.stringify`
 * @returns the same JSON with well-formed strings
 *
 * @example
 * ```ts
 * import { wellFormedJsonText } from "./json_text.ts";
 * wellFormedJsonText(JSON.stringify("a\ud800b")); // '"a\ufffdb"'
 * ```
 */
export function wellFormedJsonText(text: string): string {
  if (!text.includes("\\ud")) return text;
  return text.replace(LONE_ESCAPE, (m) => m === "\\\\" ? m : "\ufffd");
}

/**
 * `JSON.stringify(value, null, space)` with well-formed strings, keys
 * included ({@link wellFormedJsonText}); a value JSON cannot write at all
 * (`undefined`, a function) gives `null`.
 *
 * @param value what to write
 * @param space indentation, as `JSON.stringify` takes it
 * @returns JSON text
 *
 * @example
 * ```ts
 * import { jsonText } from "./json_text.ts";
 * jsonText({ answer: "lone \ud83d" }); // '{"answer":"lone \ufffd"}'
 * ```
 */
export function jsonText(value: unknown, space?: number): string {
  return wellFormedJsonText(JSON.stringify(value, null, space) ?? "null");
}
