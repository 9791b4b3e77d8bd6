/**
 * An explicit `-` read from a terminal says so first, in one stderr line,
 * instead of waiting in silence (R141-8); piped or redirected stdin, or
 * stderr that is not a terminal, get no such line.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DENO, runMain, SCOUT_SOURCE_ARGS, tempDir } from "../support/cli.ts";
import { atTerminal } from "../support/pty.ts";
import { bufferIo } from "../support/buffer_io.ts";
import { readInput } from "../../src/cli/input.ts";
import { BAKING } from "../workflow/cli_support.ts";

const hint = (what: string) => `scout-ai: reading ${what} from the terminal (end with Ctrl-D)\n`;

Deno.test("stdin from a terminal: one hint line naming what is read, before it is read (R141-8)", async () => {
  await using d = await tempDir();
  const env = { NO_COLOR: "1", SCOUT_HOME: d.path, HOME: d.path };
  const opts = { cwd: d.path, env, tty: true };
  // the buffer's stdin at a terminal is empty: what follows the hint is each command's own
  const parse = await runMain(["chat", "parse", "-"], opts);
  assert.ok(parse.stderr.startsWith(hint("the chat")), parse.stderr);
  const ask = await runMain(["llm", "ask", "-"], opts);
  assert.ok(ask.stderr.startsWith(hint("the question")), ask.stderr);
  const chat = await runMain(["llm", "ask", "-c", "-", "go"], opts);
  assert.ok(chat.stderr.startsWith(hint("the chat")), chat.stderr);
  const file = await runMain(["llm", "ask", "-f", "-", "q"], opts);
  assert.ok(file.stderr.startsWith(hint("the file (-f -)")), file.stderr);
  const task = await runMain(["workflow", "task", BAKING, "whisk", "--eggs", "-"], opts);
  assert.ok(task.stderr.startsWith(hint("--eggs")), task.stderr);
});

Deno.test("stdin piped, or stderr not a terminal: no hint (R141-8)", async () => {
  await using d = await tempDir();
  const env = { NO_COLOR: "1", SCOUT_HOME: d.path, HOME: d.path };
  const piped = await runMain(["chat", "parse", "-"], { cwd: d.path, env, tty: true, stdin: "" });
  assert.equal(piped.stderr, "");
  assert.equal(piped.code, 0);
  // stdin at a terminal, stderr into a file: the line would be noise in the log
  const io = bufferIo({ cwd: d.path, env, tty: true });
  io.stderrIsTTY = false;
  await readInput("-", io, { chat: true });
  assert.equal(io.stderrText(), "");
});

Deno.test("chat parse - at a real terminal: the hint, then what was typed up to Ctrl-D is read (R141-8)", async () => {
  await using d = await tempDir();
  const run = await atTerminal([DENO, ...SCOUT_SOURCE_ARGS, "chat", "parse", "-"], {
    cwd: d.path,
    env: { NO_COLOR: "1", SCOUT_HOME: join(d.path, "home"), HOME: d.path },
    steps: [{ after: "(end with Ctrl-D)\r\n", type: "user: hi\n\x04" }],
  });
  assert.equal(run.code, 0, run.screen);
  assert.ok(run.screen.startsWith(hint("the chat").replace("\n", "\r\n")), run.screen);
  assert.ok(run.screen.endsWith("1  user  hi\r\n"), run.screen); // as piped in
});
