/**
 * Git merge-conflict markers left in a chat file ([TS-FIX] `chat.md` §7,
 * R86-3). A merge of a chat kept in git can leave both sides in the file:
 * the parser reads the markers as text stuck to messages and both branches
 * would go to the model. Detection only: parsing is unchanged; the callers
 * decide (the commands that send a chat refuse, read-only ones warn).
 *
 * @module
 */

/**
 * The 1-based line of the first merge conflict in `text`: a line starting at
 * column 0 with `<<<<<<< ` (or exactly `<<<<<<<`), later a line exactly
 * `=======`, later one starting with `>>>>>>> ` (or exactly `>>>>>>>`). The
 * whole sequence is required, so a lone `=======` (a markdown underline) is
 * not a conflict; lines inside a ```` ``` ```` fence (as the parser reads
 * fences: a line whose first non-space characters are ```` ``` ````) are not
 * looked at. A `\r` before the line end is ignored.
 *
 * @param text the chat file's text
 * @returns the line of the conflict's `<<<<<<<` marker, or undefined
 *
 * @example
 * ```ts
 * import { mergeConflictLine } from "./conflict.ts";
 * mergeConflictLine("user:\n\n<<<<<<< HEAD\na\n=======\nb\n>>>>>>> f\n"); // 3
 * mergeConflictLine("Title\n=======\n"); // undefined
 * ```
 */
export function mergeConflictLine(text: string): number | undefined {
  if (!text.includes("<<<<<<<")) return undefined; // the common case: one scan
  let fence = false;
  let start: number | undefined;
  let separated = false;
  let lineNo = 0;
  for (const raw of text.split("\n")) {
    lineNo++;
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trimStart().startsWith("```")) {
      fence = !fence;
      continue;
    }
    if (fence) continue;
    if (start === undefined) {
      if (isMarker(line, "<<<<<<<")) start = lineNo;
    } else if (!separated) {
      if (line === "=======") separated = true;
    } else if (isMarker(line, ">>>>>>>")) {
      return start;
    }
  }
  return undefined;
}

/** `marker` alone on the line, or followed by a space (and a label). */
function isMarker(line: string, marker: string): boolean {
  return line === marker || line.startsWith(marker + " ");
}
