/**
 * Keeping the stdio MCP stream clean (R96-2): while a workflow is served over
 * stdio, stdout carries only MCP messages, but a task body may print
 * (`process.stdout.write("progress 50%")`, `console.log`), which corrupted
 * the stream (the client failed to parse it, then timed out). While
 * diverted, `process.stdout.write` and `console.log/info/debug` go to
 * stderr, and the MCP transport writes through a stream bound to the
 * original stdout. Works under Deno and Bun, whose `console.log` does not
 * go through `process.stdout.write`. File descriptor 1 itself is not
 * redirected (neither runtime can dup2 it): a child process that inherits
 * stdout, or `fs.writeSync(1, …)`, still writes into the MCP stream; the
 * README and `workflow mcp --help` tell task authors so (R98-2).
 *
 * @module
 */
import process from "node:process";
import { Writable } from "node:stream";

/** A diverted stdout: the stream for MCP messages, and the restore function. */
export interface DivertedStdout {
  /** Writes to the real stdout (the MCP transport's output). */
  stdout: Writable;
  /** Puts `process.stdout.write` and the console back. */
  restore: () => void;
}

type WriteFn = typeof process.stdout.write;
type LogFn = (...args: unknown[]) => void;

/**
 * Sends `process.stdout.write` and `console.log/info/debug` to stderr until
 * restored.
 *
 * @returns the real stdout as a stream, and the restore function
 */
export function divertStdout(): DivertedStdout {
  const out = process.stdout;
  const realWrite = out.write;
  const stdout = new Writable({
    write(chunk, encoding, callback) {
      realWrite.call(out, chunk, encoding, (e?: Error | null) => callback(e ?? null));
    },
  });
  out.write =
    ((...args: Parameters<WriteFn>) =>
      (process.stderr.write as (...a: unknown[]) => boolean)(...args)) as WriteFn;
  const saved: Record<"log" | "info" | "debug", LogFn> = {
    log: console.log,
    info: console.info,
    debug: console.debug,
  };
  for (const k of ["log", "info", "debug"] as const) console[k] = console.error;
  return {
    stdout,
    restore: () => {
      out.write = realWrite;
      Object.assign(console, saved);
    },
  };
}
