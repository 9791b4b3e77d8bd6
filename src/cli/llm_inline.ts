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
 * [TS-FIX] (R86-1) The replies are written into the file as it is when they
 * are all in (read again under its persist lock), so an edit saved meanwhile
 * is kept; a reply whose question is gone is told and printed, never lost.
 * [TS-FIX] (R86-6) Marker-looking reply lines are escaped (`inline_blocks.ts`).
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { tagText } from "../chat/builders.ts";
import { compile } from "../chat/compile.ts";
import { lineEndOf } from "../chat/text.ts";
import type { Message } from "../chat/types.ts";
import { ScoutError, usageError } from "../errors.ts";
import type { AskOptions, AskResult } from "../llm/ask.ts";
import { namedFileError } from "../util/fs.ts";
import { pathKind } from "../util/path_kind.ts";
import { type InPlace, inPlaceWrite, writeWhere } from "../util/in_place.ts";
import { concatBytes, splitBom } from "../util/utf8_bytes.ts";
import { ALLOW_ROLE_FLAG } from "./allow_role.ts";
import { fileLock } from "./chat_output.ts";
import {
  type AskBlock,
  type BlockReply,
  findAskBlocks,
  placeReplies,
  withReplies,
} from "./inline_blocks.ts";
import type { Io } from "./io.ts";
import { paint, warn, warnSink } from "./io.ts";
import { messageRecords } from "./listing.ts";
import { jsonText } from "../util/json_text.ts";

export { type AskBlock, findAskBlocks, withReplies } from "./inline_blocks.ts";

const utf8 = new TextEncoder();

/** The system instruction of an inline question (Ruby's wording). */
export const INLINE_SYSTEM = "Write a succint reply with no commentary and no formatting.";

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
 * failure, the replies obtained before it are still written. The file is
 * read again under its persist lock just before the write, and the replies
 * go into it as it is then (R86-1): an edit saved while the model answered
 * is kept, and a reply whose question is gone or answered meanwhile is told
 * on stderr and printed on stdout.
 *
 * @param run what to ask and how
 * @param io injected I/O
 * @returns exit code
 */
export async function runInline(run: InlineRun, io: Io): Promise<number> {
  const path = resolve(io.cwd, run.file);
  if (!run.dryRun && pathKind(path) === "stream") throw notRewritable(run.file);
  const { text } = await readInlineFile(path, run.file);
  const blocks = findAskBlocks(text);
  const todo = blocks.filter((b) => !b.answered);
  if (blocks.length === 0) throw usageError(`No "# ask:" comment in "${run.file}"`);
  // checked before anything is asked: a link's target (rewritten, mode kept), not read-only
  const where = run.dryRun ? null : inPlaceWrite(path, run.file);
  if (where?.stream) throw notRewritable(run.file); // a file known by no path (`/dev/fd/N`)
  const imports = await inlineImports(run, io);
  const skipped = blocks.length - todo.length;
  if (run.dryRun) return await printDryRun(run, { text, todo, imports, skipped }, io);
  io.finishWithoutStdout?.(); // the file is rewritten, stdout read or not
  const got: BlockReply[] = [];
  let unplaced: BlockReply[] = [];
  let done = false;
  try {
    for (const b of todo) {
      const messages = [...run.prefix, ...inlineMessages(b, text, run.file), ...imports];
      if (io.stderrIsTTY) {
        io.stderr.write(paint(io, "stderr", "dim", `· line ${b.line}: ${b.question}`) + "\n");
      }
      const r = await run.ask(messages, run.options);
      got.push({ block: b, answer: r.text });
    }
    done = true;
  } finally {
    if (got.length > 0) {
      const save = { path, where: where!, read: text, got, name: run.file };
      unplaced = await saveReplies(save, io).catch((e) => {
        // a full disk, a lock refused: the file is as it was; the replies paid for are shown (R92-4)
        printReplies(got, run.file, run.json ? io.stderr : io.stdout);
        throw e;
      });
      tellUnplaced(unplaced, run.file, io, !(done && run.json));
    }
  }
  const answered = got.filter((r) => !unplaced.includes(r)).map(entry);
  if (run.json) {
    const out = {
      version: 1,
      file: run.file,
      answered,
      skipped,
      unplaced: unplaced.map(entry),
    };
    io.stdout.write(jsonText(out, 2) + "\n");
  } else {
    io.stderr.write(
      `${run.file}: ${answered.length} answered` +
        (unplaced.length ? `, ${unplaced.length} not placed (printed on stdout)` : "") +
        (skipped ? `, ${skipped} already answered (left as they were)` : "") + "\n",
    );
  }
  return 0;
}

/** What a dry run shows: the questions to ask, and what each is sent with. */
interface DryRun {
  /** The file's text. */
  text: string;
  /** The unanswered blocks. */
  todo: AskBlock[];
  /** The `-i` chats, before each question. */
  imports: Message[];
  /** How many blocks are answered already. */
  skipped: number;
}

/**
 * `--dry-run`: each question's chat as it would be sent, after a `# line N`
 * line; with `--json`, in the one document (R137-2), as `llm ask --dry-run
 * --json` prints its messages: `"dry_run":true` and `"questions":[{line,
 * question, messages:[{role, content}…]}]`, with the fields of a run that
 * asked (nothing answered).
 */
async function printDryRun(run: InlineRun, d: DryRun, io: Io): Promise<number> {
  const chats = d.todo.map((b) => ({
    block: b,
    messages: [...run.prefix, ...inlineMessages(b, d.text, run.file), ...d.imports],
  }));
  if (!run.json) {
    const { print } = await import("../chat/print.ts");
    for (const { block, messages } of chats) {
      io.stdout.write(`# line ${block.line}\n${print(messages).replace(/^\n/, "")}\n`);
    }
    return 0;
  }
  const questions = chats.map(({ block, messages }) => ({
    line: block.line,
    question: block.question,
    messages: messageRecords(messages),
  }));
  const out = {
    version: 1,
    file: run.file,
    dry_run: true,
    questions,
    answered: [],
    skipped: d.skipped,
    unplaced: [],
  };
  io.stdout.write(jsonText(out, 2) + "\n");
  return 0;
}

/** A reply as `--json` lists it. */
function entry(r: BlockReply): { line: number; question: string; answer: string } {
  return { line: r.block.line, question: r.block.question, answer: r.answer };
}

/** The chats `-i` imports before each question. */
function inlineImports(run: InlineRun, io: Io): Promise<Message[]> | Message[] {
  if (run.imports.length === 0) return [];
  return compile(run.imports.map((f) => ({ role: "import", content: f })), {
    cwd: io.cwd,
    env: io.env,
    name: "<imports>",
    ...(run.allowRoles ? { allowRoles: run.allowRoles } : {}),
    allowRoleFlag: ALLOW_ROLE_FLAG,
  });
}

/** What {@link saveReplies} writes. */
interface Save {
  /** Absolute path of the file. */
  path: string;
  /** Where its write lands (checked before asking). */
  where: InPlace;
  /** The text the questions were asked about. */
  read: string;
  /** The replies obtained. */
  got: BlockReply[];
  /** The file's name as given. */
  name: string;
}

/**
 * Writes the replies into the file as it is now: under its persist lock (the
 * one `-o` takes, so two runs take turns), read again, each reply after its
 * block if that is still there unanswered (`placeReplies`), the file's byte-
 * order mark and line end as they are now.
 *
 * @returns the replies that found no place (all of them when the file cannot be read back)
 */
async function saveReplies(s: Save, io: Io): Promise<BlockReply[]> {
  const lock = await fileLock(s.where.file, io.env, warnSink(io), "file");
  try {
    let now: InlineFile;
    try {
      now = await readInlineFile(s.path, s.name);
    } catch (e) {
      warn(
        io,
        `Cannot read "${s.name}" back to write the replies: ${
          e instanceof Error ? e.message : String(e)
        }`,
      );
      return s.got;
    }
    const { placed, unplaced } = placeReplies(s.read, now.text, s.got);
    if (placed.size > 0) {
      const out = utf8.encode(withReplies(now.text, placed, now.eol));
      await writeWhere(s.where, concatBytes([now.bom, out]), s.name);
    }
    return unplaced;
  } finally {
    lock.release();
  }
}

/**
 * Tells each reply that found no place on stderr (one line naming the file
 * and the question's line) and, unless `--json` lists them, prints it on
 * stdout as the block it would have been.
 */
function tellUnplaced(unplaced: BlockReply[], name: string, io: Io, print: boolean): void {
  for (const { block } of unplaced) {
    io.stderr.write(
      `${name}:${block.line}: the question "${block.question}" is no longer in the file ` +
        `unanswered (it changed while asking): its reply is printed on stdout\n`,
    );
  }
  if (print) printReplies(unplaced, name, io.stdout);
}

/** Prints replies as the blocks they would have been: `# FILE:LINE: question`, the reply. */
function printReplies(replies: BlockReply[], name: string, out: Io["stdout"]): void {
  for (const { block, answer } of replies) {
    out.write(
      `# ${name}:${block.line}: ${block.question}\n` + withReplies("", new Map([[0, answer]])),
    );
  }
}
