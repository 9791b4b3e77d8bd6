/**
 * Whether a result's text loads back as what it says (`workflow.md` §3.1):
 * an `integer`, `float` or `boolean` result — or a list of them — is stored
 * as written and loaded by Scout's lenient rules (`"not a number 1"` → 0,
 * `"maybe"` → false), so a body returning text that is no such value stores
 * it, `workflow task` prints it, and `--json` and a dependent's `job.load`
 * get another value without a word (R165-6). The file stays as Scout writes
 * it; {@link warnResultMisfit} tells it once, naming the job. [TS-FIX] Scout
 * says nothing.
 *
 * @module
 */
import { warnOnce } from "../util/warn_once.ts";
import { describeValue } from "./input_type.ts";
import { deserializeText } from "./result.ts";
import { arrayElementType } from "./types.ts";

/** The counterparts of the true words of §1.3 (anything else also loads as false). */
const FALSE_WORDS = new Set(
  ["false", "False", "FALSE", "f", "F", "0", "no", "No", "NO", "n", "N", "off", "OFF"],
);

/** Whether trimmed text is, as written, a value of the type. */
const FORMS: Record<string, (text: string) => boolean> = {
  integer: (t) => /^[-+]?\d+$/.test(t),
  float: (t) => /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(t),
  boolean: (t) => deserializeText(t, "boolean") === true || FALSE_WORDS.has(t),
};

/** A piece of a result's text that does not load as its type, and what it loads as. */
export interface ResultMisfit {
  /** The piece as stored (the whole text, or one line of a list). */
  text: string;
  /** The scalar type it should be. */
  type: string;
  /** What loading it gives. */
  loaded: unknown;
}

/**
 * The first piece of a result's text that is no value of its type: for
 * `integer`, `float`, `boolean` the whole text, for `<t>_array` of them each
 * line; surrounding whitespace is fine (it loads the same), empty text is an
 * empty result. Other types load any text as themselves.
 *
 * @param text the result file's text
 * @param type the task's result type
 * @returns the misfit, or null when the text loads as written
 *
 * @example
 * ```ts
 * import { resultMisfit } from "./result_fit.ts";
 * resultMisfit("not a number 1", "integer"); // {text: "not a number 1", type: "integer", loaded: 0}
 * resultMisfit("5\n", "integer"); // null
 * ```
 */
export function resultMisfit(text: string, type: string): ResultMisfit | null {
  const el = arrayElementType(type);
  const scalar = el ?? type;
  const fits = Object.hasOwn(FORMS, scalar) ? FORMS[scalar] : undefined;
  if (fits === undefined) return null;
  if (text.trim() === "") return null; // an empty result (null, or no items)
  const pieces = el === null ? [text] : text.replace(/\n+$/, "").split("\n");
  for (const piece of pieces) {
    const t = piece.trim();
    if (!fits(t)) return { text: piece, type: scalar, loaded: deserializeText(piece, scalar) };
  }
  return null;
}

/**
 * Warns once, where warnings go, when a job's result text does not load as
 * its type ({@link resultMisfit}); the text is stored all the same.
 *
 * @param job the job's short path and absolute path
 * @param text the result file's text
 * @param type the task's result type
 */
export function warnResultMisfit(
  job: { shortPath: string; path: string },
  text: string,
  type: string,
): void {
  const bad = resultMisfit(text, type);
  if (bad === null) return;
  const part = bad.type === type ? "" : ` in its ${type} result`;
  warnOnce(
    `result-type\0${job.path}`,
    `Job "${job.shortPath}" returned ${describeValue(bad.text)}${part}, which is no ${bad.type}: ` +
      `its result file keeps the text, and loading it gives ${describeValue(bad.loaded)}`,
  );
}
