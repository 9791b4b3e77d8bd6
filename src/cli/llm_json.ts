/**
 * `scout-ai llm json FILE` — converts messages between JSON and chat text,
 * as the Ruby scout-ai's `llm json` does (agents.md §5.4, R149-1): JSON input
 * (an array of `{role, content}`, the default) is printed as a chat; `--chat`
 * input (a chat file, raw: nothing compiled) as a JSON array. `-o FILE` writes
 * the result (atomically) instead of printing it. Nothing is sent to a model:
 * structured output is `llm ask --schema FILE` / `llm ask --format json`.
 *
 * @module
 */
import type { Command } from "@commander-js/extra-typings";
import { resolve } from "node:path";
import { existsSync } from "node:fs";
import { usageError } from "../errors.ts";
import type { CliContext } from "./context.ts";
import type { Io } from "./io.ts";
import { FIXTURE_EXAMPLES } from "./help_text.ts";
import { fittedHelp } from "./help_layout.ts";

/** Options of `llm json`. */
export interface LlmJsonOptions {
  /** The input is a chat file (output: JSON). */
  chat?: boolean;
  /** The input is JSON (output: chat text); the default. */
  json?: boolean;
  /** Write here instead of printing. */
  output?: string;
}

/** The pointer an `llm json` used the old scout-ai way gets. */
const MOVED = 'structured output is now "llm ask --schema FILE" or "llm ask --format json"';

/**
 * The input file of `llm json`, or a usage error: one FILE (or `-`), no option
 * of the ask it was before (`-s`, `-e`, `-m`, `-b` …, left in `words` as
 * unknown options), and a file that exists — a question is not one.
 *
 * @param words the words after `llm json` that are not its options
 * @param cwd where FILE is relative to
 * @returns the file, or `-`
 */
export function jsonInput(words: readonly string[], cwd: string): string {
  const flag = words.find((w) => w.startsWith("-") && w !== "-");
  if (flag !== undefined) {
    throw usageError(`llm json converts a file and takes no ${flag}; ${MOVED}`);
  }
  if (words.length === 0) {
    throw usageError("Missing FILE argument for llm json (use - to read stdin)");
  }
  if (words.length > 1) {
    throw usageError(`llm json takes one FILE, got ${words.length} words; ${MOVED}`);
  }
  const file = words[0]!;
  if (file !== "-" && !existsSync(resolve(cwd, file))) {
    throw usageError(`File not found: "${file}" (llm json converts a file; ${MOVED})`);
  }
  return file;
}

/**
 * Runs `llm json`: converts FILE and prints the result, or writes it to `-o`.
 *
 * @param file the input (`-`: stdin)
 * @param opts command options
 * @param io injected I/O
 * @returns exit code
 */
export async function runLlmJson(file: string, opts: LlmJsonOptions, io: Io): Promise<number> {
  if (opts.chat && opts.json) {
    throw usageError(
      "Give --chat or --json, not both: the one that names the input's format (default --json)",
    );
  }
  if (opts.output === "-") {
    throw usageError('Cannot write -o "-": without -o the result goes to stdout');
  }
  const { jsonToChatText, readRawChat } = await import("./chat.ts");
  const { messagesJson } = await import("./listing.ts");
  const text = opts.chat
    ? messagesJson(await readRawChat(file, io)) + "\n"
    : await jsonToChatText(file, io);
  if (opts.output === undefined) {
    io.stdout.write(text);
    return 0;
  }
  const { writeInPlace } = await import("../util/in_place.ts");
  await writeInPlace(resolve(io.cwd, opts.output), text, opts.output);
  return 0;
}

const HELP = `
Converts messages between the two forms scout-ai reads, as the Ruby scout-ai's llm json does.
Nothing is compiled (no import:, file: or task: line is run) and nothing is asked of a model:
the input is read as written, like 'chat parse' / 'chat print'.

  (default, or --json)  FILE is JSON, an array of {"role", "content"} → printed as chat text
  --chat                FILE is a chat file → printed as a JSON array, one message a line

FILE - reads stdin. -o OUT writes the result to OUT instead of stdout (atomically: OUT is
whole or as it was). A JSON error names FILE and its line; a chat in UTF-16 is refused.
Exit 2 for a usage error: --chat with --json, no FILE, a FILE that does not exist.

Structured output (the scout-ai llm json of before): llm ask --schema FILE, llm ask --format json.

${FIXTURE_EXAMPLES}
  scout-ai llm json fixtures/chats/structured.messages.json > session.chat
  scout-ai llm json --chat fixtures/chats/basic.chat -o basic.json
  cat fixtures/chats/basic.chat | scout-ai llm json --chat - | jq -r '.[].role'`;

/**
 * Registers `llm json`.
 *
 * @param llm the `llm` command
 * @param ctx invocation context
 */
export function registerLlmJson(llm: Command, ctx: CliContext): void {
  llm.command("json")
    .description("convert messages between JSON and chat text (nothing is asked)")
    .argument("[file]", "the input file, or - for stdin")
    .option("-c, --chat", "the input is a chat file: print it as a JSON array")
    .option("-j, --json", "the input is JSON messages: print them as chat text (the default)")
    .option("-o, --output <file>", "write the result to this file instead of stdout")
    // the old structured-output flags (-s, -e, -m …) reach jsonInput, which points to llm ask
    .allowUnknownOption()
    .allowExcessArguments()
    .addHelpText("after", fittedHelp(HELP))
    .action(async (_file, o, cmd) => {
      const file = jsonInput(cmd.args, ctx.io.cwd);
      ctx.exitCode = await runLlmJson(file, o, ctx.io);
    });
}
