/**
 * `llm ask --inline FILE` / `agent ask NAME --inline FILE` (agents.md §5.3):
 * every comment block that starts with `# ask:` is asked with the whole file
 * attached ([TS-FIX] §7.15: Ruby attached only the rest of the file after the
 * previous question), and the reply is written after the block between
 * `# Response start` and `# Response end`. The file is rewritten atomically,
 * in place (a symbolic link's target, its mode kept; `util/in_place.ts`),
 * keeping its byte-order mark and its CRLF line ends; a file that is not
 * UTF-8, or read-only, is refused before anything is asked.
 *
 * [DIVERGE] A block already followed by a `# Response start … # Response end`
 * pair is not asked again, so running the command twice does not stack replies
 * (Ruby asks again and nests the new reply inside the old one).
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { tagText } from "../chat/builders.ts";
import { compile } from "../chat/compile.ts";
import { lineEndOf, withLineEnds } from "../chat/text.ts";
import type { Message } from "../chat/types.ts";
import { ScoutError, usageError } from "../errors.ts";
import type { AskOptions, AskResult } from "../llm/ask.ts";
import { namedFileError } from "../util/fs.ts";
import { pathKind } from "../util/path_kind.ts";
import { inPlaceWrite, writeWhere } from "../util/in_place.ts";
import { concatBytes, splitBom } from "../util/utf8_bytes.ts";
import { ALLOW_ROLE_FLAG } from "./allow_role.ts";
import type { Io } from "./io.ts";
import { paint } from "./io.ts";

const utf8 = new TextEncoder();

/** The system instruction of an inline question (Ruby's wording). */
export const INLINE_SYSTEM = "Write a succint reply with no commentary and no formatting.";

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
 * The messages of one inline question: the instruction, the block quoted,
 * and the whole file as a `<file>` element.
 *
 * @param block the block
 * @param text the whole file
 * @param name the file's name as given
 * @returns the messages
 */
export function inlineMessages(block: AskBlock, text: string, name: string): Message[] {
  return [
    { role: "system", content: INLINE_SYSTEM },
    {
      role: "user",
      content:
        `Find the following question as a comment in the file give a response to be placed inline: ${block.text}`,
    },
    { role: "user", content: tagText(text, { name }) },
  ];
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
    const body = withLineEnds(reply.trimEnd(), eol);
    out += `# Response start${eol}${body}${eol}# Response end${eol}`;
    from = end;
  }
  return out + text.slice(from);
}

/** A file to answer inline: its text, and what a rewrite keeps of it. */
interface InlineFile {
  /** The file's text (after its byte-order mark). */
  text: string;
  /** The byte-order mark it starts with (empty when none). */
  bom: Uint8Array;
  /** Its line end: CRLF when its first line ends so. */
  eol: "\n" | "\r\n";
}

/**
 * Reads a file to answer inline; one that is not UTF-8 is refused, since
 * the rewrite would change its bytes.
 *
 * @throws ScoutError `file_not_found`/`io` naming the file; `invalid_input` for bytes not UTF-8
 */
async function readInlineFile(path: string, name: string): Promise<InlineFile> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (e) {
    throw namedFileError(name, e);
  }
  const { bom, body } = splitBom(bytes);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    throw new ScoutError(
      "invalid_input",
      `"${name}" is not valid UTF-8: --inline would change its bytes (convert it first, e.g. with iconv)`,
      { file: name },
    );
  }
  return { text, bom, eol: lineEndOf(text) };
}

/** `--inline` given a pipe or terminal (`<(…)`, a FIFO), which it could not read back to rewrite. */
function notRewritable(name: string): ScoutError {
  return usageError(
    `Cannot answer "${name}" inline: it is a pipe or a terminal, not a file that can be ` +
      `rewritten (save it to a file first; --dry-run only prints)`,
  );
}

/** What the inline run needs from `llm ask` / `agent ask`. */
export interface InlineRun {
  /** The file to rewrite (as given). */
  file: string;
  /** Chat files imported before each question. */
  imports: string[];
  /** Roles their compile accepts besides the chat roles (`--allow-role`). */
  allowRoles?: string[];
  /** Messages before each question (an agent's start chat). */
  prefix: Message[];
  /** Print the question chats instead of asking. */
  dryRun: boolean;
  /** Print a JSON summary. */
  json: boolean;
  /** The inference with its options. */
  ask: (messages: Message[], options: AskOptions) => Promise<AskResult>;
  /** Options for every ask (endpoint, model, cache…). */
  options: AskOptions;
}

/**
 * Answers every unanswered `# ask:` block of a file and rewrites it; after a
 * failure, the replies obtained before it are still written.
 *
 * @param run what to ask and how
 * @param io injected I/O
 * @returns exit code
 */
export async function runInline(run: InlineRun, io: Io): Promise<number> {
  const path = resolve(io.cwd, run.file);
  if (!run.dryRun && pathKind(path) === "stream") throw notRewritable(run.file);
  const { text, bom, eol } = await readInlineFile(path, run.file);
  const blocks = findAskBlocks(text);
  const todo = blocks.filter((b) => !b.answered);
  if (blocks.length === 0) throw usageError(`No "# ask:" comment in "${run.file}"`);
  // checked before anything is asked: a link's target (rewritten, mode kept), not read-only
  const where = run.dryRun ? null : inPlaceWrite(path, run.file);
  if (where?.stream) throw notRewritable(run.file); // a file known by no path (`/dev/fd/N`)
  if (!run.dryRun) io.finishWithoutStdout?.(); // the file is rewritten, stdout read or not
  const imports = run.imports.length
    ? await compile(run.imports.map((f) => ({ role: "import", content: f })), {
      cwd: io.cwd,
      env: io.env,
      name: "<imports>",
      ...(run.allowRoles ? { allowRoles: run.allowRoles } : {}),
      allowRoleFlag: ALLOW_ROLE_FLAG,
    })
    : [];
  const replies = new Map<number, string>();
  const answered: { line: number; question: string; answer: string }[] = [];
  try {
    for (const b of todo) {
      const messages = [...run.prefix, ...inlineMessages(b, text, run.file), ...imports];
      if (run.dryRun) {
        const { print } = await import("../chat/print.ts");
        io.stdout.write(`# line ${b.line}\n${print(messages).replace(/^\n/, "")}\n`);
        continue;
      }
      if (io.stderrIsTTY) {
        io.stderr.write(paint(io, "stderr", "dim", `· line ${b.line}: ${b.question}`) + "\n");
      }
      const r = await run.ask(messages, run.options);
      replies.set(b.end, r.text);
      answered.push({ line: b.line, question: b.question, answer: r.text });
    }
  } finally {
    if (replies.size > 0) {
      const out = utf8.encode(withReplies(text, replies, eol));
      await writeWhere(where!, concatBytes([bom, out]), run.file);
    }
  }
  if (run.json) {
    const out = { version: 1, file: run.file, answered, skipped: blocks.length - todo.length };
    io.stdout.write(JSON.stringify(out, null, 2) + "\n");
  } else if (!run.dryRun) {
    const skipped = blocks.length - todo.length;
    io.stderr.write(
      `${run.file}: ${answered.length} answered` +
        (skipped ? `, ${skipped} already answered (left as they were)` : "") + "\n",
    );
  }
  return 0;
}
