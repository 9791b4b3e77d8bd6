/**
 * What every command registration receives: the Io and the global flags.
 * Commands follow `options → run(opts, io)`: commander's `.action()` only
 * builds the options object and calls `run`, which returns an exit code.
 *
 * @module
 */
import type { Io } from "./io.ts";

/** Shared state of one CLI invocation. */
export interface CliContext {
  /** Injected I/O. */
  io: Io;
  /** Exit code set by the command that ran (0 unless it says otherwise). */
  exitCode: number;
  /** `--debug`: print stack traces. */
  debug: boolean;
  /** `--log N` (Scout's 0–7): warnings print at 5 and below; errors at every level. */
  logLevel: number;
  /**
   * Set under `--json`: whether the command has written anything on stdout
   * (a failure that printed nothing prints its JSON error document, R128-6).
   */
  jsonStdoutWritten?: () => boolean;
  /**
   * Set under `--json`: prints the JSON document of a command stopped by
   * `signal`, unless stdout has been written to (called by what exits on a
   * signal; at most one document).
   */
  jsonInterrupted?: (signal: string) => void;
}
