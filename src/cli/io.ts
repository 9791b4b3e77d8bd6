/**
 * The injected I/O of every command (`gh` style): commands write to `io.stdout`
 * / `io.stderr`, read `io.readStdin()`, and ask `io` about TTYs, colour, the
 * environment and the working directory. `processIo()` binds the real process
 * (tests capture output with `tests/support/buffer_io.ts`).
 *
 * @module
 */
import { fstatSync } from "node:fs";
import { styleText } from "node:util";
import { ScoutError } from "../errors.ts";
import { errnoReason } from "../util/errno_text.ts";
import { redactSecretsIn } from "../util/secrets.ts";
import { trackWrites } from "./pending_writes.ts";

/** Something text can be written to. */
export interface TextSink {
  /** Writes text as is (no newline added). */
  write(text: string): void;
  /**
   * Writes bytes as they are (a binary result). Optional: {@link writeBytes}
   * decodes them for a sink without it.
   */
  writeBytes?(bytes: Uint8Array): void;
}

/**
 * Writes bytes to a sink unchanged where it takes bytes (the process's
 * stdout), else decoded as UTF-8 (a test's buffer).
 *
 * @param sink where to write
 * @param bytes what to write
 */
export function writeBytes(sink: TextSink, bytes: Uint8Array): void {
  if (sink.writeBytes !== undefined) sink.writeBytes(bytes);
  else sink.write(new TextDecoder("utf-8", { fatal: false }).decode(bytes));
}

/** What a command may touch of the outside world. */
export interface Io {
  /** Results. */
  stdout: TextSink;
  /** Logs, warnings, progress, errors. */
  stderr: TextSink;
  /** Reads all of stdin as text (invalid UTF-8 → U+FFFD). */
  readStdin(): Promise<string>;
  /** Reads all of stdin as bytes (optional; {@link readInput} uses it to detect invalid UTF-8). */
  readStdinBytes?(): Promise<Uint8Array>;
  /** Whether stdin is a terminal (then a missing argument is not read from it). */
  stdinIsTTY: boolean;
  /** Whether stdout is a terminal. */
  stdoutIsTTY: boolean;
  /** Whether stderr is a terminal (progress is drawn only then). */
  stderrIsTTY: boolean;
  /**
   * The width of the terminal stdout is, read at each call; undefined or 0
   * when unknown. Optional: help is fitted to it (`help_fit.ts`).
   */
  stdoutColumns?(): number | undefined;
  /**
   * The width of the terminal stderr is, read at each call (a window may be
   * resized); undefined or 0 when unknown. Optional: progress lines are cut
   * to it (`status_line.ts`).
   */
  stderrColumns?(): number | undefined;
  /** Environment variables. */
  env: Record<string, string | undefined>;
  /** Working directory relative paths are resolved against. */
  cwd: string;
  /** Colour override: false for `--no-color`; undefined = decide from TTY and NO_COLOR. */
  color?: boolean;
  /** False when `--log` is above 5: {@link warn} prints nothing. */
  warnings?: boolean;
  /**
   * Declares that the command has work besides printing: a chat saved with
   * `-o`, a file rewritten by `--inline`, a file written by `llm prov`, a job
   * run. Then a closed stdout (`… | head -1`) no longer ends the process at
   * once: what is printed after it is dropped, the command finishes that work
   * and exits with its own status. Optional: a buffer has no reader to lose.
   */
  finishWithoutStdout?(): void;
}

/** The real process's {@link Io}, and what its entry does once the command has returned. */
export interface ProcessIo extends Io {
  /**
   * Sets the process's exit status — the command's, or 1 when stdout could
   * not be written (a full disk) and the command said 0 — then waits until
   * stdout and stderr have written out all they were given (Bun writes to a
   * pipe asynchronously: the process must not exit before; no time limit, a
   * slow reader gets everything).
   *
   * @param status the command's exit status
   */
  settle(status: number): Promise<void>;
}

/**
 * The real process: stdout/stderr/stdin, `process.env`, `process.cwd()`.
 * A closed stdout pipe (`scout-ai … | head`) ends the process quietly, with
 * the status so far — unless the command declared work besides its output
 * ({@link Io.finishWithoutStdout}): then stdout is dropped from there on and
 * the command runs to its end (a chat streamed with `-o` is still saved).
 * Any other failure of stdout (a full disk) is said in one line, exit 1, the
 * same way. A stderr that cannot be written is ignored.
 *
 * @returns an Io bound to the process
 */
export function processIo(): ProcessIo {
  // a stderr that cannot be written (a reader gone, `2>/dev/full`) loses the messages, not
  // the command's exit status: where else would it be told (R81-11)
  process.stderr.on("error", () => {});
  const state = { closed: false, finish: false, failed: false };
  const [outWrites, errWrites] = [trackWrites(process.stdout), trackWrites(process.stderr)];
  const fail = (e: NodeJS.ErrnoException) => {
    if (state.closed) return; // a write already queued when the reader left
    state.closed = true;
    // a terminal gone: EIO (Node, Bun); Deno says EPIPE, but a terminal is no pipe
    if (e.code === "EIO" || (e.code === "EPIPE" && process.stdout.isTTY)) return hangUp();
    if (e.code !== "EPIPE") {
      // a full disk (Bun tells it in an event, Deno throws from write): one line (R102-2)
      state.failed = true;
      writeStderr(`scout-ai: Cannot write stdout: ${errnoReason(e)}\n`);
      process.exitCode = 1;
    }
    if (!state.finish) void errWrites.settled().then(() => process.exit(process.exitCode ?? 0));
  };
  process.stdout.on("error", fail);
  const out = (data: string | Uint8Array) => {
    if (state.closed) return;
    try {
      process.stdout.write(data);
    } catch (e) {
      fail(e as NodeJS.ErrnoException);
    }
  };
  return {
    stdout: { write: out, writeBytes: out },
    stderr: { write: writeStderr },
    readStdin: async () => new TextDecoder("utf-8", { fatal: false }).decode(await readAllStdin()),
    readStdinBytes: readAllStdin,
    stdinIsTTY: Boolean(process.stdin.isTTY),
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    stdoutColumns: () => process.stdout.columns,
    stderrColumns: () => process.stderr.columns,
    env: process.env,
    cwd: process.cwd(),
    finishWithoutStdout: () => void (state.finish = true),
    settle: async (status) => {
      process.exitCode = state.failed && status === 0 ? 1 : status;
      await outWrites.settled();
      await errWrites.settled();
    },
  };
}

/**
 * EIO on stdout: the terminal is gone (a closed window, a dropped ssh
 * session), often before its SIGHUP arrives. It is that hang-up (R98-4):
 * the SIGHUP handlers run (running jobs recorded `aborted`, a chat saved,
 * exit 129) — the signal is sent to this process so that every handler
 * sees it as it would — or, with none, the process exits 129 at once.
 */
function hangUp(): void {
  if (process.listenerCount("SIGHUP") > 0) process.kill(process.pid, "SIGHUP");
  else process.exit(129);
}

/** Writes to stderr; a write that fails at once (Deno on a full or closed file) is dropped. */
function writeStderr(text: string): void {
  try {
    process.stderr.write(text);
  } catch {
    // nowhere to tell it (R81-11)
  }
}

/**
 * All of stdin. A failure says it was stdin (Bun's error names `fstat` and no
 * path); a directory (`< /tmp`), which Deno reads as empty, is one (R102-12).
 */
async function readAllStdin(): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  try {
    if (isDirectory(0)) throw Object.assign(new Error("EISDIR"), { code: "EISDIR" });
    for await (const c of process.stdin) {
      chunks.push(typeof c === "string" ? new TextEncoder().encode(c) : c);
    }
  } catch (e) {
    throw new ScoutError("io", `Cannot read stdin: ${errnoReason(e)}`, { cause: e });
  }
  return concat(chunks);
}

/** Whether the file descriptor is a directory (false when it cannot be looked at). */
function isDirectory(fd: number): boolean {
  try {
    return fstatSync(fd).isDirectory();
  } catch {
    return false;
  }
}

function concat(chunks: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const c of chunks) n += c.length;
  const out = new Uint8Array(n);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}

/**
 * Whether to colour output on a stream: only on a TTY, never with `NO_COLOR`
 * set (any value) or `TERM=dumb`, and never after `--no-color`.
 *
 * @param io the command's Io
 * @param stream which stream the text goes to
 * @returns true to colour
 */
export function useColor(io: Io, stream: "stdout" | "stderr"): boolean {
  if (io.color === false) return false;
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== "") return false;
  if (io.env.TERM === "dumb") return false;
  return stream === "stdout" ? io.stdoutIsTTY : io.stderrIsTTY;
}

/** Styles accepted by {@link paint} (a subset of `node:util` styleText formats). */
export type Style =
  | "bold"
  | "dim"
  | "red"
  | "green"
  | "yellow"
  | "blue"
  | "magenta"
  | "cyan"
  | "gray";

/**
 * Colours `text` when {@link useColor} says so, else returns it unchanged.
 *
 * @param io the command's Io
 * @param stream target stream
 * @param style one style or several
 * @param text the text
 * @returns styled or plain text
 */
export function paint(
  io: Io,
  stream: "stdout" | "stderr",
  style: Style | Style[],
  text: string,
): string {
  if (!useColor(io, stream)) return text;
  return styleText(style, text, { validateStream: false });
}

/**
 * Writes a warning line to stderr: `scout-ai: warning: <message>`, the
 * credentials in it masked (of its urls, and echoed headers: `redactSecretsIn`).
 *
 * @param io the command's Io
 * @param message the warning
 */
export function warn(io: Io, message: string): void {
  if (io.warnings === false) return;
  const shown = redactSecretsIn(message); // a retried request's error may name its url
  io.stderr.write(`${paint(io, "stderr", "yellow", "scout-ai: warning:")} ${shown}\n`);
}

/** The line after a usage error (exit 2): one hint, not the whole help. */
export const USAGE_HINT = "(run with --help for usage)";

const warnSinks = new WeakMap<Io, (message: string) => void>();

/**
 * {@link warn} to `io` as one function per Io: the command's warning sink,
 * given to the process (`setWarningSink`) and to the asks, agents and
 * knowledge bases it runs, so a warning told once per sink is told once per
 * command.
 *
 * @param io the command's Io
 * @returns the sink (the same function for the same Io)
 */
export function warnSink(io: Io): (message: string) => void {
  let sink = warnSinks.get(io);
  if (sink === undefined) warnSinks.set(io, sink = (m) => warn(io, m));
  return sink;
}
