/**
 * `scout-ai chat compile` and `scout-ai chat prompt`: the compiled chat
 * (imports, files, config, clear… resolved) and what the model would see after
 * option extraction and the context strategies. Nothing is sent to a model.
 *
 * Registration stays light: compile, the prompt strategies and the config
 * store are imported inside the actions.
 *
 * @module
 */
import type { Command } from "@commander-js/extra-typings";
import type { JobRoleResolver } from "../chat/compile_jobs.ts";
import type { PromptSummary } from "../prompt/summary.ts";
import { ALLOW_ROLE_FLAG, ALLOW_ROLE_HELP, collectRoles } from "./allow_role.ts";
import type { CliContext } from "./context.ts";
import { readInput } from "./input.ts";
import type { Io } from "./io.ts";
import { paint } from "./io.ts";
import { listing, messageRecords, messagesJson } from "./listing.ts";
import { warningFileReader, warnLossy } from "./lossy_text.ts";
import { warnConflict } from "./chat_conflict.ts";
import { commandLineError, isScoutError } from "../errors.ts";
import { FIXTURE_EXAMPLES } from "./help_text.ts";
import { fittedHelp } from "./help_layout.ts";
import { jsonText } from "../util/json_text.ts";

/** Options of `chat compile`. */
export interface ChatCompileOptions {
  /** Chat file, `-` for stdin, or undefined (stdin when piped). */
  file?: string;
  /** Print a JSON array of `{role, content}`. */
  json?: boolean;
  /** Print the compiled chat as `.chat` text. */
  chat?: boolean;
  /** Roles accepted besides the catalogue. */
  allowRoles?: string[];
  /** Resolver of the job-backed roles (the workflow layer supplies it). */
  jobs?: JobRoleResolver;
}

/** Options of `chat prompt`. */
export interface ChatPromptOptions extends ChatCompileOptions {
  /** Strategy selection (comma list); default: the chat's `prompt_strategies` option, else the default. */
  strategy?: string;
  /** Do not print the summary on stderr. */
  quiet?: boolean;
}

/** JSON shape of `chat prompt --json` (version 1). */
export interface ChatPromptJson {
  /** Shape version. */
  version: 1;
  /** Strategy names applied, in order. */
  strategies: string[];
  /** Options extracted from the chat (`option:`, `model:` …). */
  options: Record<string, unknown>;
  /** The compiled chat. */
  compiled: { role: string; content: unknown }[];
  /** What the model would see. */
  prompt: { role: string; content: unknown }[];
  /** Counts (see `promptSummary`). */
  summary: PromptSummary;
}

async function compileInput(opts: ChatCompileOptions, io: Io) {
  const [{ compileText }, { loadConfig }, { jobRoleResolver }] = await Promise.all([
    import("../chat/compile.ts"),
    import("../config/store.ts"),
    import("../workflow/chat_roles.ts"),
  ]);
  const input = await readInput(opts.file, io, { chat: true }); // UTF-16 refused (R133-1)
  if (input.lossy) warnLossy(io, input.name, input.path ?? "-");
  warnConflict(io, input.text, input.name); // compiled as written, but said (R86-3)
  const config = loadConfig({ cwd: io.cwd, env: io.env });
  const compiled = await compileText(input.text, {
    ...(input.path === null ? { name: input.name } : { origin: opts.file! }),
    cwd: io.cwd,
    env: io.env,
    config,
    ...(opts.allowRoles ? { allowRoles: opts.allowRoles } : {}),
    allowRoleFlag: ALLOW_ROLE_FLAG,
    jobs: opts.jobs ?? jobRoleResolver({ cwd: io.cwd, env: io.env }),
    reader: warningFileReader(io),
    mergeConflicts: "warn", // an imported chat's markers too: read only, said (R133-2)
  });
  return { compiled, config, origin: input.path ?? undefined };
}

/**
 * `chat compile`: compiles a chat file and prints the result (listing,
 * `--json`, or `--chat` text).
 *
 * @param opts command options
 * @param io injected I/O
 * @returns exit code
 */
export async function runChatCompile(opts: ChatCompileOptions, io: Io): Promise<number> {
  const { compiled } = await compileInput(opts, io);
  if (opts.json) io.stdout.write(messagesJson(compiled) + "\n");
  else if (opts.chat) {
    const { print } = await import("../chat/print.ts");
    io.stdout.write(print(compiled) + "\n");
  } else io.stdout.write(listing(compiled, io));
  return 0;
}

/**
 * `chat prompt`: compiles a chat, extracts its options, removes what is never
 * sent (meta, tool declarations, response ids), applies the context
 * strategies, and prints the compiled chat then the prompt; a summary goes to
 * stderr.
 *
 * @param opts command options
 * @param io injected I/O
 * @returns exit code
 */
export async function runChatPrompt(opts: ChatPromptOptions, io: Io): Promise<number> {
  const { compiled, config, origin } = await compileInput(opts, io);
  const [{ extractOptions }, { clear, purge }, { TOOL_DIRECTIVES }, prompt] = await Promise.all([
    import("../chat/options.ts"),
    import("../chat/clear.ts"),
    import("../chat/tool_directives.ts"),
    import("../prompt/mod.ts"),
  ]);
  const extracted = extractOptions(compiled, { cwd: io.cwd, ...(origin ? { origin } : {}) });
  const options = extracted.options;
  // Never sent as messages: meta, tool directives (the backend layer resolves
  // them; compile already consumed clear_tools) and socialize (the agent layer's).
  let chat = extracted.chat.filter((m) =>
    m.role !== "meta" && m.role !== "socialize" && !TOOL_DIRECTIVES.has(m.role)
  );
  const responses = options.backend === "responses" &&
    !/^(false|none|nil)$/i.test(String(options.previous_response ?? "")) &&
    options.previous_response_id !== undefined;
  chat = responses ? clear(chat, "previous_response_id") : purge(chat, "previous_response_id");
  const selection = opts.strategy ?? stringOption(options.prompt_strategies);
  const names = strategyNamesOf(prompt.strategyNames, selection, opts.strategy !== undefined);
  const promptConfig: Record<string, unknown> = { store: config, env: io.env };
  for (const s of prompt.PROMPT_SETTINGS) {
    if (options[s.key] !== undefined) promptConfig[s.key] = options[s.key];
  }
  const sent = prompt.preparePrompt(chat, names, promptConfig);
  const summary = prompt.promptSummary(chat, sent);
  if (opts.json) {
    const out: ChatPromptJson = {
      version: 1,
      strategies: names,
      options,
      compiled: messageRecords(compiled),
      prompt: messageRecords(sent),
      summary,
    };
    io.stdout.write(jsonText(out, 2) + "\n");
  } else {
    io.stdout.write(rule(io, `compiled chat (${plural(compiled.length, "message")})`));
    io.stdout.write(listing(compiled, io));
    io.stdout.write(
      rule(io, `prompt: ${names.join(", ") || "none"} (${plural(sent.length, "message")})`),
    );
    io.stdout.write(listing(sent, io));
  }
  if (!opts.quiet) io.stderr.write(summaryLine(names, summary) + "\n");
  return 0;
}

/** The strategy names; an unknown one given by `-s` is a usage error (exit 2), one of the chat's a failure. */
function strategyNamesOf(
  names: (s: string | undefined) => string[],
  selection: string | undefined,
  fromFlag: boolean,
): string[] {
  try {
    return names(selection);
  } catch (e) {
    if (fromFlag && isScoutError(e, "unknown_strategy")) throw commandLineError(e);
    throw e;
  }
}

function stringOption(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/**
 * The one-line summary printed on stderr by `chat prompt`.
 *
 * @param names strategies applied
 * @param s the counts
 * @returns the line (no newline)
 */
export function summaryLine(names: readonly string[], s: PromptSummary): string {
  const n = (x: number) => x.toLocaleString("en-US");
  return `prompt (${names.join(", ") || "none"}): ${n(s.messagesBefore)} → ${
    n(s.messagesAfter)
  } messages (${n(s.kept)} kept, ${n(s.truncated)} truncated, ${n(s.dropped)} dropped, ${
    n(s.added)
  } added); ${n(s.charsBefore)} → ${n(s.charsAfter)} characters`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function rule(io: Io, title: string): string {
  return paint(io, "stdout", "dim", `── ${title} ──`) + "\n";
}

/** `chat compile --help`'s text after the options. */
const COMPILE_HELP =
  "\nCompiling runs the chat's side effects: config: lines, allow_path:, task:/job: roles.\n" +
  "References (import:, continue:, last:, file:, directory:, pdf:, image:) resolve next to\n" +
  "the chat file, then in the working directory, ./chats and $SCOUT_HOME/chats; from stdin\n" +
  "they resolve against the working directory. Unknown roles (todo:, http:) are errors;\n" +
  "allow them with --allow-role or the config entry 'allow_roles <list> chat'.\n\n" +
  `${FIXTURE_EXAMPLES}\n  scout-ai chat compile fixtures/compile/session.chat\n` +
  "  scout-ai chat compile fixtures/compile/session.chat --chat > flat.chat\n" +
  "  scout-ai chat compile fixtures/compile/session.chat --json | jq 'map(.role)'";

/** `chat prompt --help`'s text after the options. */
const PROMPT_HELP =
  "\nThe prompt is the compiled chat without option, meta and tool-declaration messages,\n" +
  "after the context strategies (tool declarations are not resolved here). Settings come\n" +
  "from chat options (option: epoch_size 10), then config entries (scope prompt or\n" +
  "context), then environment variables (EPOCH_SIZE…), then defaults. Compiling runs the\n" +
  "chat's side effects, as chat compile does: config: lines, allow_path:, and its\n" +
  "task:/exec_task: lines (workflow code, from the chat's workflows/ folder too).\n" +
  "stderr gets a summary: messages kept, truncated, dropped, added; characters before/after.\n\n" +
  `${FIXTURE_EXAMPLES}\n  scout-ai chat prompt fixtures/compile/agent_run.chat\n` +
  "  scout-ai chat prompt fixtures/compile/agent_run.chat -s shorten_tools --json | jq .summary\n" +
  "  EPOCH_TOOL_CALL_THRESHOLD=20 scout-ai chat prompt fixtures/compile/agent_run.chat -q";

/**
 * Registers `chat compile` and `chat prompt` on the `chat` group.
 *
 * @param chat the `chat` command
 * @param ctx invocation context
 */
export function registerChatCompile(chat: Command, ctx: CliContext): void {
  chat.command("compile")
    .description("compile a chat: imports, files, config, clear… resolved (nothing is sent)")
    .argument("[file]", "chat file, or - for stdin (default: stdin when piped)")
    .option("--json", 'print a JSON array of {"role", "content"}')
    .option("--chat", "print the compiled chat as .chat text")
    .option("--allow-role <roles>", ALLOW_ROLE_HELP, collectRoles)
    .addHelpText(
      "after",
      fittedHelp(COMPILE_HELP),
    )
    .action(async (file, o) => {
      ctx.exitCode = await runChatCompile({
        file,
        json: o.json,
        chat: o.chat,
        ...(o.allowRole ? { allowRoles: o.allowRole } : {}),
      }, ctx.io);
    });
  chat.command("prompt")
    .description(
      "show the compiled chat, then what the model would see after the context strategies",
    )
    .argument("[file]", "chat file, or - for stdin (default: stdin when piped)")
    .option(
      "-s, --strategy <names>",
      "strategies: shorten_tools_epoch (default), shorten_tools, none, or a comma list",
    )
    .option("--json", "print {version, strategies, options, compiled, prompt, summary}")
    .option("-q, --quiet", "no summary on stderr")
    .option("--allow-role <roles>", ALLOW_ROLE_HELP, collectRoles)
    .addHelpText(
      "after",
      fittedHelp(PROMPT_HELP),
    )
    .action(async (file, o) => {
      ctx.exitCode = await runChatPrompt({
        file,
        json: o.json,
        quiet: o.quiet,
        ...(o.strategy !== undefined ? { strategy: o.strategy } : {}),
        ...(o.allowRole ? { allowRoles: o.allowRole } : {}),
      }, ctx.io);
    });
}
