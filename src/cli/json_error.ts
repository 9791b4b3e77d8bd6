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
 * @module
 */
import type { TextSink } from "./io.ts";

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
  const doc: JsonErrorDocument = { version: 1, status: "error", error: message };
  return JSON.stringify(doc) + "\n";
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
