/**
 * The work of `llm ask` (structured: `--schema`/`--format json`) (loaded lazily by `llm_ask.ts`): build
 * the messages (chat file, files, question, stdin), ask, stream or print the
 * answer, and append the new messages to `-o` atomically — also after a
 * failure, with what was produced before it.
 *
 * @module
 */
import { resolve } from "node:path";
import { compile, compileText } from "../chat/compile.ts";
import { parseJson, unwrapContent } from "../chat/json.ts";
import type { Message } from "../chat/types.ts";
import type { ExtractedOptions } from "../chat/options.ts";
import { loadConfig } from "../config/store.ts";
import { isScoutError, usageError } from "../errors.ts";
import { ask, type AskOptions } from "../llm/ask.ts";
import { failureMessages, incompleteText } from "../llm/loop.ts";
import { ALLOW_ROLE_FLAG } from "./allow_role.ts";
import { checkStdinUse } from "./ask_stdin.ts";
import { loadSchema } from "./ask_schema.ts";
import { questionFile, questionText } from "./ask_question.ts";
import { historyToSend, readHistory } from "./ask_history.ts";
import {
  type AskPartWhere,
  attachments,
  named,
  QUESTION_FILE,
  questionMessages,
  savedPart,
  savedRefs,
} from "./ask_new_part.ts";
import { jobRoleResolver } from "../workflow/chat_roles.ts";
import { readInput } from "./input.ts";
import type { Io } from "./io.ts";
import { warn, warnSink } from "./io.ts";
import { warningFileReader, warnLossy } from "./lossy_text.ts";
import {
  type AnswerPrinter,
  answerPrinter,
  endAnswerLine,
  printEvent,
  printText,
} from "./ask_printer.ts";
import { baseAskOptions, callOptions, checkFlagNames, withAgentLayer } from "./ask_options.ts";
import { appendToChat, checkChatOutput, showUnsaved } from "./chat_output.ts";
import type { ChatSnapshot } from "./chat_changed.ts";
import { refuseConflict, refuseConflictedFile } from "./chat_conflict.ts";
import { endInterrupted } from "./ask_interrupt.ts";
import { armTurnSave, endAnswered, tellSavingOnSignal } from "./ask_save.ts";
import { answerJson, type HookResult, printDryRun } from "./ask_json.ts";

export type { HookResult };
import type { LlmAskOptions } from "./llm_ask_types.ts";
import { jsonText } from "../util/json_text.ts";

/** What `agent ask` changes in the `llm ask` run. */
export interface AskHooks {
  /** Messages sent before the conversation (an agent's start chat); never written to `-o`. */
  prefix?: Message[];
  /** The inference (default `llm/ask`; an agent's ask for `agent ask`). */
  ask?: (messages: Message[], options: AskOptions) => Promise<HookResult>;
}

/** `--inline FILE`: answers the file's `# ask:` comments (see `llm_inline.ts`). */
async function runInlineAsk(
  opts: LlmAskOptions,
  io: Io,
  hooks: AskHooks,
  store: ReturnType<typeof loadConfig>,
): Promise<number> {
  if (opts.chat !== undefined || opts.output !== undefined || opts.question.join("").trim()) {
    throw usageError("--inline rewrites its FILE: it takes no -c, -o or QUESTION");
  }
  const { runInline } = await import("./llm_inline.ts");
  return await runInline({
    file: opts.inline!,
    imports: opts.imports ?? [],
    ...(opts.allowRoles ? { allowRoles: opts.allowRoles } : {}),
    prefix: hooks.prefix ?? [],
    dryRun: opts.dryRun === true,
    json: opts.json === true,
    ask: hooks.ask ?? ask,
    options: { ...callOptions(opts, {}), ...baseAskOptions(opts, io, store), stream: false },
  }, io).catch((e) => endInterrupted(e, opts.signal, io)); // the replies got are written (R91-6)
}

/** One turn's messages: what is sent, and what `-o` gets. */
interface AskTurn {
  /** Sent: the prefix, the `-c` history (cut, options out), the new part compiled. */
  messages: Message[];
  /** The new part as `-o` saves it (with the answer): as given, `-f`/`-i` named from there. */
  newRaw: Message[];
  /** `-o` resolved. */
  outPath: string | undefined;
  /** The `-c` chat file resolved (not for a chat on stdin). */
  origin: string | undefined;
  /** The options the `-c` history sets. */
  fileOptions: Record<string, unknown>;
  /** Where those options were written. */
  fileLines: ExtractedOptions["lines"];
  /** What was read of a `-c` chat that is also `-o`: its append checks it is unchanged. */
  seen?: ChatSnapshot;
}

/** Before anything is asked: the chat the turn goes to can be written, and is no merge's both sides. */
function checkOutput(opts: LlmAskOptions, io: Io, outPath: string): void {
  checkChatOutput(outPath, opts.output!, opts.chatAppends ? "-c" : "-o");
  // the new turn is not appended after a merge's both sides (R86-3); the -c chat warns
  const sameAsChat = opts.chat !== undefined && opts.chat !== "-" &&
    resolve(io.cwd, opts.chat) === outPath;
  refuseConflictedFile(io, outPath, opts.output!, sameAsChat);
  io.finishWithoutStdout?.(); // `| head -1` must not lose the answer to be saved
}

/**
 * Builds the turn's messages: `-c` history (from stdin with `-c -`), the
 * question, `-f`/`-i` files and `-w` workflows, in one compile (a `clear:` in
 * the question clears -i/-f content; a bare one too, chat.md D8: compile's
 * clean stage drops the empty messages after the clear stage), each part
 * named in errors; a chat on stdin (`-i -`) compiles on its own, as an
 * imported file does (a clear: in it stays local).
 */
async function askMessages(
  opts: LlmAskOptions,
  io: Io,
  store: ReturnType<typeof loadConfig>,
  prefix: Message[],
): Promise<AskTurn> {
  const { env, cwd } = io;
  // `-c -`: the chat comes from stdin (read before the question, which then never reads stdin)
  checkStdinUse(opts);
  const stdinChat = opts.chat === "-" ? await readInput("-", io, { chat: true }) : undefined;
  const asked = await questionText(opts, io);
  const { question, filled, lines: questionLines, insert } = asked;
  const chatFile = questionFile(opts, asked, io); // a question naming a chat file (R158-2)
  const outPath = opts.output === undefined ? undefined : resolve(cwd, opts.output);
  if (outPath !== undefined && !opts.dryRun) checkOutput(opts, io, outPath);
  const where: AskPartWhere = new Map();
  const compileOpts = {
    cwd,
    env,
    config: store,
    jobs: withAgentLayer(jobRoleResolver({ cwd, env })),
    ...(opts.allowRoles ? { allowRoles: opts.allowRoles } : {}),
    allowRoleFlag: ALLOW_ROLE_FLAG,
    reader: warningFileReader(io), // the files it reads warn of invalid UTF-8 (R81-13)
  };
  // the -c history is read first: a missing chat fails before the new part runs anything
  const read = await readHistory(
    { ...(stdinChat ? { stdinChat } : {}), ...(opts.chat ? { chat: opts.chat } : {}), outPath },
    compileOpts,
    io,
  );
  // as `chat parse` says it: the history sent (and a -c chat's next compile) has U+FFFD there
  if (read.lossy || stdinChat?.lossy) {
    warnLossy(io, stdinChat?.name ?? opts.chat!, stdinChat ? "-" : resolve(cwd, opts.chat!));
  }
  const importStdin = (text: string) => {
    refuseConflict(io, text, "<stdin>"); // as an imported file is (R133-2)
    return compileText(text, { ...compileOpts, name: "<stdin>" });
  };
  const newRaw: Message[] = [
    ...await attachments(opts.files.slice(filled ? 1 : 0), opts.imports ?? [], io, {
      where,
      importStdin,
    }),
    ...(chatFile === undefined
      ? questionMessages(question, questionLines, where, insert)
      : [named({ role: "import", content: chatFile }, where, QUESTION_FILE)]),
    ...(opts.workflows ?? []).map((w) => named({ role: "tool", content: w }, where, "-w")),
  ];
  const added = newRaw.length
    ? await compile(newRaw, { ...compileOpts, name: "<question>", where })
    : [];
  // the -c history, cut by the new part's clear: (this turn, as the saved chat's next compile)
  const { chat: base, options: fileOptions, lines: fileLines } = historyToSend(read, newRaw, cwd);
  // an agent's start chat alone is nothing to ask
  if (![...base, ...added].some((m) => m.role !== "meta" && m.content !== "")) {
    throw usageError("Nothing to ask: give a QUESTION, pipe one on stdin, or use -c CHAT");
  }
  const origin = opts.chat !== undefined && !stdinChat ? resolve(cwd, opts.chat) : undefined;
  const messages = [...prefix, ...base, ...added];
  const saved = savedRefs(newRaw, where, { cwd, outPath }); // -f/-i named from -o's directory
  return { messages, newRaw: saved, outPath, origin, fileOptions, fileLines, seen: read.seen };
}

/** What the steps after the ask share. */
interface AskRun {
  opts: LlmAskOptions;
  io: Io;
  mode: "ask" | "json";
  turn: AskTurn;
  /** Whether the answer was streamed. */
  stream: boolean;
  printer: AnswerPrinter;
  /** Disarms the question's save on a late second signal (the chat is saved). */
  disarm: () => void;
  /** Whether a signal during the answer's save was told on stderr. */
  told: boolean;
}

/**
 * Runs `llm ask` (mode `ask`) or its structured output (mode `json`: `--schema`, `--format json`).
 *
 * @param opts command options
 * @param io injected I/O
 * @param mode which command
 * @param hooks prefix messages and inference of `agent ask`
 * @returns exit code
 */
export async function runLlmAsk(
  opts: LlmAskOptions,
  io: Io,
  mode: "ask" | "json",
  hooks: AskHooks = {},
): Promise<number> {
  const store = loadConfig({ cwd: io.cwd, env: io.env });
  // an unknown -e/-b is refused before anything runs, --dry-run too (R110-1)
  await checkFlagNames(opts, io, store);
  if (opts.inline !== undefined && mode === "ask") {
    return await runInlineAsk(opts, io, hooks, store);
  }
  const turn = await askMessages(opts, io, store, hooks.prefix ?? []);
  if (opts.dryRun) {
    printDryRun(turn.messages, opts.json === true, io);
    return 0;
  }
  const call = callOptions(opts, turn.fileOptions);
  if (mode === "json") call.format = opts.schema ? await loadSchema(opts.schema, io.cwd) : "json";
  const stream = !opts.json && (opts.stream ?? io.stdoutIsTTY);
  const printer = answerPrinter(io, { ask: mode === "ask", live: stream && io.stdoutIsTTY });
  // a second signal that exits at once saves the question at least (R91-1)
  const { outPath } = turn;
  const disarm = outPath === undefined
    ? () => {}
    : armTurnSave(io, outPath, opts.output!, savedPart(turn.newRaw), "the question").disarm;
  const run: AskRun = { opts, io, mode, turn, stream, printer, disarm, told: false };
  let result: HookResult;
  try {
    try {
      result = await (hooks.ask ?? ask)(turn.messages, {
        ...call,
        ...baseAskOptions(opts, io, store),
        stream,
        onEvent: (e) => printEvent(printer, e),
        ...(turn.origin !== undefined ? { origin: turn.origin } : {}),
        ...(turn.fileLines ? { optionLines: turn.fileLines } : {}),
      });
    } catch (e) {
      return await askFailed(e, run);
    }
    return await emitAnswer(result, run);
  } finally {
    disarm();
  }
}

/**
 * Appends the question and `produced` to `-o` (`complete`: the answer);
 * meanwhile a late second signal saves them, not less (`ask_save.ts`), and
 * a first one during the save of a complete answer is told; once saved, a
 * late signal has nothing to save. Not saved for want of file descriptors,
 * they are shown on stderr (`showUnsaved`).
 */
async function saveTurn(
  run: AskRun,
  outPath: string,
  produced: Message[],
  complete = false,
): Promise<void> {
  const { io, turn, opts } = run;
  const shown = opts.output!;
  const messages = [...savedPart(turn.newRaw), ...produced];
  const what = complete ? "the chat with its answer" : "the chat so far";
  const armed = armTurnSave(io, outPath, shown, messages, what);
  const untell = complete
    ? tellSavingOnSignal(io, opts.signal, shown, () => run.told = true)
    : () => {};
  try {
    await appendToChat(outPath, messages, io.env, warnSink(io), {
      seen: turn.seen,
      shown,
      prepared: armed.prepared,
    });
  } catch (e) {
    showUnsaved(io, shown, messages, e);
    throw e;
  } finally {
    armed.disarm();
    run.disarm();
    untell();
  }
}

/**
 * A failed ask: the partial answer kept in the chat printed, the chat so far
 * appended to `-o`; an interrupt is an exit code, anything else is thrown.
 * `-c FILE` alone appends a turn once answered, as Ruby's does (its
 * `ask` raising appends nothing): a failed run left in it, then run again,
 * would ask the question twice.
 */
async function askFailed(e: unknown, run: AskRun): Promise<number> {
  const { opts, io, turn, printer } = run;
  const produced = failureMessages(e);
  if (run.mode === "ask" && run.stream) {
    // the partial answer kept in the chat (incomplete=true) is the one printed
    const kept = incompleteText(produced);
    if (!printer.live && kept !== null) printText(printer, kept);
    endAnswerLine(printer);
  }
  if (turn.outPath !== undefined && !opts.chatAppends) {
    await saveTurn(run, turn.outPath, produced);
    if (isScoutError(e)) {
      e.message += ` (the chat so far was appended to "${opts.output}")`;
      e.savedTo = turn.outPath;
    } else {
      warn(io, `The chat so far was appended to "${opts.output}"`);
    }
  }
  // on the task route the interrupt arrives wrapped as the job's failure
  return endInterrupted(e, opts.signal, io);
}

/** the structured answer's value; an answer replayed from the cache that is no JSON says how to ask again. */
function jsonAnswer(result: HookResult): unknown {
  try {
    return unwrapContent(parseJson(result.text));
  } catch (e) {
    if (result.cached && isScoutError(e)) {
      e.message += " (the answer came from the cache: --no-cache asks again)";
    }
    throw e;
  }
}

/**
 * The answer: appended to `-o`, then printed (`--json`: the documented
 * object; structured: the parsed value; else the text, unless streamed) —
 * printed even when it cannot be saved (then the run fails). A signal that
 * came meanwhile makes the exit its code, the answer saved and printed.
 */
async function emitAnswer(result: HookResult, run: AskRun): Promise<number> {
  const { opts, io, mode, turn, printer } = run;
  let unsaved: unknown;
  if (turn.outPath !== undefined) {
    await saveTurn(run, turn.outPath, result.messages, true).catch((e) => unsaved = e);
  }
  const value = mode === "json" ? jsonAnswer(result) : undefined;
  if (opts.json) {
    const out = await answerJson(result, io, unsaved === undefined ? turn.outPath ?? null : null);
    if (mode === "json") out.value = value;
    io.stdout.write(jsonText(out, 2) + "\n");
  } else if (mode === "json") {
    io.stdout.write(jsonText(value, 2) + "\n");
  } else if (!printer.wrote) {
    io.stdout.write(result.text + "\n");
  } else if (printer.lastChar !== "\n") {
    printText(printer, "\n");
  }
  if (unsaved !== undefined) throw unsaved;
  return endAnswered(io, opts.signal, run.told); // Ctrl-C meanwhile: 130, the chat saved (R141-1)
}
