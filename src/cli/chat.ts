/**
 * `scout-ai chat parse|print …` — inspection and scripting of `.chat` files.
 *
 * @module
 */
import type { Command } from "@commander-js/extra-typings";
import { ScoutError } from "../errors.ts";
import { typeName } from "../chat/type_name.ts";
import { jsonErrorParts } from "../util/json_error.ts";
import type { Chat, Message } from "../chat/types.ts";
import { parse } from "../chat/parse.ts";
import { isHeaderWord, print } from "../chat/print.ts";
import type { CliContext } from "./context.ts";
import { readInput } from "./input.ts";
import type { Io } from "./io.ts";
import { warnLossy } from "./lossy_text.ts";
import { warnConflict } from "./chat_conflict.ts";
import { listing, messagesJson } from "./listing.ts";
import { registerChatCompile } from "./chat_compile.ts";
import { FIXTURE_EXAMPLES } from "./help_text.ts";
import { fittedHelp } from "./help_layout.ts";

/** Options of `chat parse`. */
export interface ChatParseOptions {
  /** File path, `-` for stdin, or undefined (stdin when piped). */
  file?: string;
  /** Print a JSON array of `{role, content}`. */
  json?: boolean;
}

/**
 * `chat parse`: the raw messages of a chat file (nothing compiled).
 *
 * @param opts command options
 * @param io injected I/O
 * @returns exit code
 */
export async function runChatParse(opts: ChatParseOptions, io: Io): Promise<number> {
  const chat = await readRawChat(opts.file, io);
  if (opts.json) io.stdout.write(messagesJson(chat) + "\n");
  else io.stdout.write(listing(chat, io));
  return 0;
}

/**
 * Reads a chat file (or stdin) as raw messages, nothing compiled — what
 * `chat parse` and `llm json --chat` read: invalid UTF-8 and merge-conflict
 * markers are warned of, UTF-16/UTF-32 refused (R133-1).
 *
 * @param file path, `-`, or undefined (stdin when piped)
 * @param io injected I/O
 * @returns the messages
 */
export async function readRawChat(file: string | undefined, io: Io): Promise<Chat> {
  const input = await readInput(file, io, { chat: true }); // UTF-16 refused (R133-1)
  if (input.lossy) warnLossy(io, input.name);
  warnConflict(io, input.text, input.name); // parsed as written, but said (R86-3)
  return parse(input.text);
}

/**
 * Reads a JSON file (or stdin) of messages and prints them as chat text —
 * what `chat print` and `llm json` print.
 *
 * @param file path, `-`, or undefined (stdin when piped)
 * @param io injected I/O
 * @returns the chat text, ending with a newline
 * @throws ScoutError `json_parse` naming the input and line; `invalid_input` for a bad message
 */
export async function jsonToChatText(file: string | undefined, io: Io): Promise<string> {
  const input = await readInput(file, io);
  return print(messagesFromJson(input.text, input.name)) + "\n";
}

/** Options of `chat print`. */
export interface ChatPrintOptions {
  /** JSON file (array of `{role, content}`), `-`, or undefined for piped stdin. */
  file?: string;
}

/**
 * `chat print`: JSON messages in, chat text out.
 *
 * @param opts command options
 * @param io injected I/O
 * @returns exit code
 */
export async function runChatPrint(opts: ChatPrintOptions, io: Io): Promise<number> {
  io.stdout.write(await jsonToChatText(opts.file, io));
  return 0;
}

/**
 * Validates JSON text as a message list: an array of objects whose `role` is a
 * header word `[a-z0-9_]+`. Errors name the input and the offending index.
 *
 * @param text JSON text
 * @param name input name for messages
 * @returns the messages
 */
export function messagesFromJson(text: string, name: string): Chat {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    const { text: why, line } = jsonErrorParts(text, e);
    throw new ScoutError("json_parse", `Invalid JSON in ${name}: ${why}`, { file: name, line });
  }
  if (!Array.isArray(data)) {
    throw new ScoutError(
      "invalid_input",
      `Expected a JSON array of messages in ${name}, got ${typeName(data)}`,
      {
        file: name,
      },
    );
  }
  data.forEach((m, i) => {
    if (m === null || typeof m !== "object" || Array.isArray(m)) {
      throw new ScoutError(
        "invalid_input",
        `Message ${i} in ${name} is ${typeName(m)}, not an object`,
        {
          file: name,
        },
      );
    }
    const role = (m as Message).role as unknown;
    if (typeof role !== "string") {
      throw new ScoutError("invalid_input", `Message ${i} in ${name} has no string "role"`, {
        file: name,
      });
    }
    // the printer's check, but naming the input as the other errors here do (R137-8)
    if (!isHeaderWord(role)) {
      throw new ScoutError(
        "chat_print",
        `Cannot print message ${i} in ${name}: role ${
          JSON.stringify(role)
        } is not a header word [a-z0-9_]+`,
        { file: name, index: i, role },
      );
    }
  });
  return data as Chat;
}

/**
 * Registers the `chat` command group.
 *
 * @param program the root program
 * @param ctx invocation context
 */
export function registerChat(program: Command, ctx: CliContext): void {
  const chat = program.command("chat").description(
    "inspect and convert .chat files (nothing is sent to a model)",
  ).addHelpText(
    "after",
    fittedHelp(
      `\n${FIXTURE_EXAMPLES}\n  scout-ai chat parse fixtures/chats/basic.chat\n` +
        "  scout-ai chat compile fixtures/compile/session.chat --chat\n" +
        "  scout-ai chat prompt fixtures/compile/agent_run.chat -q",
    ),
  );
  chat.command("parse")
    .description("parse a chat file into messages (raw: nothing is compiled or run)")
    .argument("[file]", "chat file, or - for stdin (default: stdin when piped)")
    .option("--json", "print a JSON array of {role, content}")
    .addHelpText(
      "after",
      fittedHelp(
        "\nThe listing shows one message per entry: index, role, content (control characters\n" +
          "shown as \u2400-style symbols). Text before the first header is a user message; a file\n" +
          "starting with a header gets an empty first message (index 0), as in the Ruby original.\n" +
          "Invalid UTF-8 is replaced by U+FFFD with a warning on stderr.\n\n" +
          'JSON shape (--json): [{"role": string, "content": string}, …], one message per line.\n\n' +
          `${FIXTURE_EXAMPLES}\n  scout-ai chat parse fixtures/chats/basic.chat\n` +
          "  cat fixtures/chats/basic.chat | scout-ai chat parse --json",
      ),
    )
    .action(async (file, o) => {
      ctx.exitCode = await runChatParse({ file, json: o.json }, ctx.io);
    });
  chat.command("print")
    .description("print JSON messages ([{role, content}, …]) as chat text")
    .argument("[file]", "JSON file, or - for stdin (default: stdin when piped)")
    .addHelpText(
      "after",
      fittedHelp(
        `\n${FIXTURE_EXAMPLES}\n` +
          "  scout-ai chat print fixtures/chats/structured.messages.json > session.chat\n" +
          "  scout-ai chat parse fixtures/chats/tool_calls.chat --json \\\n" +
          "    | jq 'map(select(.role != \"meta\"))' | scout-ai chat print",
      ),
    )
    .action(async (file) => {
      ctx.exitCode = await runChatPrint({ file }, ctx.io);
    });
  registerChatCompile(chat, ctx);
}
