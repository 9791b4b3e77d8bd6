/**
 * The new part of an `llm ask` / `agent ask` turn: the `-i` imports, the `-f`
 * files, the question and the `-w` tools, as raw messages (each named by
 * where it came from, for errors: `CompileOptions.where`), what of them an
 * `-o` chat keeps (its `-f`/`-i` paths named from the chat's directory), and
 * what a cut in them (`clear:`, `clear_tools:`, `clean_role:`) does to the
 * `-c` history this turn — what the saved chat's next compile will do.
 *
 * @module
 */
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { clear, CLEAR_STAGE_ROLES } from "../chat/clear.ts";
import { isUrlRef } from "../chat/find_file.ts";
import { KEEP_EMPTY_BLOCK, parseWithLines } from "../chat/parse.ts";
import { tagText } from "../chat/builders.ts";
import type { Message } from "../chat/types.ts";
import type { Io } from "./io.ts";
import { readStdinChat, readStdinText } from "./lossy_text.ts";
import { pathKind } from "../util/path_kind.ts";

/**
 * The `-f` and `-i` arguments as messages to compile: a `file` or `import`
 * line per file; `-` reads stdin — a `-f -` becomes the `<file name="stdin">`
 * block a file line compiles to, a `-i -` the messages of the chat on stdin
 * (compiled on its own by `how.importStdin`, as an imported file is: a
 * `clear:` in it stays local).
 *
 * @param files `-f` arguments (those not already put into the question)
 * @param imports `-i` arguments
 * @param io injected I/O (stdin)
 * @param how where each message came from (recorded), and how a chat on stdin compiles
 * @returns the messages, imports first
 */
export async function attachments(
  files: readonly string[],
  imports: readonly string[],
  io: Io,
  how: { where: AskPartWhere; importStdin: (text: string) => Promise<Message[]> },
): Promise<Message[]> {
  const { where } = how;
  const out: Message[] = [];
  for (const f of imports) {
    if (f !== "-") out.push(named({ role: "import", content: f }, where, "-i"));
    else {
      const chat = await how.importStdin(await readStdinChat(io, "the chat to import (-i -)")); // refused in UTF-16
      out.push(...chat.filter((m) => m.role !== "previous_response_id"));
    }
  }
  for (const f of files) {
    if (f !== "-") out.push(named({ role: "file", content: f }, where, "-f"));
    else {out.push({
        role: "user",
        content: tagText(await readStdinText(io, "the file (-f -)"), { name: "stdin" }),
      });}
  }
  return out;
}

/**
 * The name recorded for the `import:` a question naming a chat file becomes
 * (R158-2): saved from the `-o` chat's directory, as an `-i` file is.
 */
export const QUESTION_FILE = "QUESTION";

/** Where each message of an ask's new part came from (`CompileOptions.where`). */
export type AskPartWhere = Map<Message, { file: string; line?: number }>;

/**
 * Records where a message of the ask came from: the flag that gave it, or
 * the question's (or stdin's) line.
 *
 * @param m the message
 * @param where the record (none: nothing recorded)
 * @param file the flag or the text's name
 * @param line its line in that text, if any
 * @returns `m`
 */
export function named(
  m: Message,
  where: AskPartWhere | undefined,
  file: string,
  line?: number,
): Message {
  where?.set(m, line === undefined ? { file } : { file, line });
  return m;
}

/**
 * Where the question's lines were written: all in one text, by its name
 * (`<question>`, `<stdin>`), or, through a template, each in the question or
 * in the template file.
 */
export type QuestionLines = string | ((line: number) => { file: string; line: number });

/**
 * The question's messages, each named by where its line was written.
 *
 * @param question the question text
 * @param lines where its lines were written (none: not recorded)
 * @param where the record
 * @returns the parsed messages (none for a blank question)
 */
export function questionMessages(
  question: string,
  lines: QuestionLines | undefined,
  where: AskPartWhere,
  insert?: QuestionInsert,
): Message[] {
  if (question.trim() === "") return [];
  const parsed = parseWithLines(question);
  const chat = insert ? parsed.chat.map((m) => withInsert(m, insert)) : parsed.chat;
  if (lines === undefined) return chat;
  const origin = typeof lines === "string" ? (line: number) => ({ file: lines, line }) : lines;
  return chat.map((m, i) => {
    const at = origin(parsed.lines[i]!); // one start line per message
    return named(m, where, at.file, at.line);
  });
}

/**
 * The text put in for the question's `...` (a `-f` file or stdin), held out of
 * the question's parse: the question holds `placeholder` where it goes.
 */
export interface QuestionInsert {
  /** A token the question holds once, in place of its first `...`. */
  placeholder: string;
  /** The text, put in as it is. */
  text: string;
}

/**
 * A message with the inserted text in place of the placeholder, as data: its
 * lines are never read as chat syntax (a `file:` or `mcp:` line in a piped log
 * reads nothing and runs nothing; agents.md §3.6). The message's ends are
 * trimmed as the parser trims a message's.
 */
function withInsert(m: Message, insert: QuestionInsert): Message {
  if (typeof m.content !== "string" || !m.content.includes(insert.placeholder)) return m;
  const content = m.content.replace(insert.placeholder, () => insert.text);
  return { ...m, content: content.replace(/^(?:[ \t]*\r?\n)+/, "").trimEnd() };
}

/**
 * What the `-o` chat keeps of the new part: its messages without the empty
 * ones (a header-led question's leading block, an empty `[[ ]]` block: compile
 * drops them anyway) — except the empty cut blocks that mean something
 * (`clear:`, `clear_tools:`, `skip:`; chat.md D8).
 *
 * @param part the new part's raw messages
 * @returns the messages to save
 */
export function savedPart(part: readonly Message[]): Message[] {
  return part.filter((m) => m.content !== "" || KEEP_EMPTY_BLOCK.has(m.role));
}

/**
 * The `-c` history as this turn sends it: a cut in the new part applies to it
 * too (as in Ruby, where the question joins the chat before the compile, and
 * as the saved chat's next compile does); without one, unchanged.
 *
 * @param history the compiled `-c` messages
 * @param part the new part's raw messages
 * @returns the history to send
 */
export function cutHistory(history: Message[], part: readonly Message[]): Message[] {
  const cuts = part.filter((m) => CLEAR_STAGE_ROLES.has(m.role));
  if (cuts.length === 0) return history;
  return clear([...history, ...cuts]);
}

/**
 * The new part with its `-f`/`-i` paths as the `-o` chat names them: a path
 * typed relative to the working directory (and found there) is written
 * relative to the chat's directory, where `chat.md` §5.3's first candidate
 * finds it whatever directory the chat is compiled from. Everything else is
 * kept as typed (see {@link savedRef}); so is every path when the chat is a
 * pipe or a device (`-o >(…)`: where its text goes is not known).
 *
 * @param part the new part's raw messages
 * @param where where each came from (the `-f`/`-i` ones are rewritten)
 * @param to the working directory and the `-o` chat (resolved)
 * @returns the part, the rewritten messages copied
 */
export function savedRefs(
  part: Message[],
  where: AskPartWhere,
  to: { cwd: string; outPath: string | undefined },
): Message[] {
  const { cwd, outPath } = to;
  if (outPath === undefined || pathKind(outPath) === "stream") return part;
  return part.map((m) => {
    const flag = where.get(m)?.file;
    const isRef = flag === "-f" || flag === "-i" || flag === QUESTION_FILE;
    if (!isRef || typeof m.content !== "string") return m;
    const ref = m.content.trim();
    const saved = savedRef(ref, cwd, dirname(outPath));
    // a name found in a chat directory (`-i lib.chat`) is looked up there again
    return saved === ref || pathKind(resolve(cwd, ref)) === null ? m : { ...m, content: saved };
  });
}

/**
 * How a chat in `chatDir` names the file `ref` names from `cwd`: relative to
 * `chatDir`; as typed when the chat is in `cwd` (byte for byte), and for an
 * absolute path, a `~/` one, `-` and a URL.
 *
 * @param ref the path as typed (trimmed)
 * @param cwd the working directory (absolute)
 * @param chatDir the chat's directory (absolute)
 * @returns the path to write
 *
 * @example
 * ```ts
 * import { savedRef } from "./ask_new_part.ts";
 * savedRef("notes.md", "/w/a", "/w/a/out"); // "../notes.md"
 * savedRef("./notes.md", "/w/a", "/w/a"); // "./notes.md"
 * ```
 */
export function savedRef(ref: string, cwd: string, chatDir: string): string {
  if (ref === "" || ref === "-" || ref === "~" || ref.startsWith("~/")) return ref;
  if (isUrlRef(ref) || isAbsolute(ref) || resolve(chatDir) === resolve(cwd)) return ref;
  return relative(chatDir, resolve(cwd, ref)) || ".";
}
