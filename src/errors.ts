/**
 * One error family for the whole project: {@link ScoutError} with a stable
 * `code` and the context it is about (file, line, node, relation…) as fields.
 *
 * Callers branch on `code`, never on message text. `cli.ts` turns a
 * ScoutError into one line on stderr (`scout-ai: <message> (<file>:<line>)`),
 * exit 1, or exit 2 for usage errors.
 *
 * @module
 */

/** Marker used by {@link isScoutError}; survives realm and bundle boundaries. */
export const SCOUT_ERROR: unique symbol = Symbol.for("scout-ai.error");

/**
 * Stable error codes. Add codes freely; never rename one (scripts match them
 * in `--json` error output).
 */
export type ScoutErrorCode =
  // generic / CLI
  | "usage"
  | "not_found"
  | "io"
  | "not_available"
  | "invalid_input"
  | "config"
  | "no_home"
  | "internal"
  // chat
  | "chat_parse"
  | "chat_print"
  | "chat_compile"
  | "unknown_role"
  | "import_not_found"
  | "file_not_found"
  | "import_cycle"
  | "nothing_to_continue"
  | "meta_parse"
  | "json_parse"
  | "merge_conflict"
  | "chat_encoding"
  // prompt
  | "unknown_strategy"
  // workflow
  | "workflow_not_found"
  | "workflow_load"
  | "task_not_found"
  | "parameter"
  | "job_not_found"
  | "job_failed"
  | "job_not_finished"
  | "job_aborted"
  | "job_busy"
  | "unsavable_result"
  | "lock_timeout"
  // llm
  | "endpoint_not_found"
  | "unknown_backend"
  | "missing_key"
  | "provider_http"
  | "provider_response"
  | "timeout"
  | "tool_loop_limit"
  | "tool_not_found"
  | "not_cached"
  | "cache_unavailable"
  | "relay"
  | "redirect_refused"
  // tools
  | "mcp_server"
  // agents
  | "agent_not_found"
  | "agent_load"
  // provenance
  | "invalid_follow"
  | "root_not_found"
  | "chat_unreadable"
  | "unresolved_job_reference"
  | "job_info_unreadable"
  | "missing_dependency"
  | "log_dir_unreadable"
  | "log_chat_skipped"
  | "receipt_problem"
  | "identity_conflict"
  | "invalid_scope"
  | "dependency_not_done"
  | "deploy_rules"
  | "deploy_failed"
  | "batch_system";

/** Context carried by an error: what it is about. All fields optional. */
export interface ScoutErrorContext {
  /** File the error is about (chat, workflow, info file…). */
  file?: string;
  /** 1-based line in {@link ScoutErrorContext.file}. */
  line?: number;
  /** Underlying error. */
  cause?: unknown;
  /** Any further fields (node, relation, reference, messages…). */
  [field: string]: unknown;
}

/**
 * The project's error type. Extra context fields are copied onto the
 * instance, so `err.file`, `err.line`, `err.messages`… are plain properties.
 *
 * @example
 * ```ts
 * import { ScoutError, isScoutError } from "./errors.ts";
 * const e = new ScoutError("import_not_found", 'Import not found: "a.chat"', { file: "b.chat", line: 3 });
 * isScoutError(e, "import_not_found"); // true
 * ```
 */
export class ScoutError extends Error {
  /** Brand checked by {@link isScoutError}. */
  readonly [SCOUT_ERROR] = true;
  /** Stable machine-readable code. */
  readonly code: ScoutErrorCode;
  /** File the error is about, if any. */
  file?: string;
  /** Line in `file`, 1-based, if known. */
  line?: number;
  /** Further context fields copied from the constructor's `context`. */
  [field: string]: unknown;

  /**
   * Creates an error with a stable code and context.
   *
   * @param code stable code
   * @param message human message: starts uppercase, quotes values, no trailing period
   * @param context file/line and any other fields
   */
  constructor(code: ScoutErrorCode, message: string, context: ScoutErrorContext = {}) {
    const { cause, ...fields } = context;
    super(message, cause === undefined ? undefined : { cause });
    this.name = "ScoutError";
    this.code = code;
    Object.assign(this, fields);
  }
}

/**
 * True if `e` is a {@link ScoutError} (optionally with the given code).
 *
 * @param e any thrown value
 * @param code optional code to match
 * @returns whether `e` is a ScoutError with that code
 */
export function isScoutError(e: unknown, code?: ScoutErrorCode): e is ScoutError {
  return typeof e === "object" && e !== null &&
    (e as Record<symbol, unknown>)[SCOUT_ERROR] === true &&
    (code === undefined || (e as ScoutError).code === code);
}

/**
 * Shortcut for a usage error (exit code 2 in the CLI).
 *
 * @param message what was wrong with the invocation
 * @returns the error, to throw
 */
export function usageError(message: string): ScoutError {
  return new ScoutError("usage", message);
}

/**
 * A failure about a value typed on the command line (an unknown backend,
 * strategy, endpoint, workflow or agent name) as a usage error (exit 2 in
 * the CLI), with the same message and the original as its cause. The same
 * value read from a file stays a failure (exit 1) naming that file.
 * The path the failure names (`file`) is kept.
 *
 * @param e the failure
 * @returns the usage error, to throw
 */
export function commandLineError(e: ScoutError): ScoutError {
  const where = { ...(e.file !== undefined ? { file: e.file } : {}) };
  return new ScoutError("usage", e.message, { cause: e, ...where });
}

/**
 * Formats an error's location suffix: ` (file:line)`, ` (file)` or "" (also when
 * the message already names the file and there is no line).
 *
 * @param e the error
 * @returns the suffix, with a leading space when not empty
 */
export function errorLocation(e: { file?: unknown; line?: unknown; message?: unknown }): string {
  if (typeof e.file !== "string" || e.file === "") return "";
  if (typeof e.line !== "number" && typeof e.message === "string" && e.message.includes(e.file)) {
    return "";
  }
  return typeof e.line === "number" ? ` (${e.file}:${e.line})` : ` (${e.file})`;
}

const MAX_THROWN_TEXT = 1000;

/** The text of a thrown object that is not an Error: its `message`, own `toString`, or JSON. */
function thrownObjectText(e: object): string | undefined {
  const message = (e as { message?: unknown }).message;
  if (typeof message === "string" && message !== "") return message;
  const toString = (e as { toString?: unknown }).toString;
  if (
    typeof toString === "function" && toString !== Object.prototype.toString &&
    toString !== Array.prototype.toString
  ) return String(e);
  return JSON.stringify(e);
}

/**
 * The message of any thrown value, never throwing itself: an Error's
 * message (its name when the message is empty), a string as is, an object's
 * `message`, own `toString` or JSON (`{"code":42}`), other values as text.
 * What cannot be described (a null-prototype object with a cycle, a revoked
 * proxy) falls back to its `[object …]` tag or its type.
 *
 * @param e what was thrown
 * @returns one message (a thrown value's text cut at 1000 characters)
 *
 * @example
 * ```ts
 * import { thrownMessage } from "./errors.ts";
 * thrownMessage({ code: 42 }); // '{"code":42}'
 * thrownMessage(new TypeError()); // "TypeError"
 * thrownMessage(Object.create(null)); // "{}"
 * ```
 */
export function thrownMessage(e: unknown): string {
  let text: string | undefined;
  let isError = false;
  try {
    isError = e instanceof Error;
    if (isError) {
      const { message, name } = e as Error;
      if (typeof message === "string" && message !== "") text = message;
      else text = typeof name === "string" && name !== "" ? name : "Error";
    } else if (typeof e === "object" && e !== null) text = thrownObjectText(e);
    else text = String(e);
  } catch { /* described below */ }
  if (text === undefined) {
    try {
      text = Object.prototype.toString.call(e);
    } catch {
      text = `(a thrown ${typeof e})`;
    }
  }
  // an Error's message is the author's; a thrown value's text may be any size
  if (isError || text.length <= MAX_THROWN_TEXT) return text;
  // cut before a surrogate pair, not inside it (R151-7; util/clip.ts is a layer above)
  return text.slice(0, MAX_THROWN_TEXT - 1).replace(/[\uD800-\uDBFF]$/, "") + "…";
}

/**
 * The message of a caught error on one line, without terminal colours: a
 * runtime's own errors (a module that fails to import) come coloured and on
 * several lines, and ours embed them in a one-line message that may go to a
 * file or a pipe.
 *
 * @param e what was caught
 * @returns the plain message
 */
export function plainMessage(e: unknown): string {
  const text = thrownMessage(e);
  // deno-lint-ignore no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, "").replace(/\s*\n\s*/g, " ").trim();
}
