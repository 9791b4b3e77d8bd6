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
 * stdin, and that `-s` and `-t` do not name it.
 *
 * @param opts command options
 * @throws usage error naming the ones given
 */
export function checkStdinUse(opts: LlmAskOptions): void {
  refuseStdinFile(opts.schema, "-s", "schema");
  refuseStdinFile(opts.template, "-t", "template");
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

/**
 * [R128-7] `-s -` / `-t -`: stdin is the question's (or the text its `...`
 * stands for, or a `-c`/`-f`/`-i` file's), read after the schema and the
 * template, so neither may take it: a usage error saying so, where they read
 * a file named `-` ("Schema file not found: "-"", "Template "-" not found").
 * A pipe (`-s <(…)`) is read as a file.
 */
function refuseStdinFile(value: string | undefined, flag: string, what: string): void {
  if (value !== "-") return;
  throw usageError(
    `${flag} -: the ${what} cannot come from stdin, which is where the question (or -c -, ` +
      `-f -, -i -) is read from; name a file, or a pipe: ${flag} <(command)`,
  );
}
