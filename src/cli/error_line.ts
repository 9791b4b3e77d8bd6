/**
 * An error line's length is bounded (R164-4): messages quote what the user
 * typed, and `llm ask -e <100 KB>` printed it twice (about 200 KB on
 * stderr), as did unknown options, `too many arguments`, `--older`,
 * `--interval`, unknown backends and not-found files. Each line the CLI
 * prints for an error, and the message of a `--json` error document, is cut
 * in the middle past {@link ERROR_LINE_MAX} units, keeping its start and
 * end (where the argument's end and the `(file:line)` location are).
 *
 * @module
 */
import { clipMiddle } from "../util/clip.ts";

/**
 * The most UTF-16 units of one error line: 8 KiB, twice Linux's PATH_MAX
 * (4096 bytes), so a message naming a path of any length a system takes is
 * printed whole; only text no file name can be is cut.
 */
export const ERROR_LINE_MAX = 8192;
const HEAD = 6144;
const TAIL = ERROR_LINE_MAX - HEAD;

/**
 * `line` itself when at most {@link ERROR_LINE_MAX} units, else its first
 * 6144 and last 2048 units around a mark saying how many were cut.
 *
 * @param line one line of an error message
 * @returns the line, bounded
 *
 * @example
 * ```ts
 * import { clipErrorLine } from "./error_line.ts";
 * clipErrorLine(`Unknown backend: "${"x".repeat(100_000)}"`).length; // about 8200
 * ```
 */
export function clipErrorLine(line: string): string {
  if (line.length <= ERROR_LINE_MAX) return line;
  return clipMiddle(line, HEAD, TAIL, ` …[${line.length - ERROR_LINE_MAX} characters cut]… `);
}

/**
 * Each line of `text` bounded by {@link clipErrorLine} (commander's
 * messages: the error, then a hint such as `(Did you mean --chat?)`).
 *
 * @param text one or more lines
 * @returns the text, each line bounded
 */
export function clipErrorLines(text: string): string {
  return text.split("\n").map(clipErrorLine).join("\n");
}
