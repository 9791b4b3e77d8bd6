/**
 * Stdin for `llm ask` / `agent ask`: `-` reads it wherever a file is named
 * (`-c -`, `QUESTION -`, `-f -`, `-i -`), but only one of them may take it.
 *
 * @module
 */
import { parse } from "../chat/parse.ts";
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
): Promise<Message[]> {
  const out: Message[] = [];
  for (const f of imports) {
    if (f !== "-") out.push({ role: "import", content: f });
    else out.push(...parse(await io.readStdin()).filter((m) => m.role !== "previous_response_id"));
  }
  for (const f of files) {
    if (f !== "-") out.push({ role: "file", content: f });
    else out.push({ role: "user", content: tagText(await io.readStdin(), { name: "stdin" }) });
  }
  return out;
}
