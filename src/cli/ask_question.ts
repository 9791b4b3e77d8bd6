/**
 * The question of an `llm ask` / `agent ask` turn as text: the words, or
 * stdin, through `-t`'s template, with what its `...` stands for held out,
 * and where each of its lines was written (for errors).
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import { displayPath } from "../chat/compile_context.ts";
import type { QuestionInsert, QuestionLines } from "./ask_new_part.ts";
import type { Io } from "./io.ts";
import { readStdinChat, readStdinText, readTextWarned } from "./lossy_text.ts";
import type { LlmAskOptions } from "./llm_ask_types.ts";
import { pathKind } from "../util/path_kind.ts";

/**
 * The question: words (or `-`: stdin) through `-t`'s template; its first
 * `...` stands for the first `-f` file's text (`-`: stdin), else for stdin
 * when no `-c -`/`-f -`/`-i -` takes it (agents.md §5.1 step 3). No words
 * read stdin as the question only with no `-c`/`-f` (Ruby never does; R158-1). That text is
 * data, put into the parsed question's message (`insert`), not parsed with it
 * as Ruby does (docs/spec-notes/agents-cli.md); a file put into the question
 * is not attached again (`filled`).
 *
 * @param opts command options (question words, `-t`, `-f`, `-i`, `-c`)
 * @param io injected I/O (stdin)
 * @returns the question text, whether the first `-f` file went into it, where
 *   its lines were written, and the text held out for its `...`
 */
export async function questionText(
  opts: LlmAskOptions,
  io: Io,
): Promise<{ question: string; filled: boolean; lines: QuestionLines; insert?: QuestionInsert }> {
  const question = opts.question.join(" ");
  const chatOnStdin = opts.chat === "-";
  const as = (q: Templated, filled = false) => ({ ...q, filled });
  const filledWith = (q: Templated, text: string, filled = false) => {
    const placeholder = `\u{E000}scout-ai:${randomUUID()}\u{E000}`;
    const withPlaceholder = q.question.replace("...", () => placeholder);
    return { ...as({ ...q, question: withPlaceholder }, filled), insert: { placeholder, text } };
  };
  // a question on stdin is chat text: refused in UTF-16 (`chat/encoding.ts`); what `...` stands
  // for is data, read as any file is
  if (question === "-") {
    return as(await withTemplate(opts, await readStdinChat(io, "the question"), "<stdin>", io));
  }
  const q = await withTemplate(opts, question, "<question>", io);
  const file = opts.files[0];
  if (q.question.includes("...") && file !== undefined) {
    return filledWith(
      q,
      file === "-"
        ? await readStdinText(io, "the text for ... (-f -)")
        : await readTextWarned(io, resolve(io.cwd, file), file),
      true,
    );
  }
  // stdin holds the chat, or a -f - / -i - file
  const taken = chatOnStdin || opts.files.includes("-") || (opts.imports ?? []).includes("-");
  const blank = q.question.trim() === "";
  if (taken || (blank && io.stdinIsTTY)) return as(q);
  // with -c FILE or -f FILE an empty question is none, as in Ruby (which reads stdin only for
  // `...`): a `while read` loop's stdin is not a turn (R158-1)
  const hasInput = opts.chat !== undefined || opts.files.length > 0;
  if (blank && hasInput) return as(q);
  if (blank) return as({ question: await readStdinChat(io), lines: "<stdin>" });
  if (!q.question.includes("...") || io.stdinIsTTY) return as(q);
  // an empty stdin (`< /dev/null`, a batch job's) fills nothing: `[...]` stays as written
  const piped = await readStdinText(io);
  return piped.trim() === "" ? as(q) : filledWith(q, piped);
}

/**
 * The chat file the question names, if it is one: as Ruby's `LLM.chat(question)`
 * reads a question that is an existing file's path (`Path.is_filename?`;
 * agents.md §5.1 step 4), the whole question typed as words (after `-t`'s
 * template), one line, naming a regular file from the working directory (or
 * absolute). Not with a `-f` file (Ruby puts it into the question, which then
 * names no file) nor a `...` insert; a directory, a FIFO, a device or a
 * path under `/dev/` or `/proc/` is not read (the question stays text). R158-2.
 *
 * @param opts command options (question words, `-f`)
 * @param q the question text as `questionText` gave it
 * @param io injected I/O (the working directory)
 * @returns the path as typed, or undefined: the question is chat text
 */
export function questionFile(
  opts: LlmAskOptions,
  q: { question: string; insert?: QuestionInsert },
  io: Io,
): string | undefined {
  const text = q.question;
  if (opts.question.join(" ") === "-" || opts.files.length > 0 || q.insert) return undefined;
  if (text.trim() === "" || text.includes("\n") || text.includes("\r")) return undefined;
  const path = resolve(io.cwd, text);
  // `/dev/stdin` < FILE is a regular file through its link: a device name stays a word
  if (/^\/(?:dev|proc)\//.test(path)) return undefined;
  return pathKind(path) === "file" ? text : undefined;
}

/** A question, and where its lines were written. */
interface Templated {
  question: string;
  lines: QuestionLines;
}

/**
 * The question put into `-t`'s template (`agents.md` §5.3), or as it is; its
 * lines are named `name` (`<question>`, `<stdin>`) and the template's by the
 * template file.
 */
async function withTemplate(
  opts: LlmAskOptions,
  question: string,
  name: string,
  io: Io,
): Promise<Templated> {
  if (opts.template === undefined) return { question, lines: name };
  const { templateQuestion } = await import("./llm_template.ts");
  const t = await templateQuestion(opts.template, question, { cwd: io.cwd, env: io.env });
  const shown = displayPath(t.file, io.cwd);
  return {
    question: t.text,
    lines: (line) => {
      const at = t.lineOf(line);
      return { file: at.inQuestion ? name : shown, line: at.line };
    },
  };
}
