/**
 * The JSON error document of a `--json` command that failed (R128-6): one
 * line `{"version":1,"status":"error","error":message}` on stdout — the
 * fields `workflow task --json` prints for a job that failed, which adds the
 * job's — so `… --json | jq` reads a document, not empty input. A usage
 * error (exit 2) prints none, as `workflow task` never did. Written only
 * when the command printed nothing on stdout: a command that already
 * answered with its own document (`workflow task`'s failed job, `workflow
 * info`'s job not found, a SLURM submission stopped part-way) is not
 * followed by a second.
 *
 * A `--json` command that SIGINT, SIGTERM or SIGHUP stopped prints the same
 * document, saying which signal ({@link jsonInterruptLine}), once, and only
 * when it printed nothing: a script reading stdout gets a document there too.
 *
 * @module
 */
import type { TextSink } from "./io.ts";
import { interruptWord } from "./ask_interrupt.ts";
import { jsonText } from "../util/json_text.ts";
import { clipErrorLine } from "./error_line.ts";

/** The error document of a failed `--json` command. */
export interface JsonErrorDocument {
  version: 1;
  status: "error";
  /** What went wrong, as the one-line error on stderr says it. */
  error: string;
}

/**
 * The document for a failure.
 *
 * @param message what went wrong (the stderr line's text, without `scout-ai:`)
 * @returns the line, with its newline
 */
export function jsonErrorLine(message: string): string {
  const doc: JsonErrorDocument = { version: 1, status: "error", error: clipErrorLine(message) };
  return jsonText(doc) + "\n";
}

/** The error document of a `--json` command that a signal stopped. */
export interface JsonInterruptDocument extends JsonErrorDocument {
  /** The stderr line's word: `Interrupted`, `Terminated`, `Hangup`. */
  error: string;
  code: "interrupted";
  /** The signal's name: `SIGINT`, `SIGTERM`, `SIGHUP`. */
  signal: string;
}

/**
 * The document for a command stopped by `signal`:
 * `{"version":1,"status":"error","error":"Interrupted","code":"interrupted","signal":"SIGINT"}`.
 *
 * @param signal the signal's name
 * @returns the line, with its newline
 */
export function jsonInterruptLine(signal: string): string {
  const doc: JsonInterruptDocument = {
    version: 1,
    status: "error",
    error: interruptWord(signal),
    code: "interrupted",
    signal,
  };
  return jsonText(doc) + "\n";
}

/** The signal whose exit code (128 + n) a command returned, if it is one the CLI handles. */
export function signalOfExit(code: number): string | undefined {
  return ({ 129: "SIGHUP", 130: "SIGINT", 143: "SIGTERM" } as Record<number, string>)[code];
}

/**
 * A sink that writes to `sink` and remembers whether anything was written.
 *
 * @param sink the command's stdout
 * @returns the sink to use instead, and whether it has been written to
 */
export function watchedSink(sink: TextSink): { sink: TextSink; written: () => boolean } {
  let written = false;
  const watched: TextSink = {
    write: (text) => {
      if (text !== "") written = true;
      sink.write(text);
    },
  };
  const bytes = sink.writeBytes;
  if (bytes !== undefined) {
    watched.writeBytes = (b) => {
      if (b.length > 0) written = true;
      bytes.call(sink, b);
    };
  }
  return { sink: watched, written: () => written };
}
