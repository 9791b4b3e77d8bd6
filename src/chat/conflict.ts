/**
 * Git merge-conflict markers left in a chat file ([TS-FIX] `chat.md` §7,
 * R86-3, R90-2). A merge of a chat kept in git can leave both sides of its
 * turns in the file: the parser reads the markers as text stuck to messages
 * and both branches would go to the model. The same markers also appear in a
 * chat that discusses a conflict (a pasted `config.ini`, a model's answer
 * quoting one): those are text inside one message. What tells them apart is a
 * role header line between `<<<<<<<` and `>>>>>>>`: a merge of turns has one,
 * a message's text cannot (the printer writes a content line that looks like
 * a header escaped, `\user:`). Since R95-2 the printer escapes marker lines
 * too (`\<<<<<<< HEAD`, `\=======`), so a chat it wrote holds no conflict; an
 * escaped marker is no marker here. Detection only: parsing is unchanged; the
 * callers decide.
 *
 * @module
 */
import { ScoutError } from "../errors.ts";
import { parseWithLines } from "./parse.ts";
import { isHeaderLine } from "./text.ts";

/** A git merge conflict found in a chat's text. */
export interface MergeConflict {
  /** 1-based line of its `<<<<<<<` marker. */
  line: number;
  /**
   * 1-based line of the first role header (as the parser reads one) between
   * its `<<<<<<<` and `>>>>>>>` markers: the merge split or added turns.
   * Undefined when the whole conflict is text inside one message.
   */
  header?: number;
}

/**
 * The merge conflict of `text` that matters most: the first one whose region
 * holds a role header line, else the first one. A conflict is a line starting
 * at column 0 with `<<<<<<< ` (or exactly `<<<<<<<`), later a line exactly
 * `=======`, later one starting with `>>>>>>> ` (or exactly `>>>>>>>`). The
 * whole sequence is required, so a lone `=======` (a markdown underline) is
 * not a conflict; lines inside a ```` ``` ```` fence (as the parser reads
 * fences: a line whose first non-space characters are ```` ``` ````) are not
 * looked at. A role header is a line the parser reads as one: a message
 * starts there on a `[a-z0-9_]+:` line (`isHeaderLine`) — a line of that shape
 * inside a `[[ … ]]` block or a tag is text (R135-1). A `\r` before the line
 * end is ignored.
 *
 * @param text the chat file's text
 * @returns the conflict, or undefined when there is none
 *
 * @example
 * ```ts
 * import { mergeConflict } from "./conflict.ts";
 * mergeConflict("user:\n\n<<<<<<< HEAD\na\n=======\nb\n>>>>>>> f\n"); // { line: 3 }
 * mergeConflict("<<<<<<< HEAD\nuser: a\n=======\nuser: b\n>>>>>>> f\n"); // { line: 1, header: 2 }
 * mergeConflict("Title\n=======\n"); // undefined
 * ```
 */
export function mergeConflict(text: string): MergeConflict | undefined {
  if (!text.includes("<<<<<<<")) return undefined; // the common case: one scan
  const headers = headerLines(text);
  let first: MergeConflict | undefined;
  let fence = false;
  let start: number | undefined;
  let header: number | undefined;
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
      if (isMarker(line, "<<<<<<<")) [start, header, separated] = [lineNo, undefined, false];
      continue;
    }
    if (header === undefined && headers.has(lineNo)) header = lineNo;
    if (!separated) {
      if (line === "=======") separated = true;
    } else if (isMarker(line, ">>>>>>>")) {
      const found = header === undefined ? { line: start } : { line: start, header };
      if (header !== undefined) return found;
      first ??= found;
      start = undefined;
    }
  }
  return first;
}

/**
 * The 1-based lines the parser reads as role headers: where a message
 * starts on a header line — not a `word:` line inside a `[[ … ]]` block, a
 * tag or a fence, which the parser keeps as text (R135-1).
 */
function headerLines(text: string): Set<number> {
  const rows = text.split("\n");
  const { lines } = parseWithLines(text);
  return new Set(lines.filter((n) => isHeaderLine((rows[n - 1] ?? "").replace(/\r$/, ""))));
}

/**
 * The 1-based `<<<<<<<` line of {@link mergeConflict}'s conflict (whether or
 * not it holds a role header): what the read-only commands warn of.
 *
 * @param text the chat file's text
 * @returns the line, or undefined when there is no conflict
 */
export function mergeConflictLine(text: string): number | undefined {
  return mergeConflict(text)?.line;
}

/**
 * The refusal of a chat whose turns a merge left in conflict (a
 * {@link MergeConflict} with a `header`): what every command that sends a
 * chat throws, for the chat it was given or a chat that one imports.
 *
 * @param name the file as the user gave it (`<stdin>` for stdin), or as
 *   compile names an imported one
 * @param line the `<<<<<<<` line
 * @returns the error, code `merge_conflict`, to throw
 */
export function mergeConflictError(name: string, line: number): ScoutError {
  return new ScoutError(
    "merge_conflict",
    `Merge conflict in "${name}": resolve the <<<<<<< / ======= / >>>>>>> markers first`,
    { file: name, line },
  );
}

/**
 * The warning of a conflict that is not refused: one inside a message of a
 * chat that is sent (`sent`), or any conflict of a chat that is only read.
 *
 * @param name the file
 * @param line the `<<<<<<<` line
 * @param sent whether the chat is being sent
 * @returns the warning, without the `scout-ai: warning: ` prefix
 */
export function mergeConflictWarning(name: string, line: number, sent: boolean): string {
  return sent
    ? `${name}:${line}: merge conflict markers inside a message, sent as text`
    : `${name}:${line}: merge conflict markers (<<<<<<< / ======= / >>>>>>>), read as text`;
}

/** `marker` alone on the line, or followed by a space (and a label). */
function isMarker(line: string, marker: string): boolean {
  return line === marker || line.startsWith(marker + " ");
}
