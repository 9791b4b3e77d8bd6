/**
 * Stdin for `llm ask` / `agent ask`: `-` reads it wherever a file is named
 * (`-c -`, `QUESTION -`, `-f -`, `-i -`), but only one of them may take it.
 *
 * @module
 */
import { parseWithLines } from "../chat/parse.ts";
import { tagText } from "../chat/builders.ts";
import type { Message } from "../chat/types.ts";
import { usageError } from "../errors.ts";
import type { Io } from "./io.ts";
import type { LlmAskOptions } from "./llm_ask.ts";

/**
 * Checks that at most one of `-c -`, `QUESTION -`, `-f -` and `-i -` reads
 * stdin.
 *
 * @param opts command options
 * @throws usage error naming the ones given
 */
export function checkStdinUse(opts: LlmAskOptions): void {
  const users = [
    ...(opts.chat === "-" ? ["-c -"] : []),
    ...(opts.question.join(" ") === "-" ? ["QUESTION -"] : []),
    ...opts.files.filter((f) => f === "-").map(() => "-f -"),
    ...(opts.imports ?? []).filter((f) => f === "-").map(() => "-i -"),
  ];
  if (users.length > 1) {
    throw usageError(`Stdin can feed only one of ${users.join(", ")}: name files for the others`);
  }
}

/**
 * The `-f` and `-i` arguments as messages to compile: a `file` or `import`
 * line per file; `-` reads stdin — a `-f -` becomes the `<file name="stdin">`
 * block a file line compiles to, a `-i -` the messages of the chat on stdin.
 *
 * @param files `-f` arguments (those not already put into the question)
 * @param imports `-i` arguments
 * @param io injected I/O (stdin)
 * @returns the messages, imports first
 */
export async function attachments(
  files: readonly string[],
  imports: readonly string[],
  io: Io,
  where?: AskPartWhere,
): Promise<Message[]> {
  const out: Message[] = [];
  for (const f of imports) {
    if (f !== "-") out.push(named({ role: "import", content: f }, where, "-i"));
    else {
      const { chat, lines } = parseWithLines(await io.readStdin());
      chat.forEach((m, i) => named(m, where, "<stdin>", lines[i]));
      out.push(...chat.filter((m) => m.role !== "previous_response_id"));
    }
  }
  for (const f of files) {
    if (f !== "-") out.push(named({ role: "file", content: f }, where, "-f"));
    else out.push({ role: "user", content: tagText(await io.readStdin(), { name: "stdin" }) });
  }
  return out;
}

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
 * The question's messages, each named by its line when the text is as the
 * user gave it (`lines`: its name), else by `<question>` alone.
 *
 * @param question the question text
 * @param lines the name its lines are reported under, if they are the user's
 * @param where the record
 * @returns the parsed messages (none for a blank question)
 */
export function questionMessages(
  question: string,
  lines: string | undefined,
  where: AskPartWhere,
): Message[] {
  if (question.trim() === "") return [];
  const parsed = parseWithLines(question);
  if (lines === undefined) return parsed.chat;
  return parsed.chat.map((m, i) => named(m, where, lines, parsed.lines[i]));
}
