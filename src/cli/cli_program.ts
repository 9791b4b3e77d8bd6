/**
 * What every commander program of the CLI has — the root and a parser a
 * command runs on its own arguments (`agent kb NAME …`): output through the
 * Io, commander's errors in the CLI's words, the usage hint, no exit of its
 * own, help fitted to the width it is written in (R141-5), and under
 * `--json` stdout watched (R128-6). A sub-parser built otherwise missed the
 * watch, and its `--json` failures printed no document (R137-1).
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import type { CliContext } from "./context.ts";
import { helpWidth } from "./help_fit.ts";
import { HELP_LAYOUT } from "./help_layout.ts";
import { paint, USAGE_HINT } from "./io.ts";
import { jsonInterruptLine, watchedSink } from "./json_error.ts";
import { refuseEmptyPaths } from "./empty_path.ts";
import { clipErrorLines } from "./error_line.ts";

/**
 * Under `--json`: stdout watched, so a failure knows whether the command
 * printed its answer; and a signal that stops the command where it listens
 * for signals (jobs running, an ask) prints its JSON document. A command
 * that takes no signal of its own (`chat parse -` reading stdin, a `kb`
 * query waiting on another process's index lock) ends by the signal's
 * default disposition, without a document: listeners taken for it up front
 * run only when its thread is free, and a synchronous wait then ignored
 * Ctrl-C for up to 10 minutes (R130-1). Watched once per invocation.
 *
 * @param ctx the invocation's context
 */
export function watchJsonStdout(ctx: CliContext): void {
  if (ctx.jsonStdoutWritten !== undefined) return;
  const watched = watchedSink(ctx.io.stdout);
  ctx.io.stdout = watched.sink;
  ctx.jsonStdoutWritten = watched.written;
  ctx.jsonInterrupted = (signal) => {
    if (!watched.written()) watched.sink.write(jsonInterruptLine(signal));
  };
}

/**
 * A commander program of the CLI (see the module doc).
 *
 * @param ctx the invocation's context
 * @param name the program's name, as usage lines show it
 * @param before what runs before the command's action, ahead of the `--json` watch
 * @returns the program
 */
export function cliProgram(
  ctx: CliContext,
  name: string,
  before?: (cmd: Command) => void,
): Command {
  return new Command(name)
    .showHelpAfterError(USAGE_HINT)
    .exitOverride()
    .configureHelp(HELP_LAYOUT)
    .configureOutput({
      writeOut: (s) => ctx.io.stdout.write(s),
      writeErr: (s) => ctx.io.stderr.write(s),
      getOutHelpWidth: () => helpWidth(ctx.io, "stdout"),
      getErrHelpWidth: () => helpWidth(ctx.io, "stderr"),
      outputError: (s, write) =>
        write(
          `${paint(ctx.io, "stderr", "red", "scout-ai:")} ${
            clipErrorLines(s.replace(/^error: /, ""))
          }`,
        ), // bounded: the messages quote what was typed (R164-4)
    })
    .hook("preAction", (_program, cmd) => {
      before?.(cmd as Command);
      if ((cmd.opts() as { json?: unknown }).json === true) watchJsonStdout(ctx);
      refuseEmptyPaths(cmd as Command); // `"$UNSET"` is no working directory (R164-2)
    });
}
