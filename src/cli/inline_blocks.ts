/**
 * The `# ask:` blocks of a file answered with `--inline` (agents.md §5.3):
 * finding them, writing replies after them, and placing replies asked about
 * one text into the file as it is by the time they come (R86-1).
 *
 * A reply line that reads as a marker — `# ask:`, `# Response start`,
 * `# Response end`, after any indentation — is written with a backslash
 * before its `#` (`\# Response end`), as the chat format escapes a
 * header-shaped line: the reply stays one block, and neither this reader nor
 * Ruby's asks it as a question (R86-6). A line that already has backslashes
 * there gets one more, so taking one off gives the reply back. Replies of
 * files written by Ruby, unescaped, read as before.
 *
 * @module
 */
import { withLineEnds } from "../chat/text.ts";

/** One `# ask:` block of a file. */
export interface AskBlock {
  /** 1-based line of the `# ask:` line. */
  line: number;
  /** The block's text: the `# ask:` line and the comment/blank lines after it. */
  text: string;
  /** The question with `#` and extra spaces removed. */
  question: string;
  /** Offset in the file just after the block (where a reply goes). */
  end: number;
  /** The block already has a `# Response start … # Response end` reply after it. */
  answered: boolean;
}

const ASK_LINE = /^\s*#\s*ask:/;
const COMMENT_OR_BLANK = /^\s*(#[^\n]*)?\s*$/;
const RESPONSE_START = /^\s*#\s*Response start\s*$/;
const RESPONSE_END = /^\s*#\s*Response end\s*$/;

/**
 * Finds the `# ask:` blocks of a text: an `# ask:` line and the comment or
 * blank lines after it, up to the first other line (Ruby's rule; a second
 * `# ask:` inside one comment block belongs to the first).
 *
 * @param text the file's text
 * @returns the blocks in file order
 */
export function findAskBlocks(text: string): AskBlock[] {
  const lines = text.split(/(?<=\n)/);
  const starts: number[] = [];
  let offset = 0;
  for (const l of lines) {
    starts.push(offset);
    offset += l.length;
  }
  const blocks: AskBlock[] = [];
  let i = 0;
  while (i < lines.length) {
    if (!ASK_LINE.test(lines[i]!)) {
      i++;
      continue;
    }
    const first = i;
    i++;
    while (
      i < lines.length && COMMENT_OR_BLANK.test(lines[i]!) && !RESPONSE_START.test(lines[i]!)
    ) {
      i++;
    }
    const end = i < lines.length ? starts[i]! : text.length;
    let answered = false;
    if (i < lines.length && RESPONSE_START.test(lines[i]!)) {
      const close = lines.findIndex((l, k) => k > i && RESPONSE_END.test(l));
      if (close > 0) {
        answered = true;
        i = close + 1;
      }
    }
    const blockText = text.slice(starts[first]!, end);
    blocks.push({
      line: first + 1,
      text: blockText,
      question: blockText.replaceAll("#", "").replace(/\s+/g, " ").replace(/.*?ask:\s*/, "")
        .trim(),
      end,
      answered,
    });
  }
  return blocks;
}

/**
 * The file with the replies inserted after their blocks, their lines ended
 * as the file's are (`eol`).
 *
 * @param text the original text
 * @param replies reply text by block end offset
 * @param eol the file's line end: `"\n"`, or `"\r\n"` (a reply's line ends become it)
 * @returns the new text
 */
export function withReplies(
  text: string,
  replies: ReadonlyMap<number, string>,
  eol: "\n" | "\r\n" = "\n",
): string {
  let out = "";
  let from = 0;
  for (const [end, reply] of [...replies].sort((a, b) => a[0] - b[0])) {
    out += text.slice(from, end);
    if (out !== "" && !out.endsWith("\n")) out += eol;
    const body = withLineEnds(escapeReply(reply.trimEnd()), eol);
    out += `# Response start${eol}${body}${eol}# Response end${eol}`;
    from = end;
  }
  return out + text.slice(from);
}

/** A reply line that reads as a marker, maybe escaped already: its indentation, then the rest. */
const MARKER_LIKE = /^([^\S\n]*)(\\*#[^\S\n]*(?:ask:|Response (?:start|end)[^\S\n]*$))/gm;

/**
 * A reply with every line that reads as `# ask:`, `# Response start` or
 * `# Response end` escaped by a backslash before its `#` (one more before
 * one already escaped), so that it stays one reply when the file is read.
 *
 * @example
 * ```ts
 * import { escapeReply } from "./inline_blocks.ts";
 * escapeReply("a\n  # Response end\nb"); // "a\n  \\# Response end\nb"
 * ```
 *
 * @param reply the reply's text (LF line ends)
 * @returns the text to write
 */
export function escapeReply(reply: string): string {
  return reply.replace(MARKER_LIKE, "$1\\$2");
}

/** A reply obtained for a block of the text as it was read. */
export interface BlockReply {
  /** The block, in the text as read. */
  block: AskBlock;
  /** The reply. */
  answer: string;
}

/**
 * Where replies asked about the text as read go in the text as it is now
 * (the file may have been edited, or answered by another run, meanwhile):
 * the n-th block of a question in the text read is the n-th block of that
 * question now, and a reply goes after it only while it is unanswered.
 *
 * @param read the text the questions were asked about
 * @param now the file's text now
 * @param replies the replies obtained, by block of `read`
 * @returns the replies by offset in `now` (for {@link withReplies}), and those with no place
 */
export function placeReplies(
  read: string,
  now: string,
  replies: readonly BlockReply[],
): { placed: Map<number, string>; unplaced: BlockReply[] } {
  const placed = new Map<number, string>();
  const unplaced: BlockReply[] = [];
  const before = findAskBlocks(read);
  const after = read === now ? before : findAskBlocks(now);
  for (const r of replies) {
    const nth = before.filter((b) => b.question === r.block.question).findIndex((b) =>
      b.end === r.block.end
    );
    const there = after.filter((b) => b.question === r.block.question)[nth];
    if (nth >= 0 && there && !there.answered && !placed.has(there.end)) {
      placed.set(there.end, r.answer);
    } else unplaced.push(r);
  }
  return { placed, unplaced };
}
