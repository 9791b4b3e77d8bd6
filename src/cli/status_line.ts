/**
 * The progress line of long work (`DESIGN.md` §3): drawn on stderr only
 * when it is a TTY that can redraw in place, cut to the terminal's width.
 *
 * @module
 */
import { type Io, paint } from "./io.ts";
import { escapeLine } from "../provenance/one_line.ts";
import { fitWidth } from "../util/display_width.ts";

/**
 * Whether a progress line may be drawn on stderr: it is redrawn in place
 * with `\r` and `ESC[K`, which a terminal with `TERM=dumb` (Emacs shells,
 * some CI consoles) prints as they are. Only on a TTY, never under
 * `TERM=dumb`; `NO_COLOR` is about colour and leaves it drawn.
 *
 * @param io the command's Io
 * @returns true to draw progress lines
 */
export function canRedrawStderr(io: Io): boolean {
  return io.stderrIsTTY && io.env.TERM !== "dumb";
}

/** A one-line status on stderr, redrawn in place (see {@link statusLine}). */
export interface StatusLine {
  /**
   * Redraws the line: carriage return, erase, `status` dimmed, then
   * ` subject` when given, the whole kept to one line (a newline, tab or
   * ESC in a job's name escaped, `\n`, `\t`, `\u001b`) and then cut to the
   * terminal's width when known (ending in `…`). Draws nothing when stderr
   * is not a TTY.
   *
   * @param status what is happening (dimmed)
   * @param subject what it happens to (a job's short path), plain
   */
  show(status: string, subject?: string): void;
  /**
   * Erases the line when one was drawn since the last erase; with `always`,
   * also when none was (on a TTY only, as every drawing).
   *
   * @param opts `always`: erase even when nothing was drawn
   */
  clear(opts?: { always?: boolean }): void;
}

const ERASE_LINE = "\r\x1b[K";

/**
 * A status line cut to the terminal's width, one column kept for the cursor
 * (a line that fills the last column wraps on some terminals): a longer one
 * would wrap, and the erase that redraws it clears only its last row
 * (R102-11). Unchanged when the width is unknown.
 */
function fitTerminal(io: Io, line: string): string {
  const columns = io.stderrColumns?.() ?? 0;
  return columns > 0 ? fitWidth(line, columns - 1) : line;
}

/**
 * The progress line of long work (`DESIGN.md` §3: on stderr, TTY only): one
 * renderer for every command that redraws a status in place.
 *
 * @param io the command's Io
 * @returns the line: `show` redraws it, `clear` erases it
 *
 * @example
 * ```ts
 * import { processIo } from "./io.ts";
 * import { statusLine } from "./status_line.ts";
 * const line = statusLine(processIo());
 * line.show("start", "Baking/whisk/Default"); // on a TTY's stderr: "\r\x1b[Kstart Baking/whisk/Default"
 * line.clear(); // "\r\x1b[K"
 * ```
 */
export function statusLine(io: Io): StatusLine {
  let drawn = false;
  return {
    show: (status, subject) => {
      if (!canRedrawStderr(io)) return;
      // escaped before the cut: a control character would break the line or reach the terminal
      const head = escapeLine(status);
      const line = fitTerminal(io, subject === undefined ? head : `${head} ${escapeLine(subject)}`);
      const dimmed = paint(io, "stderr", "dim", line.slice(0, head.length));
      io.stderr.write(`${ERASE_LINE}${dimmed}${line.slice(head.length)}`);
      drawn = true;
    },
    clear: (opts = {}) => {
      if (!canRedrawStderr(io) || !(drawn || opts.always)) return;
      io.stderr.write(ERASE_LINE);
      drawn = false;
    },
  };
}
