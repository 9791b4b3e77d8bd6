/**
 * Stdin for `llm ask` / `agent ask`: `-` reads it wherever a file is named
 * (`-c -`, `QUESTION -`, `-f -`, `-i -`), but only one of them may take it.
 *
 * @module
 */
import { usageError } from "../errors.ts";
import type { LlmAskOptions } from "./llm_ask_types.ts";

/**
 * Checks that at most one of `-c -`, `QUESTION -`, `-f -` and `-i -` reads
 * stdin.
 *
 * @param opts command options
 * @throws usage error naming the ones given
 */
export function checkStdinUse(opts: LlmAskOptions): void {
  const users = [
    ...(opts.chat === "-" ? ["-c -"] : []),
    ...(opts.question.join(" ") === "-" ? ["QUESTION -"] : []),
    ...opts.files.filter((f) => f === "-").map(() => "-f -"),
    ...(opts.imports ?? []).filter((f) => f === "-").map(() => "-i -"),
  ];
  if (users.length > 1) {
    throw usageError(`Stdin can feed only one of ${users.join(", ")}: name files for the others`);
  }
}
