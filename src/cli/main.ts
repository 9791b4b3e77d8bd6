/**
 * The command tree (`DESIGN.md` §3): builds the commander program, runs it
 * against an injected Io and maps failures to exit codes — 0 success,
 * 1 failure (one line `scout-ai: <what> (<file>:<line>)`), 2 usage error.
 * Stack traces only with `--debug`.
 *
 * @module
 */
import { type Command, CommanderError, Option } from "@commander-js/extra-typings";
import {
  errorLocation,
  isScoutError,
  type ScoutError,
  thrownMessage,
  usageError,
} from "../errors.ts";
import { VERSION } from "../version.ts";
import { redactSecretsIn } from "../util/secrets.ts";
import { errnoText } from "../util/errno_text.ts";
import { setWarningSink, withWarningSink } from "../util/warn_once.ts";
import { handleInterrupts, reportInterrupts } from "../workflow/interrupt.ts";
import type { CliContext } from "./context.ts";
import type { Io } from "./io.ts";
import { paint, USAGE_HINT, warnSink } from "./io.ts";
import { cliProgram } from "./cli_program.ts";
import { denoHint } from "./deno_hint.ts";
import { writableHint } from "./writable_hint.ts";
import { jsonErrorLine, signalOfExit } from "./json_error.ts";
import { clipErrorLine } from "./error_line.ts";
import { helpArgs } from "./help_path.ts";
import { rubyFlagArgs } from "./ruby_flags.ts";
import { FIXTURE_EXAMPLES } from "./help_text.ts";
import { registerChat } from "./chat.ts";
import { registerWorkflow } from "./workflow.ts";
import { registerLlm } from "./llm.ts";
import { registerConfig } from "./config.ts";
import { registerAgent } from "./agent.ts";
import "../chat_analyst/builtin.ts"; // ChatAnalyst, found by name (loaded on first use)
import { registerKb } from "./kb.ts";
import { registerSystem } from "./system.ts";

import { registerCompletion } from "./completion.ts";
import { fittedHelp } from "./help_layout.ts";
import { escapeLine } from "../util/one_line.ts";

const ROOT_HELP = "\nAlso accepted: --nocolor (Scout's spelling of --no-color).\n" +
  `\n${FIXTURE_EXAMPLES}\n` +
  "  scout-ai chat parse fixtures/chats/basic.chat --json | jq '.[].role'\n" +
  "  scout-ai chat prompt fixtures/compile/agent_run.chat     # what the model would see\n" +
  "  scout-ai llm ask -c fixtures/chats/basic.chat -o session.chat 'and then?'\n" +
  "  scout-ai workflow task fixtures/workflows/Baking cake --eggs 3\n" +
  "  scout-ai llm prov fixtures/provenance/example/session.chat --plot prov.svg \\\n" +
  "    --jobs-dir fixtures/provenance/example/jobs\n\n" +
  "Run 'scout-ai <command> --help' for a command's options.";

/**
 * `--log`: Scout's levels 0 (debug) … 7 (none), of which scout-ai has only
 * warnings to gate (it writes no debug or info lines); an error is the
 * command's answer, printed at every level.
 */
const LOG_HELP = "log level 0–7 (Scout's): 0–5 print warnings, 6 and 7 hide them; " +
  "errors always print";

/** The global flags as commander parsed them (with Ruby's spellings and `-l`). */
interface GlobalFlags {
  debug?: boolean;
  log?: string;
  l?: string;
  color?: boolean;
  nocolor?: boolean;
  nobar?: boolean;
}

/**
 * Applies the global flags to the invocation before a command runs: debug,
 * the log level (checked), no colour, no progress lines.
 */
function applyGlobalFlags(ctx: CliContext, g: GlobalFlags): void {
  const { io } = ctx;
  ctx.debug = Boolean(g.debug);
  const level = String(g.l ?? g.log ?? "5").trim();
  if (!/^[0-7]$/.test(level)) {
    throw usageError(
      `--log: expected a level 0–7 (0–5 print warnings, 6 and 7 hide them), got "${level}"`,
    );
  }
  ctx.logLevel = Number(level);
  if (ctx.logLevel > 5) io.warnings = false;
  if (g.color === false || g.nocolor) io.color = false;
  if (g.nobar) io.stderrIsTTY = false;
}

/** Whether `io` is this process's (a test's buffer Io gets no signal). */
function realProcess(io: Io): boolean {
  return typeof process !== "undefined" && io.env === process.env;
}

/**
 * Prints the JSON document of a `--json` command stopped by a signal: one
 * the CLI exits on (the reports run, then the exit), or one after which the
 * command returned 128 + n itself (an ask, which holds the exit).
 *
 * @returns the unregister function
 */
function reportJsonInterrupt(ctx: CliContext): () => void {
  if (!realProcess(ctx.io)) return () => {};
  return reportInterrupts((signal, _aborted, exiting) => {
    // not another cause (`interruptJobs`: a deploy worker whose parent is gone)
    if (exiting && /^SIG(INT|TERM|HUP)$/.test(signal)) ctx.jsonInterrupted?.(signal);
  });
}

/**
 * The root command: description, version, global flags, help; output
 * through the Io and the `--json` watch as every program of the CLI.
 */
function rootCommand(ctx: CliContext): Command {
  return cliProgram(ctx, "scout-ai", (cmd) => {
    applyGlobalFlags(ctx, cmd.optsWithGlobals() as GlobalFlags);
  })
    .description(
      "Agent harness for plain-text .chat conversations: parse and compile chats, ask models, " +
        "run workflows as persisted jobs, and explain any result's provenance.",
    )
    .version(VERSION, "-V, --version", "print the version")
    .option("--debug", "print stack traces on errors")
    .option("--log <level>", LOG_HELP, "5")
    .option("--no-color", "never colour output (NO_COLOR=1 does the same)")
    // Scout's spellings, for scripts written for it: named once after the options
    .addOption(new Option("--nocolor", "same as --no-color").hideHelp())
    // Scout's flag too, but the only spelling: listed
    .option("--nobar", "draw no progress lines on stderr")
    .addHelpText("after", fittedHelp(ROOT_HELP))
    .showSuggestionAfterError(true);
}

/**
 * Builds the program for one invocation.
 *
 * @param ctx the invocation's context (Io, flags, exit code)
 * @returns the commander program
 */
export function buildProgram(ctx: CliContext): Command {
  const program = rootCommand(ctx);
  registerChat(program, ctx);
  registerWorkflow(program, ctx);
  registerLlm(program, ctx);
  registerConfig(program, ctx);
  registerAgent(program, ctx);
  registerKb(program, ctx);
  registerSystem(program, ctx);

  registerCompletion(program, ctx);
  return program;
}

/**
 * Runs the CLI; the process takes the CLI's handling of SIGINT/SIGTERM/SIGHUP
 * (`handleInterrupts`: running jobs recorded aborted, exit 128 + n).
 *
 * @param argv arguments after the program name
 * @param io where to read and write
 * @returns the exit code
 *
 * @example
 * ```ts
 * import { main } from "./main.ts";
 * import { processIo } from "./io.ts";
 * await main(["--version"], processIo()); // 0, stdout "0.1.0\n"
 * ```
 */
export function main(argv: string[], io: Io): Promise<number> {
  // this invocation's warn, also over a sink its caller's context may carry (a main run in
  // the same process after another's ask, whose scope a timer callback can bring back)
  return withWarningSink(warnSink(io), () => mainIn(argv, io));
}

async function mainIn(argv: string[], io: Io): Promise<number> {
  const ctx: CliContext = { io, exitCode: 0, debug: argv.includes("--debug"), logLevel: 5 };
  // every command that runs jobs (workflow task, deploy workers, asks, mcp, llm process…):
  // a signal records them aborted and exits 128 + n; a library opts in itself (R105-1)
  handleInterrupts();
  // what the config, chat and kb layers find in a file is told through this invocation's warn
  setWarningSink(warnSink(io));
  // read before parsing: commander's own usage errors come before the preAction hook
  if (noColorFlag(argv)) io.color = false;
  const program = buildProgram(ctx);
  if (argv.length === 0) {
    program.outputHelp({ error: true }); // a usage error: stderr, as for a group without a command
    return 2;
  }
  const unreport = reportJsonInterrupt(ctx);
  try {
    // Ruby's spellings (`-chat FILE`, `-m=x`, `-jn`) first: commander would misread them
    await program.parseAsync(helpArgs(program, rubyFlagArgs(program, argv)), { from: "user" });
    const signal = signalOfExit(ctx.exitCode);
    if (signal !== undefined) ctx.jsonInterrupted?.(signal);
    return ctx.exitCode;
  } catch (e) {
    return reportError(e, ctx);
  } finally {
    unreport();
  }
}

/**
 * Prints an error the CLI way and returns its exit code.
 *
 * @param e what was thrown
 * @param ctx the invocation's context
 * @returns 0 for help/version, 2 for usage errors, 1 otherwise
 */
export function reportError(e: unknown, ctx: CliContext): number {
  const { io } = ctx;
  if (e instanceof CommanderError) {
    if (e.code === "commander.helpDisplayed" || e.code === "commander.version") return 0;
    // Otherwise commander already printed what was wrong. Help shown because a group
    // got no subcommand exits 1 there: a usage error (2); `scout-ai help chat` exits 0.
    return e.exitCode === 0 ? 0 : 2;
  }
  const prefix = paint(io, "stderr", "red", "scout-ai:");
  let line: string;
  if (isScoutError(e)) {
    line = clipErrorLine(
      redactSecretsIn(
        `${oneLine(e.message)}${denoHint(e)}${writableHint(e, io.env)}${causeLine(e)}` +
          errorLocation(e),
      ),
    );
    io.stderr.write(`${prefix} ${escapeLine(line)}\n`);
    if (e.code === "usage") {
      io.stderr.write(`${USAGE_HINT}\n`);
      return 2;
    }
  } else {
    // a system error nothing more specific caught: the call and path in our words (R81-12)
    line = clipErrorLine(
      redactSecretsIn(
        oneLine(errnoText(e) ?? (e as Error)?.message ?? thrownMessage(e)) +
          writableHint(e, io.env),
      ),
    );
    io.stderr.write(`${prefix} ${escapeLine(line)}\n`);
  }
  // R128-6: a --json command that printed nothing prints the error as JSON
  if (ctx.jsonStdoutWritten?.() === false) io.stdout.write(jsonErrorLine(line));
  // a cause's message may name the url a request went to, with its password or `?key=`,
  // or quote a server's echo of the request's headers (R146)
  if (ctx.debug) io.stderr.write(redactSecretsIn(debugTrace(e)));
  return 1;
}

/**
 * What `--debug` adds: the error's stack, then each cause's (`Caused by: …`)
 * — a user's `agent.ts` or `workflow.ts` that threw is on the cause's stack,
 * not on that of the error naming the script. (The caller masks the
 * credentials of the urls in it: a fetch error's cause names the request's
 * url, `?key=` and all.)
 */
function debugTrace(e: unknown): string {
  let out = e instanceof Error && e.stack ? `${e.stack}\n` : "";
  const seen = new Set<unknown>([e]);
  for (let c = (e as Error)?.cause; c !== undefined && !seen.has(c); c = (c as Error)?.cause) {
    seen.add(c);
    const text = c instanceof Error ? (c.stack ?? `${c.name}: ${c.message}`) : thrownMessage(c);
    out += `Caused by: ${text}\n`;
    if (seen.size > 8) break;
  }
  return out;
}

/**
 * Where the innermost cause of a failed job points, when that is a line of a
 * file (`Agent/Foo/start_chat:3` under a task-route ask's job): the job names
 * where its logs are, the cause the line to fix.
 */
function causeLine(e: ScoutError): string {
  if (e.code !== "job_failed") return "";
  let found = "";
  for (let c = e.cause, depth = 0; c && depth < 8; c = (c as Error).cause, depth++) {
    if (isScoutError(c) && typeof c.line === "number" && c.file !== e.file) {
      found = errorLocation(c);
    }
  }
  return found;
}

/** Whether `--no-color` (or Ruby's `--nocolor`) is given, before any `--`. */
function noColorFlag(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  const flags = end < 0 ? argv : argv.slice(0, end);
  return flags.includes("--no-color") || flags.includes("--nocolor");
}

/**
 * Error messages print on one line (some embed multi-line text, e.g. V8's
 * JSON.parse messages); on stderr, the names they echo are escaped as well
 * (`escapeLine`: a file name holding `ESC [2J` must not clear the screen,
 * R150-2), while `--json`'s error document keeps them as they are.
 */
function oneLine(message: string): string {
  return message.replace(/\s*[\r\n]+\s*/g, " ").trim();
}
