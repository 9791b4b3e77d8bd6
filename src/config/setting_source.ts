/**
 * Where a setting's value came from, carried to the errors about that value
 * (R128-1): a line of a file — an `etc/config` entry, a chat's option line,
 * an endpoint file's key — and, for a value read from the environment (a
 * variable a lookup falls back to, or an `env:VAR` config value), the
 * variable's name. `config list` shows each entry's source; an error about a
 * value shows the same, `scout-ai: Invalid max_tool_rounds: "abc" (…)
 * (/home/u/.scout/etc/config:3)`.
 *
 * @module
 */
import { isScoutError } from "../errors.ts";

/** Where a setting's value came from. */
export interface SettingSource {
  /** The file that set it (a config file, a chat, an endpoint file). */
  readonly file?: string;
  /** Its 1-based line in that file. */
  readonly line?: number;
  /** The environment variable the value was read from. */
  readonly variable?: string;
}

/**
 * The file and line of a config entry's `source` (`/x/etc/config:3`; a
 * chat's `config:` line, `a.chat:2`); none for a source that names no file
 * (`chat`, an entry added in code).
 *
 * @param source a config entry's `source`
 * @returns file and line, file only, or an empty source
 *
 * @example
 * ```ts
 * import { sourceOfEntry } from "./setting_source.ts";
 * sourceOfEntry("/h/etc/config:3"); // { file: "/h/etc/config", line: 3 }
 * sourceOfEntry("chat"); // {}
 * ```
 */
export function sourceOfEntry(source: string | undefined): SettingSource {
  if (source === undefined || source === "chat" || source === "") return {};
  const m = /^(.+):(\d+)$/.exec(source);
  return m ? { file: m[1]!, line: Number(m[2]) } : { file: source };
}

/**
 * Gives an error about a setting's value where the value came from: the
 * file and line as the error's `file`/`line` (unless it names a file
 * already: the innermost place wins), and an environment variable in its
 * message (` (set by the environment variable X)`; `verb` "named" for a
 * name, the endpoint's) and as `e.variable`. Other thrown values pass as
 * they are.
 *
 * @param e what was thrown
 * @param source where the value came from, if known
 * @param verb how the variable relates to the value (default `set`)
 * @returns `e`
 */
export function locateSetting(
  e: unknown,
  source: SettingSource | undefined,
  verb: "set" | "named" = "set",
): unknown {
  if (source === undefined || !isScoutError(e)) return e;
  if (source.variable !== undefined && e.variable === undefined) {
    e.message += ` (${verb} by the environment variable ${source.variable})`;
    e.variable = source.variable;
  }
  if (source.file !== undefined && e.file === undefined) {
    e.file = source.file;
    if (source.line !== undefined) e.line = source.line;
  }
  return e;
}

/**
 * Runs a check of a setting's value; what it throws is located at the
 * value's source ({@link locateSetting}).
 *
 * @param source where the value came from, if known
 * @param check the check (parses and validates the value)
 * @returns what `check` returns
 *
 * @example
 * ```ts ignore
 * import { checkSetting } from "./setting_source.ts";
 * checkSetting({ variable: "SCOUT_MAX_TOOL_ROUNDS" }, () => positiveInt("abc"));
 * // throws `Invalid … (set by the environment variable SCOUT_MAX_TOOL_ROUNDS)`
 * ```
 */
export function checkSetting<T>(source: SettingSource | undefined, check: () => T): T {
  try {
    return check();
  } catch (e) {
    throw locateSetting(e, source);
  }
}
