/**
 * Input coercion (`workflow.md` §1.3, §8.4–5) and validation: provided
 * values become typed values before job identity is computed; a zod schema
 * per Scout type (plus the input's own `schema`) validates the result.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { isScoutError, ScoutError } from "../errors.ts";
import { decodeUtf8, isFile } from "../util/fs.ts";
import type { InputDef, InputSpec } from "./job_types.ts";
import { describeValue, selectOptionsOf, typeSchema } from "./input_type.ts";
import { isJob } from "./job_types.ts";
import { deserializeText } from "./result.ts";
import { arrayElementType } from "./types.ts";

/** Options of {@link coerceInput}. */
export interface CoerceOptions {
  /**
   * Replace a string naming an existing regular file by its content (rule 1).
   * Only for command-line arguments (§7.4 #2); tool calls and the API pass false.
   */
  loadFiles?: boolean;
  /** Directory relative file names resolve against. */
  cwd?: string;
  /** Receives warnings: a loaded file whose bytes are not valid UTF-8 (R81-13). */
  warn?: (message: string) => void;
  /** The warnings given so far (each once; with {@link CoerceOptions.warn}). */
  warned?: Set<string>;
}

const NO_LOAD_TYPES = new Set(["path", "file", "folder", "binary", "tsv"]);

function noLoad(def: InputSpec): boolean {
  return Boolean(def.noload || def.nofile || def.asfile || def.stream);
}

/**
 * Whether a command-line string for an input, read as `type` (the input's
 * own, or its list's element type), is replaced by the content of the file
 * it names (rule 1 of {@link coerceInput}).
 *
 * @param def the input
 * @param type the type the string is read as
 * @returns true when the file's content becomes the value
 *
 * @example
 * ```ts
 * import { loadsFileValue } from "./coerce.ts";
 * loadsFileValue({ type: "text" }, "text"); // true
 * loadsFileValue({ type: "file" }, "file"); // false
 * ```
 */
export function loadsFileValue(def: InputSpec, type: string): boolean {
  return !NO_LOAD_TYPES.has(type) && !noLoad(def);
}

function warnOnce(opts: CoerceOptions, message: string, key: string): void {
  if (opts.warn === undefined || opts.warned?.has(key)) return;
  opts.warned?.add(key);
  opts.warn(message);
}

/** The content of the file an input's value names, deserialized; a parse error names the file. */
function fromFile(text: string, type: string, file: string): unknown {
  try {
    return deserializeText(text, type);
  } catch (e) {
    if (!isScoutError(e, "json_parse")) throw e;
    throw new ScoutError("json_parse", `${e.message} (in "${file}")`, {
      file,
      line: e.line,
      cause: e,
    });
  }
}

/**
 * Coerces one provided value for an input (§1.3): strings are deserialized
 * (or, with `loadFiles`, replaced by the content of the file they name),
 * arrays of `<t>_array` inputs are coerced element-wise, `file` values become
 * absolute when the file exists. Jobs pass through (input dependencies).
 *
 * @param value provided value
 * @param def the input
 * @param opts file loading and cwd
 * @returns the coerced value
 */
export function coerceInput(value: unknown, def: InputSpec, opts: CoerceOptions = {}): unknown {
  if (value === null || value === undefined || isJob(value)) return value;
  const type = def.type;
  let out: unknown = value;
  if (typeof value === "string" && loadsFileValue(def, type)) {
    const file = opts.loadFiles && value !== "" && !value.includes("\n")
      ? resolve(opts.cwd ?? process.cwd(), value)
      : null;
    if (file !== null && isFile(file)) {
      const { text, lossy } = decodeUtf8(readFileSync(file));
      if (lossy) warnOnce(opts, `${value}: invalid UTF-8 replaced by U+FFFD`, `utf8\0${file}`);
      out = fromFile(text, type, file);
    } else {
      out = deserializeText(value, type);
    }
  } else {
    const el = arrayElementType(type);
    if (el !== null && Array.isArray(value)) {
      out = value.map((v) => coerceInput(v, { ...def, type: el as InputSpec["type"] }, opts));
    }
  }
  if (type === "file" && typeof out === "string" && out !== "" && !isAbsolute(out)) {
    const abs = resolve(opts.cwd ?? process.cwd(), out);
    if (isFile(abs)) out = abs;
  }
  return out;
}

/**
 * Whether a coerced value equals an input's default (a string and a value
 * printing the same text are equal, like Ruby's string/symbol rule; arrays
 * and objects compare by JSON).
 *
 * @param value coerced value
 * @param def the input
 * @returns true when it is the default
 */
export function isDefaultValue(value: unknown, def: InputSpec): boolean {
  const d = def.default;
  if (value === d) return true;
  if (value === null || value === undefined || d === null || d === undefined) return false;
  if (typeof value === "object" || typeof d === "object") {
    if (isJob(value) || isJob(d)) return false;
    try {
      return JSON.stringify(value) === JSON.stringify(d);
    } catch {
      return false;
    }
  }
  return false;
}

/**
 * The warning for a select value outside its options (Scout runs such jobs;
 * §1.3), or null when the value is one of them or the input has none.
 *
 * @param value coerced value
 * @param def the input (with its name)
 * @param where context for the message (e.g. `Baking/whisk`)
 * @returns the warning text or null
 */
export function selectWarning(value: unknown, def: InputDef, where: string): string | null {
  if (def.type !== "select" || typeof value !== "string") return null;
  const options = selectOptionsOf(def);
  if (options.length === 0 || options.includes(value)) return null;
  return `Input "${def.name}" of ${where} is ${describeValue(value)}, not one of ${
    options.map((o) => JSON.stringify(o)).join(", ")
  }; using it anyway`;
}

/**
 * Validates a coerced value against its Scout type and the input's own zod
 * schema. Null/undefined (not provided) and jobs pass.
 *
 * @param value coerced value
 * @param def the input (with its name)
 * @param where context for the message (e.g. `Baking/whisk`)
 * @throws ScoutError `parameter` naming the input, the expected type and the value
 */
export function validateInput(value: unknown, def: InputDef, where: string): void {
  if (value === null || value === undefined || isJob(value)) return;
  const base = typeSchema(def.type).safeParse(value);
  if (!base.success) {
    const expected = def.type;
    throw new ScoutError(
      "parameter",
      `Input "${def.name}" of ${where} expects ${expected}, got ${describeValue(value)}`,
      { input: def.name },
    );
  }
  if (def.schema !== undefined) {
    const r = def.schema.safeParse(value);
    if (!r.success) {
      const issue = r.error?.issues[0];
      throw new ScoutError(
        "parameter",
        `Input "${def.name}" of ${where} is invalid: ${issue?.message ?? "schema check failed"}`,
        { input: def.name },
      );
    }
  }
}
