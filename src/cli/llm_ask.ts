/**
 * `scout-ai llm ask` — asking a model from the shell (with `--schema` /
 * `--format json`, for structured output). This file only registers the
 * command (fast cold start); the work is in `llm_ask_run.ts`, loaded when a
 * command runs. `llm json` is the converter of `llm_json.ts` (R149-1).
 *
 * @module
 */
import { type Command, Option } from "@commander-js/extra-typings";
import { usageError } from "../errors.ts";
import { backendNames } from "../llm/registry.ts";
import { ALLOW_ROLE_HELP, collectRoles } from "./allow_role.ts";
import { withInterrupt } from "./ask_interrupt.ts";
import type { CliContext } from "./context.ts";
import type { LlmAskOptions } from "./llm_ask_types.ts";
import { FIXTURE_EXAMPLES } from "./help_text.ts";
import { fittedHelp } from "./help_layout.ts";
import { registerLlmJson } from "./llm_json.ts";

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function keyValue(value: string, previous: string[]): string[] {
  if (!/^[A-Za-z_][\w.-]*=/.test(value)) {
    throw usageError(`Expected KEY=VALUE for --option, got "${value}"`);
  }
  return [...previous, value];
}

/**
 * `-o`'s value: a chat file. `-` is no stdout here (README: `-` reads stdin):
 * the answer goes to stdout already, and `-o -` wrote a file named `-`.
 */
function chatFile(value: string): string {
  if (value === "-") {
    throw usageError(
      'Cannot write -o "-": the answer already goes to stdout; -o takes the chat file the ' +
        'question and answer are appended to (write ./- for a file named "-")',
    );
  }
  return value;
}

/** The parsed flags shared by `llm ask` and `agent ask` (`schema`, `format`: `llm ask`'s). */
export type AskFlags = {
  imports: string[];
  workflow: string[];
  allowRole?: string[];
  chat?: string;
  endpoint?: string;
  model?: string;
  backend?: string;
  file: string[];
  output?: string;
  stream?: boolean;
  json?: boolean;
  cache: boolean;
  offline?: boolean;
  option: string[];
  dryRun?: boolean;
  dry_run?: boolean;
  inline?: string;
  schema?: string;
  format?: string;
  template?: string;
};

/** The question, a template for it, and the chat it continues. */
function addQuestionFlags(cmd: Command): void {
  cmd
    .argument(
      "[question...]",
      "the question (chat text; -, or absent with a pipe and no -c/-f: read from stdin)",
    )
    .option(
      "-t, --template <name>",
      "put the question into a template (a file, or questions/NAME, chats/system/NAME, chats/NAME)",
    )
    .option(
      "-c, --chat <file>",
      "continue this chat file and append the turn to it (made if missing; with -o, the turn goes there instead; - reads stdin, nothing written)",
    );
}

/** Who answers: endpoint, model, backend. */
function addModelFlags(cmd: Command): void {
  cmd
    .option("-e, --endpoint <name>", "endpoint (etc/AI/<name>.yaml)")
    .option("-m, --model <model>", "model")
    // the names come from the registry, so a new built-in backend is listed without an edit here
    .option("-b, --backend <name>", `backend (${backendNames().join(", ")})`);
}

/** What goes in with the question (files, imports, workflows) and the chat file it goes to. */
function addContentFlags(cmd: Command): void {
  cmd
    .option(
      "-f, --file <path>",
      "add a file before the question (repeatable; - reads stdin)",
      collect,
      [] as string[],
    )
    .option(
      "-i, --imports <files>",
      "import these chat files before the question (comma-separated, repeatable; - reads stdin)",
      (v: string, prev: string[]) => [...prev, ...v.split(",").filter((x) => x.trim() !== "")],
      [] as string[],
    )
    .option(
      "-w, --workflow <name>",
      "offer a workflow's tasks as tools (a tool: line; repeatable)",
      collect,
      [] as string[],
    )
    .option("--allow-role <roles>", ALLOW_ROLE_HELP, collectRoles)
    .option(
      "-o, --output <file>",
      "append the question and the new messages to this chat file (made, with missing directories, if need be; a link is written through; a pipe such as >(…) gets the new messages only; not -: the answer goes to stdout)",
      chatFile,
    );
}

/** How the ask runs and prints: streaming, JSON, cache, request options, dry run, inline. */
function addRunFlags(cmd: Command): void {
  cmd
    .option("--stream", "stream the answer as it arrives (default on a terminal)")
    .option("--no-stream", "print the answer only when complete")
    .option("--json", "print a JSON object (answer, messages, usage…) instead of the answer")
    .option("--no-cache", "ask the model even if the same request was answered before")
    .option("--offline", "replay answers from the inference cache only; a miss is an error")
    .option(
      "-O, --option <key=value>",
      "option for the request, e.g. temperature=0.2 (repeatable)",
      keyValue,
      [] as string[],
    )
    .option(
      "--dry-run",
      "print the compiled chat that would be sent (with --json: as JSON messages), ask nothing; " +
        "compiling runs its task:/exec_task: lines (workflow code), as chat compile does; " +
        "an unknown -e/-b is refused as the ask refuses it",
    )
    // the Ruby scout's spellings, for scripts written for it (-l sets --log's level)
    .addOption(new Option("-d, --dry_run", "same as --dry-run").hideHelp())
    .addOption(new Option("-l <level>", "same as --log").hideHelp())
    .option(
      "--inline <file>",
      'answer each "# ask:" comment of FILE in place, between "# Response start/end" lines (a file: not a pipe such as <(…))',
    );
}

/**
 * Adds the question argument and the flags shared by `llm ask` and `agent
 * ask` (one flag set for both, `agents.md` §7.14).
 *
 * @param cmd the command
 * @returns the command
 */
export function askFlags(cmd: Command): Command {
  addQuestionFlags(cmd);
  addModelFlags(cmd);
  addContentFlags(cmd);
  addRunFlags(cmd);
  return cmd;
}

/**
 * The run options of the shared ask flags.
 *
 * @param question the question words
 * @param o the parsed flags
 * @param signal aborts the ask
 * @returns the options
 */
export function askOptionsOf(question: string[], o: AskFlags, signal: AbortSignal): LlmAskOptions {
  const opts: LlmAskOptions = {
    question,
    files: o.file,
    imports: o.imports,
    workflows: o.workflow,
    options: o.option,
    cache: o.cache,
    signal,
  };
  if (o.allowRole !== undefined) opts.allowRoles = o.allowRole;
  if (o.chat !== undefined) opts.chat = o.chat;
  // Ruby parity (agents.md §5.1 step 5, §5.3): -c FILE alone appends the turn to FILE,
  // by the path of -c FILE -o FILE (its locks and checks); -c - (stdin) writes nothing (R149-2)
  if (o.chat !== undefined && o.chat !== "-" && o.output === undefined && o.inline === undefined) {
    opts.output = o.chat;
    opts.chatAppends = true;
  }
  if (o.endpoint !== undefined) opts.endpoint = o.endpoint;
  if (o.model !== undefined) opts.model = o.model;
  if (o.backend !== undefined) opts.backend = o.backend;
  if (o.output !== undefined) opts.output = o.output;
  if (o.stream !== undefined) opts.stream = o.stream;
  if (o.offline) opts.offline = true;
  if (o.json) opts.json = true;
  if (o.dryRun || o.dry_run) opts.dryRun = true;
  if (o.inline !== undefined) opts.inline = o.inline;
  if (o.schema !== undefined) opts.schema = o.schema;
  if (o.template !== undefined) opts.template = o.template;
  return opts;
}

/**
 * Whether `llm ask` asks for structured output: `--schema FILE` or
 * `--format json` (what `llm json` did before R149-1).
 *
 * @param o the parsed flags
 * @returns `json` for structured output, else `ask`
 */
function askMode(o: AskFlags): "ask" | "json" {
  if (o.format !== undefined && o.format !== "json" && o.format !== "text") {
    throw usageError(`--format takes json or text, got "${o.format}"`);
  }
  if (o.format === "text" && o.schema !== undefined) {
    throw usageError("--schema asks for JSON: it takes no --format text");
  }
  const json = o.schema !== undefined || o.format === "json";
  if (json && o.inline !== undefined) {
    throw usageError("--inline writes text replies: it takes no --schema or --format json");
  }
  return json ? "json" : "ask";
}

async function runAction(ctx: CliContext, question: string[], o: AskFlags): Promise<void> {
  const mode = askMode(o);
  await withInterrupt(ctx, async (signal) => {
    const [{ runLlmAsk }, { flagValueError }] = await Promise.all([
      import("./llm_ask_run.ts"),
      import("./ask_options.ts"),
    ]);
    const opts = askOptionsOf(question, o, signal);
    return await runLlmAsk(opts, ctx.io, mode).catch((e) => {
      throw flagValueError(e, opts);
    });
  });
}

/**
 * The environment variables behind `llm ask`'s and `agent ask`'s defaults,
 * as their `--help` names them (all of them: the README's "Environment").
 */
export const ASK_ENV_HELP =
  `Defaults from the environment, read only when no flag, chat line, endpoint file or config entry
gives the value: the endpoint from ASK_ENDPOINT, LLM_ENDPOINT, ENDPOINT, LLM or ASK; the backend
from ASK_BACKEND or LLM_BACKEND (else responses); the model from <BACKEND>_MODEL or MODEL, the
url from <BACKEND>_URL, the key from <BACKEND>_KEY (OPENAI_KEY…). ASK_PERSIST=false turns the
cache off; SCOUT_OFFLINE=1 is --offline. Every variable: the README's "Environment" section.`;

/** What `llm ask --help` says after the flags. */
const ASK_HELP = `
The question is chat text: plain words are a user message; "system: …" lines work too.
A QUESTION that is the path of a regular file (not with -f or "...") is that file's chat, as
in Ruby; -c/-o save the turn as "import: FILE". A directory or device path stays words.
QUESTION "-" (or none, when piped and no -c FILE or -f FILE is given: a "while read" loop's
list stays unread) reads the question from stdin; "..." in QUESTION is replaced by the first
-f file's text (then not attached again), else by stdin when it has any (< /dev/null leaves
it): that text is put in as it is, never read as chat lines. With -c -, stdin is the chat to
continue instead.
Options in the -c chat file (model:, endpoint:, option: …) yield to the flags; options
written in QUESTION itself win over them.
A -c or -o chat left with git merge-conflict markers (<<<<<<<, =======, >>>>>>> lines outside
\`\`\` fences) with a role header line (user:, assistant: … at column 0) between <<<<<<< and
>>>>>>> is a merge of its turns: refused before anything is asked (exit 1, naming file:line).
Markers with no header between them are text inside a message: sent, with a warning.
With -c FILE (as in Ruby) or -o FILE, the question and every new message (meta records with
token usage, tool calls and outputs, the answer) are appended to the chat file atomically (-o
wins: -c A -o B reads A, writes B; -c - and --dry-run write nothing; a -c file that does not
exist is made). After a failure or Ctrl-C, what was produced before it is still appended to an
-o chat (a partly streamed answer after "meta: incomplete=true …"); -c alone appends nothing then,
as in Ruby.
A symbolic link is written through to its target; a hard link is split (the file is replaced).
Streamed to a terminal, a retried answer is marked where it restarts; into a pipe, only the
attempt that succeeded is printed. Answers are cached under $SCOUT_HOME/var/cache/ask
(a cache directory that cannot be written is skipped, with a warning).

--inline FILE answers every "# ask:" comment block of FILE (the comment and blank lines after it)
with the whole file attached, and writes each reply after its block between "# Response start"
and "# Response end" lines; blocks that already have a reply are skipped, so a rerun asks only
new questions. A reply line that reads as "# ask:" or one of those markers gets a backslash
before its "#" ("\\# Response end"), so it stays one reply. The file is read again, under the
lock -o takes, just before it is written: edits saved to it while the model answered are kept, and
a reply whose question was edited, removed or answered meanwhile is not placed: a line on stderr
names FILE:LINE, and the reply is printed on stdout as "# FILE:LINE: question" and its
"# Response start" ... "# Response end" block, to paste where it belongs.
A symbolic link is written through; a file not UTF-8 or read-only is refused.
--json prints {"version":1, "file", "answered":[{line, question, answer}], "skipped",
"unplaced":[{line, question, answer}]} (replies not placed are listed there, not printed);
with --dry-run also "dry_run":true and "questions":[{line, question, messages:[{role,content}]}].

Structured output: with --schema FILE (or --format json, any JSON object) the model is asked to
reply with one JSON object; the reply is parsed (a \`\`\`json fence is unwrapped) and printed as
indented JSON. A reply that is not JSON is an error (exit 1). --json then adds "value", the parsed
reply. (The scout-ai llm json of before; llm json now converts files, as Ruby's does.)

--json prints {"version":1, "answer", "cached", "endpoint", "backend", "model",
"usage":{pt,ct,tt,cct,cwt,rt}, "total_usage":{…}, "usage_warnings":[{code,file,message}…],
"messages":[{role,content}…], "output"}. "cached" is true when no provider request was made for
this answer: every inference of it (its specialists' too) was replayed from the inference cache.
usage counts the ask's own inferences as they were recorded — a cached answer reports what it
cost when it was asked, not a new cost —, total_usage also those of the agents it delegated to
(their receipts, and the jobs of those that ran as one), each once, this run only — as llm prov
counts. usage_warnings lists what total_usage could not count, so
that it may be low (each also a warning on stderr; [] when nothing was left out): chat_unreadable (a
job's log or result that exists but cannot be read), unresolved_job_reference (a receipt naming no
job file in a jobs root), receipt_problem (a malformed receipt entry).

${ASK_ENV_HELP}

Also accepted (Scout's spellings): -d, --dry_run for --dry-run; -l LEVEL for --log LEVEL.

${FIXTURE_EXAMPLES}
  scout-ai llm ask "What is the capital of France?"
  git diff | scout-ai llm ask "Write a commit message for this diff: ..."
  scout-ai llm ask -c fixtures/chats/basic.chat -o session.chat "And the population?"
  scout-ai llm ask -c session.chat "And its area?"      # appends to session.chat
  cat fixtures/chats/basic.chat | scout-ai llm ask -c - "Summarise this conversation"
  scout-ai llm ask -e nano -f fixtures/compile/parts/notes.md "Summarise the notes" --json | jq -r .answer
  scout-ai llm ask --schema fixtures/llm/person.schema.json "Invent a person"
  scout-ai llm ask --format json "List three primes as {\\"primes\\": [<numbers>]}" | jq .primes`;

/**
 * Registers `llm ask` (and, from `llm_json.ts`, `llm json`).
 *
 * @param llm the `llm` command
 * @param ctx invocation context
 */
export function registerLlmAsk(llm: Command, ctx: CliContext): void {
  const askCmd = askFlags(llm.command("ask").description("ask a model; the answer goes to stdout"));
  askCmd
    .option(
      "-s, --schema <file>",
      "structured output: the reply is one JSON object following this JSON Schema (or shorthand map) file, JSON or YAML; printed as JSON",
    )
    .option(
      "--format <format>",
      "json: the reply is one JSON object, printed as JSON (text: the default)",
    );
  askCmd.addHelpText("after", fittedHelp(ASK_HELP));
  askCmd.action(async (...args: unknown[]) => {
    const [question, o] = args as [string[], AskFlags];
    await runAction(ctx, question, o);
  });
  registerLlmJson(llm, ctx);
}
