/**
 * Ask-time option extraction (`chat.md` §6.2): one forward pass that takes
 * `option`, `sticky_option`, `endpoint`, `model`, `backend`, `agent`,
 * `persist`, `format` and `previous_response_id` out of a chat.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { ScoutError } from "../errors.ts";
import { expandHome } from "../config/home.ts";
import { isFile } from "../util/fs.ts";
import { jsonErrorParts } from "../util/json_error.ts";
import { ownRecord } from "../util/own_record.ts";
import type { Chat, Message } from "./types.ts";
import { type OptionLine, type WrittenAt, writtenAt } from "./written_at.ts";

const STICKY_ROLES = new Set(["endpoint", "model", "backend", "agent"]);

/** Options of {@link extractOptions}. */
export interface ExtractOptionsOptions {
  /**
   * The chat file the messages come from: a `format:` file name is looked up
   * next to it first ([DIVERGE D18]).
   */
  origin?: string;
  /** Directory a `format:` file name is looked up in after the origin (default: the process cwd). */
  cwd?: string;
  /**
   * Turns a `format` value into the option value. Default:
   * {@link resolveFormat} with `origin` and `cwd`.
   */
  resolveFormat?: (value: unknown) => unknown;
}

/** Result of {@link extractOptions}. */
export interface ExtractedOptions {
  /** The options: sticky ones overridden by the plain ones in force at the end. */
  options: Record<string, unknown>;
  /** The chat without the option messages (`previous_response_id` messages stay). */
  chat: Chat;
  /**
   * Where the options in force were written, for the ones set by lines of a
   * compiled chat file (absent when there are none): errors about a value
   * (`endpoint: missing`) name its line.
   */
  lines?: Record<string, OptionLine>;
}

/**
 * Extracts the options of a chat (`chat.md` §6.2, machine-checked C5–C7).
 * `endpoint`/`model`/`backend`/`agent` and `sticky_option: key value` are
 * sticky; `option: key value`, `persist` and `format` are plain and reset by
 * every `assistant` message; `previous_response_id` is sticky and its message
 * stays in the chat. The result is `{...sticky, ...plain}` minus keys whose
 * value is null/undefined or the string `nil` (so `option: model nil` cancels a
 * sticky `model:`). Values stay raw strings (no coercion), except `format`
 * (see {@link resolveFormat}).
 *
 * @param chat messages (not modified)
 * @param opts origin/cwd for `format:` files, or a custom format resolver
 * @returns the options and the remaining messages
 * @throws ScoutError `json_parse` when a `format:` file exists but is not JSON
 *
 * @example
 * ```ts
 * import { extractOptions } from "./options.ts";
 * const { options, chat } = extractOptions([
 *   { role: "model", content: "gpt-4o" },
 *   { role: "option", content: "temperature 0.2" },
 *   { role: "user", content: "hi" },
 * ]);
 * // options = { model: "gpt-4o", temperature: "0.2" }; chat = [{ role: "user", content: "hi" }]
 * ```
 */
export function extractOptions(
  chat: readonly Message[],
  opts: ExtractOptionsOptions = {},
): ExtractedOptions {
  const formatOf = opts.resolveFormat ??
    ((v: unknown) => resolveFormat(v, { origin: opts.origin, cwd: opts.cwd }));
  // records without a prototype: an option is named by the chat, and under Bun (the binary)
  // `option: __proto__ x` assigned into a plain `{}` set no key (the value was dropped)
  const sticky = ownRecord();
  let plain = ownRecord();
  // where each value was written (sticky and plain apart, as the values)
  const at: { sticky: Record<string, WrittenAt | undefined>; plain: typeof at.sticky } = {
    sticky: ownRecord(),
    plain: ownRecord(),
  };
  const rest: Chat = [];
  const set = (kind: "sticky" | "plain", key: string, value: unknown, m: Message) => {
    (kind === "sticky" ? sticky : plain)[key] = value;
    at[kind][key] = writtenAt(m);
  };
  for (const m of chat) {
    const role = String(m.role);
    if (STICKY_ROLES.has(role)) {
      set("sticky", role, m.content, m);
    } else if (role === "persist") {
      set("plain", "persist", m.content, m);
    } else if (role === "format") {
      set("plain", "format", formatOf(m.content), m);
    } else if (role === "option" || role === "sticky_option") {
      const [key, value] = splitOption(m.content);
      set(role === "option" ? "plain" : "sticky", key, value, m);
    } else {
      if (role === "previous_response_id") set("sticky", "previous_response_id", m.content, m);
      else if (role === "assistant") [plain, at.plain] = [ownRecord(), ownRecord()];
      rest.push(m);
    }
  }
  const options: [string, unknown][] = [];
  const lines: [string, OptionLine][] = [];
  for (const [k, v] of Object.entries(ownRecord(sticky, plain))) {
    if (v === null || v === undefined || v === "nil") continue;
    options.push([k, v]);
    // own keys only: an option called `toString` is no member of Object.prototype (R112-5)
    const w = Object.hasOwn(plain, k) ? at.plain[k] : at.sticky[k];
    if (w !== undefined) lines.push([k, { file: w.file, line: w.line, value: v }]);
  }
  // plain records with every key its own (fromEntries defines them: `__proto__` too)
  const out = { options: Object.fromEntries(options), chat: rest };
  return lines.length > 0 ? { ...out, lines: Object.fromEntries(lines) } : out;
}

/** Ruby `partition(" ")`: key before the first space, the rest (possibly "") after. */
function splitOption(content: unknown): [string, string] {
  const text = content === null || content === undefined ? "" : String(content);
  const i = text.indexOf(" ");
  return i === -1 ? [text, ""] : [text.slice(0, i), text.slice(i + 1)];
}

/**
 * The option value of a `format` message. Non-strings (a DSL schema object,
 * null) are returned as is. A string that parses as a JSON object is that
 * schema ([DIVERGE D18]: a printed schema object comes back as text). A
 * one-line string naming an existing file — next to `origin` first, then in
 * `cwd` ([DIVERGE D18]; Ruby looks in cwd only) — is replaced by the file's
 * parsed JSON. Anything else (`json`, a type name) stays the string.
 *
 * @param value the `format` message content
 * @param opts where the chat lives and the directory to fall back on
 * @returns the format option value
 * @throws ScoutError `json_parse` naming the file when a schema file is not valid JSON
 *
 * @example
 * ```ts
 * import { resolveFormat } from "./options.ts";
 * resolveFormat('{"type":"object"}'); // { type: "object" }
 * resolveFormat("json"); // "json" (unless a file named json exists)
 * ```
 */
export function resolveFormat(
  value: unknown,
  opts: { origin?: string | undefined; cwd?: string | undefined } = {},
): unknown {
  if (typeof value !== "string") return value;
  const text = value.trim();
  if (text.startsWith("{")) {
    const schema = jsonObject(text);
    if (schema !== undefined) return schema;
  }
  if (text === "" || text.includes("\n")) return value;
  const ref = expandHome(text);
  const cwd = opts.cwd ?? process.cwd();
  const candidates = opts.origin === undefined ? [] : [resolve(cwd, dirname(opts.origin), ref)];
  candidates.push(resolve(cwd, ref));
  const file = candidates.find(isFile);
  if (file === undefined) return value;
  const data = readFileSync(file, "utf8");
  try {
    return JSON.parse(data);
  } catch (e) {
    const { text: why, line } = jsonErrorParts(data, e);
    throw new ScoutError("json_parse", `Cannot parse format file "${file}": ${why}`, {
      file,
      line,
      cause: e,
    });
  }
}

function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === "object" && !Array.isArray(v)
      ? v as Record<string, unknown>
      : undefined;
  } catch {
    return undefined; // not JSON: a type name or a file name
  }
}
