/**
 * Result files (`workflow.md` §3.1, §8.3): serialization by type, loading
 * back, the result-file extension (§2.4), and Ruby's float printing.
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import { ScoutError } from "../errors.ts";
import { parse as parseChat } from "../chat/parse.ts";
import { print as printChat } from "../chat/print.ts";
import type { Message } from "../chat/types.ts";
import { fileError } from "../util/fs.ts";
import { stringifyRubyYaml } from "../util/ruby_yaml.ts";
import { jsonErrorParts } from "../util/json_error.ts";
import { arrayElementType } from "./types.ts";
import { jsonText } from "../util/json_text.ts";

const EXTENSIONS: Record<string, string> = {
  json: "json",
  yaml: "yaml",
  tsv: "tsv",
  marshal: "marshal",
  chat: "chat",
};

/**
 * The result-file extension of a task: its explicit `extension`, else
 * `json`/`yaml`/`tsv`/`marshal`/`chat` for those types, else none.
 *
 * @param type the task's result type
 * @param explicit an explicit extension
 * @returns the extension without dot, or null
 */
export function resultExtension(type: string, explicit?: string | null): string | null {
  if (explicit !== undefined && explicit !== null && explicit !== "") {
    return explicit.replace(/^\./, "");
  }
  return EXTENSIONS[type] ?? null;
}

/**
 * Formats a number the way Ruby prints a Float: integral values keep `.0`,
 * exponent form below 1e-4 or from 1e16 (`1.234e-06`, `1.0e+16`).
 *
 * @param x the number
 * @returns Ruby's `Float#to_s`
 *
 * @example
 * ```ts
 * import { rubyFloat } from "./result.ts";
 * rubyFloat(2); // "2.0"
 * rubyFloat(0.000001234); // "1.234e-06"
 * ```
 */
export function rubyFloat(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "Infinity";
  if (x === -Infinity) return "-Infinity";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mant, expText] = Math.abs(x).toExponential().split("e") as [string, string];
  const digits = mant.replace(".", "");
  const exp = Number(expText);
  const decpt = exp + 1;
  const sign = x < 0 ? "-" : "";
  if (decpt > 0 && decpt <= 16) {
    const int = digits.length <= decpt
      ? digits + "0".repeat(decpt - digits.length)
      : digits.slice(0, decpt);
    const frac = digits.length <= decpt ? "0" : digits.slice(decpt);
    return `${sign}${int}.${frac}`;
  }
  if (decpt <= 0 && decpt > -4) return `${sign}0.${"0".repeat(-decpt)}${digits}`;
  const e = exp < 0 ? `-${String(-exp).padStart(2, "0")}` : `+${String(exp).padStart(2, "0")}`;
  return `${sign}${digits[0]}.${digits.length > 1 ? digits.slice(1) : "0"}e${e}`;
}

function scalarText(value: unknown, type: string): string {
  if (value === null || value === undefined) return "";
  if (type === "float" && typeof value === "number") return rubyFloat(value);
  if (value instanceof Uint8Array) return new TextDecoder().decode(value);
  if (typeof value === "object") return jsonText(value);
  return String(value);
}

/**
 * Serializes a task's return value as its result-file content (§3.1).
 *
 * @param value what the body returned
 * @param type the task's result type
 * @returns file content (text or bytes)
 */
export function serializeResult(value: unknown, type: string): string | Uint8Array {
  const el = arrayElementType(type);
  if (el !== null) {
    const items = Array.isArray(value) ? value : [value];
    return items.map((v) => scalarText(v, el)).join("\n");
  }
  switch (type) {
    case "array":
      return (Array.isArray(value) ? value : [value]).map((v) => scalarText(v, "string")).join(
        "\n",
      );
    case "json":
      return jsonText(value === undefined ? null : value);
    case "yaml":
      return typeof value === "string" ? value : stringifyRubyYaml(value);
    case "chat":
      if (typeof value === "string") return value;
      if (Array.isArray(value)) return printChat(value as Message[]);
      throw new ScoutError(
        "invalid_input",
        `A chat task must return messages or chat text, got ${typeof value}`,
      );
    case "binary": {
      if (value instanceof Uint8Array) {
        if (value.length > 0 && value[value.length - 1] === 10) return value;
        const out = new Uint8Array(value.length + 1);
        out.set(value);
        out[value.length] = 10;
        return out;
      }
      const text = scalarText(value, type);
      return text.endsWith("\n") ? text : text + "\n";
    }
    default:
      return scalarText(value, type);
  }
}

const TRUE_WORDS = new Set([
  "true",
  "True",
  "TRUE",
  "t",
  "T",
  "1",
  "yes",
  "Yes",
  "YES",
  "y",
  "Y",
  "ON",
  "on",
]);

/**
 * Deserializes text as a value of a scalar Scout type (§1.3 rule 1 and the
 * result loader): `integer` → leading integer (`"3x"` → 3, `"x"` → 0),
 * `float` → leading decimal, `boolean` → true iff one of the true words,
 * `string`/`select` → trimmed, `json` → parsed, `array` → lines, `<t>_array` → lines as `t`.
 *
 * @param text the text
 * @param type the target type
 * @returns the value
 */
export function deserializeText(text: string, type: string): unknown {
  const el = arrayElementType(type);
  if (el !== null) return splitLines(text).map((line) => deserializeText(line, el));
  switch (type) {
    case "text":
    case "chat":
    case "yaml":
    case "tsv":
    case "binary":
      return text;
    case "string":
    case "select":
    case "path":
    case "file":
    case "folder":
      return text.trim();
    case "integer":
      return leadingInteger(text);
    case "float":
      return leadingFloat(text);
    case "boolean":
      return TRUE_WORDS.has(text.trim());
    case "array":
      return splitLines(text);
    case "json":
      try {
        return JSON.parse(text);
      } catch (e) {
        const { text: why, line } = jsonErrorParts(text, e);
        throw new ScoutError("json_parse", `Invalid JSON: ${why}`, { cause: e, line });
      }
    default:
      return text;
  }
}

/** Ruby's `text.split("\n")`: trailing empty fields are dropped (`"a\nb\n"` → `[a, b]`). */
function splitLines(text: string): string[] {
  const lines = text.split("\n");
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * Ruby `String#to_i`: the leading integer after optional whitespace, 0 when none.
 *
 * @param text the text
 * @returns the integer
 */
export function leadingInteger(text: string): number {
  const m = /^\s*([+-]?\d+(?:_\d+)*)/.exec(text);
  return m ? Number(m[1]!.replaceAll("_", "")) : 0;
}

/**
 * Ruby `String#to_f`: the leading decimal after optional whitespace, 0 when none.
 *
 * @param text the text
 * @returns the number
 */
export function leadingFloat(text: string): number {
  const m = /^\s*([+-]?(?:\d+(?:_\d+)*(?:\.\d+(?:_\d+)*)?|\.\d+)(?:[eE][+-]?\d+)?)/.exec(text);
  return m ? Number(m[1]!.replaceAll("_", "")) : 0;
}

/**
 * Types whose every value serializes to at least one character: for them an
 * empty result file can only be the one written for a `null` return (§7.4 #5).
 * Ruby reads an empty `json` file as nil too (`JSON.load("")`); the text-like
 * types and arrays keep their empty value (`""`, `[]`), which also writes an
 * empty file.
 */
const EMPTY_IS_NULL = new Set(["json", "integer", "float", "boolean"]);

/**
 * The messages of a chat result read back: a printed chat starts with a role
 * header, which the parser reads as a leading empty `user` message
 * (`chat.md` P-cases) — an artefact of the file, not a message of the
 * result (Ruby's load driver compiles, and its clean drops it). A chat
 * task's result then starts with its `meta: job=` (agents.md §4.3).
 *
 * @param messages the parsed file
 * @returns the messages without the artefact
 */
function chatResultMessages(messages: Message[]): Message[] {
  const first = messages[0];
  return first?.role === "user" && first.content === "" ? messages.slice(1) : messages;
}

/**
 * Loads a result from its file content (§3.1 "Loaded back as"). Chat results
 * are parsed, never compiled, without the parser's leading empty `user`
 * ({@link chatResultMessages}). An empty file of a `json`, `integer`, `float`
 * or `boolean` result is `null`: what the runner writes when the body
 * returned nothing.
 *
 * @param bytes file content
 * @param type the job's result type (`binary` or unknown → raw bytes)
 * @returns the value
 *
 * @example
 * ```ts
 * import { deserializeResult } from "./result.ts";
 * deserializeResult(new Uint8Array(), "json"); // null
 * deserializeResult(new Uint8Array(), "array"); // []
 * ```
 */
export function deserializeResult(bytes: Uint8Array, type: string | undefined): unknown {
  if (type === undefined || type === "binary") return bytes;
  if (bytes.length === 0 && EMPTY_IS_NULL.has(type)) return null;
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  if (type === "chat") return chatResultMessages(parseChat(text));
  return deserializeText(text, type);
}

/**
 * Reads and loads a result file.
 *
 * @param path result file
 * @param type result type
 * @returns the loaded value
 */
export async function readResult(path: string, type: string | undefined): Promise<unknown> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (e) {
    throw fileError(path, e);
  }
  try {
    return deserializeResult(bytes, type);
  } catch (e) {
    if (e instanceof ScoutError) {
      throw new ScoutError(e.code, `Cannot load result "${path}": ${e.message}`, {
        file: path,
        cause: e,
      });
    }
    throw e;
  }
}

/**
 * Text of a loaded result where Ruby converts a value with `to_json` (a
 * chat's `exec_task:`, a binary result in `--json`): strings as is, bytes
 * decoded, chats printed, everything else JSON. Not the CLI's text view:
 * `workflow task` prints the result file as the job's writer
 * ({@link serializeResult}) wrote it (R158-3).
 *
 * @param value a loaded result
 * @param type its type
 * @returns text
 */
export function resultText(value: unknown, type: string | undefined): string {
  if (typeof value === "string") return value;
  if (value instanceof Uint8Array) return new TextDecoder("utf-8", { fatal: false }).decode(value);
  if (type === "chat" && Array.isArray(value)) return printChat(value as Message[]);
  return jsonText(value);
}
