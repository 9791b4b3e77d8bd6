/**
 * An in-memory {@link Io} for tests (moved out of `src/cli/io.ts`: nothing in
 * the product uses it, R151-2).
 *
 * @module
 */
import process from "node:process";
import type { Io } from "../../src/cli/io.ts";

/** An {@link Io} that records output, for tests. */
export interface BufferIo extends Io {
  /** Everything written to stdout so far. */
  stdoutText(): string;
  /** Everything written to stderr so far. */
  stderrText(): string;
}

/**
 * An in-memory Io for tests: given stdin text, captures stdout and stderr.
 *
 * @param opts stdin text, env, cwd, TTY flags
 * @returns the Io with accessors for what was written
 *
 * @example
 * ```ts
 * import { bufferIo } from "./buffer_io.ts";
 * const io = bufferIo({ stdin: "user: hi" });
 * io.stdout.write("x");
 * io.stdoutText(); // "x"
 * ```
 */
export function bufferIo(
  opts: {
    stdin?: string;
    env?: Record<string, string | undefined>;
    cwd?: string;
    tty?: boolean;
    /** The width of the terminal stdout and stderr stand for. */
    columns?: number;
  } = {},
): BufferIo {
  let out = "";
  let err = "";
  const tty = opts.tty ?? false;
  return {
    stdout: { write: (t) => void (out += t) },
    stderr: { write: (t) => void (err += t) },
    readStdin: () => Promise.resolve(opts.stdin ?? ""),
    stdinIsTTY: opts.stdin === undefined && tty,
    stdoutIsTTY: tty,
    stderrIsTTY: tty,
    stdoutColumns: () => opts.columns,
    stderrColumns: () => opts.columns,
    env: opts.env ?? {},
    cwd: opts.cwd ?? process.cwd(),
    stdoutText: () => out,
    stderrText: () => err,
  };
}
