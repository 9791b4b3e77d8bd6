/**
 * Help text fitted to a width (R141-5): the width help is written in — the
 * terminal's on a TTY, a fixed 80 columns in a pipe or a file, so piped help
 * is the same on every machine — and the hand-written paragraphs of a help
 * (`addHelpText`) reflowed to it. Pure but for {@link helpWidth}, which
 * only asks the Io.
 *
 * @module
 */
import type { Io } from "./io.ts";
import { displayWidth } from "../util/display_width.ts";

/** The width of help written to no terminal (a pipe, a file): commander's own default. */
export const PIPE_HELP_WIDTH = 80;

/**
 * The width help written to `stream` is fitted to: the terminal's columns
 * on a TTY whose size is known, else {@link PIPE_HELP_WIDTH}.
 *
 * @param io the command's Io
 * @param stream where the help goes
 * @returns the width in columns
 */
export function helpWidth(io: Io, stream: "stdout" | "stderr"): number {
  const tty = stream === "stdout" ? io.stdoutIsTTY : io.stderrIsTTY;
  const columns = stream === "stdout" ? io.stdoutColumns?.() : io.stderrColumns?.();
  return tty && columns !== undefined && columns > 0 ? columns : PIPE_HELP_WIDTH;
}

/**
 * `text`'s words in lines of at most `width` columns, broken between words;
 * the lines after the first start with `indent`. A word longer than a line
 * stays whole, on a line of its own.
 *
 * @param text the words (any whitespace between them), or the words as a list (a word
 *   may hold spaces: `[--<input> value]...` is never broken)
 * @param width columns available, the indent included
 * @param indent what the lines after the first start with
 * @returns the lines (one, empty, for no words)
 */
export function wrapWords(
  text: string | readonly string[],
  width: number,
  indent = "",
): string[] {
  const words = typeof text === "string" ? text.split(/\s+/).filter((w) => w !== "") : text;
  const lines: string[] = [];
  let line = "";
  let used = 0; // columns of `line`
  for (const word of words) {
    const w = displayWidth(word);
    if (line === "") [line, used] = [word, w];
    else if (used + 1 + w <= width) [line, used] = [`${line} ${word}`, used + 1 + w];
    else {
      lines.push(line);
      [line, used] = [indent + word, displayWidth(indent) + w];
    }
  }
  lines.push(line);
  return lines;
}

/**
 * Hand-written help text reflowed to `width`: each paragraph — a run of
 * lines that start with no whitespace — is joined and wrapped between
 * words. Blank lines and lines that start with whitespace (examples, tables,
 * an example's continuation) are kept as they are, never reflowed: a command
 * runs as printed and a table keeps its columns.
 *
 * @param text the help text (pre-wrapped at any width)
 * @param width columns available
 * @returns the text fitted to `width`
 *
 * @example
 * ```ts
 * import { fitHelpText } from "./help_fit.ts";
 * fitHelpText("one two\nthree\n  scout-ai x y", 9); // "one two\nthree\n  scout-ai x y"
 * ```
 */
export function fitHelpText(text: string, width: number): string {
  const out: string[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) out.push(...wrapWords(paragraph.join(" "), width));
    paragraph = [];
  };
  for (const line of text.split("\n")) {
    if (line.trim() !== "" && !/^\s/.test(line)) paragraph.push(line);
    else {
      flush();
      out.push(line);
    }
  }
  flush();
  return out.join("\n");
}
