/**
 * Tool results → `function_call_output` content (`inference.md` §5.4): strings
 * as is, null → `"success"`, anything else JSON, streams read fully, errors as
 * `{"exception", "exception_line"}` — never stack frames ([TS-FIX]) — and
 * the length guard.
 *
 * @module
 */
import { isScoutError } from "../errors.ts";
import { md5hex } from "../util/hash.ts";
import { codePointLength } from "../util/code_points.ts";
import { isToolOutput, type ToolOutput, toolOutput } from "./types.ts";

/** Default `max_content_length` (chars). */
export const DEFAULT_MAX_CONTENT_LENGTH = 100_000;

function isAsyncIterable(v: unknown): v is AsyncIterable<unknown> {
  return typeof v === "object" && v !== null &&
    typeof (v as Record<symbol, unknown>)[Symbol.asyncIterator] === "function";
}

/**
 * Converts a result value to content text (streams read fully).
 *
 * @param value what the tool returned (after awaiting)
 * @returns the content text
 */
export async function contentText(value: unknown): Promise<string> {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "success";
  if (value instanceof Uint8Array) return new TextDecoder().decode(value);
  if (value instanceof ReadableStream || isAsyncIterable(value)) {
    let out = "";
    const dec = new TextDecoder();
    for await (const chunk of value as AsyncIterable<unknown>) {
      out += typeof chunk === "string"
        ? chunk
        : chunk instanceof Uint8Array
        ? dec.decode(chunk, { stream: true })
        : String(chunk);
    }
    return out + dec.decode();
  }
  try {
    const json = JSON.stringify(value);
    if (json !== undefined) return json;
  } catch { /* fall back to String() below */ }
  return String(value);
}

/**
 * Where a {@link ScoutError} says it is about: `file:line`, `file`, or null
 * (any other error: its stack is the program's, not the model's business).
 *
 * @param e an error
 * @returns the place, or null
 */
export function errorPlace(e: unknown): string | null {
  if (!isScoutError(e) || typeof e.file !== "string" || e.file === "") return null;
  return typeof e.line === "number" ? `${e.file}:${e.line}` : e.file;
}

/**
 * The output of a failed call: content `{"exception": msg, "exception_line":
 * place}` (a ScoutError's `file:line`, else null) and `error: "error"`. No
 * stack frames ([TS-FIX] of `inference.md` §5.4: Ruby sends the backtrace;
 * ours are the program's own frames — the binary's `/$bunfs/…` — which tell
 * the model nothing and change the next request, and its cache key, with
 * every build). A ScoutError's `baseMessage`, when it has one, is its
 * message without the notes for the user (where a query went, its failure
 * snapshot: R84-3).
 *
 * @param e the error (or a message)
 * @returns the tool output
 */
export function errorOutput(e: unknown): ToolOutput {
  const base = isScoutError(e) ? e.baseMessage : undefined;
  const message = typeof base === "string" ? base : e instanceof Error ? e.message : String(e);
  const content = JSON.stringify({ exception: message, exception_line: errorPlace(e) });
  return toolOutput({ content, error: "error" });
}

/** What the length guard needs to name in its notice. */
export interface LengthGuardInfo {
  /** Tool name. */
  name: string;
  /** Call id. */
  id: string;
  /** The model's arguments (fingerprinted). */
  arguments: unknown;
  /** Maximum content length (chars). */
  max: number;
  /** Persisted path of the full result, if any (a job's result file). */
  path?: string;
}

/**
 * Applies the length guard: content longer than `max` chars is replaced by a
 * JSON notice `{"exception", "stack"}` with `error: "truncated"`.
 *
 * @param output the output (content already text)
 * @param info tool, call, arguments and limit
 * @returns the output, or the truncation notice
 */
export function guardLength(
  output: ToolOutput & { content: string },
  info: LengthGuardInfo,
): ToolOutput & { content: string } {
  // a string never has more code points than UTF-16 units: most outputs need no count
  if (output.content.length <= info.max) return output;
  const length = codePointLength(output.content);
  if (length <= info.max) return output;
  const argsPrint = md5hex(JSON.stringify(info.arguments ?? {}) ?? "").slice(0, 8);
  const contentPrint = md5hex(output.content).slice(0, 8);
  const where = info.path ?? output.path;
  const text =
    `Tool '${info.name}' (call ${info.id}, arguments ${argsPrint}) executed successfully ` +
    `but returned ${length} characters, more than the maximum of ${info.max} ` +
    `(content fingerprint ${contentPrint})` +
    (where ? `; the full result is persisted at '${where}'` : "");
  const guarded = toolOutput({
    content: JSON.stringify({ exception: text, stack: [] }),
    error: "truncated",
  }) as ToolOutput & { content: string };
  if (output.step !== undefined) guarded.step = output.step;
  return guarded;
}

/**
 * Normalises what a tool returned into a {@link ToolOutput} with text content.
 *
 * @param value the awaited return value (or a ToolOutput)
 * @returns the output with string content
 */
export async function normalizeOutput(value: unknown): Promise<ToolOutput & { content: string }> {
  if (isToolOutput(value)) {
    return { ...value, content: await contentText(value.content) };
  }
  return toolOutput({ content: await contentText(value) }) as ToolOutput & { content: string };
}
