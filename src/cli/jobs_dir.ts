/**
 * The one check of a `--jobs-dir` value, shared by the commands that take
 * it: a path that is not a directory is an error naming it (exit 1, as a
 * missing chat or job is), never a store that silently holds nothing; and
 * the refusal of a second one where a command uses one directory.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { ScoutError, usageError } from "../errors.ts";
import { isDirectory } from "../util/fs.ts";

/**
 * Checks a `--jobs-dir` value. Commands that only read jobs (`llm prov`,
 * `workflow info`, `workflow list`) need the directory to exist; those that
 * write jobs (`workflow task`, `workflow mcp`) make it, so for them only an
 * existing non-directory is refused.
 *
 * @param given the value as given
 * @param cwd the working directory it is relative to
 * @param o `create: true` when the command makes a missing directory; `flag`:
 *   the option named in the error (default `--jobs-dir`; `workflow batch`'s
 *   `--batch-dir` is checked alike, R137-7)
 * @returns the absolute path
 * @throws ScoutError `not_found` (no such directory) or `invalid_input` (not a directory)
 *
 * @example
 * ```ts
 * import { checkJobsDir } from "./jobs_dir.ts";
 * checkJobsDir("var/jobs", "/tmp", { create: true }); // "/tmp/var/jobs"
 * ```
 */
export function checkJobsDir(
  given: string,
  cwd: string,
  o: { create?: boolean; flag?: string } = {},
): string {
  const dir = resolve(cwd, given);
  const flag = o.flag ?? "--jobs-dir";
  if (isDirectory(dir)) return dir;
  if (existsSync(dir)) {
    throw new ScoutError(
      "invalid_input",
      `Cannot use ${flag} "${given}": it is not a directory`,
      { file: given },
    );
  }
  if (o.create) {
    // it will be made: every ancestor that exists must be a directory
    const blocker = existingAncestor(dir);
    if (blocker !== null && !isDirectory(blocker)) {
      const what = relative(cwd, blocker) || blocker;
      throw new ScoutError(
        "invalid_input",
        `Cannot use ${flag} "${given}": "${what}" is not a directory`,
        { file: given },
      );
    }
    return dir;
  }
  throw new ScoutError(
    "not_found",
    `Cannot use ${flag} "${given}": no such directory`,
    { file: given },
  );
}

/**
 * Commander's parser of a `--jobs-dir` that takes one directory (where
 * `workflow task` and `workflow mcp` store jobs, what `system clean`
 * cleans): a second one is a usage error (exit 2), not the first one
 * silently dropped (R128-8). Commands that search several (`workflow info`,
 * `workflow list`, `llm prov`) collect them instead.
 *
 * @param value the value given
 * @param previous the value given before, if any
 * @returns the value
 * @throws ScoutError `usage` when one was given before
 *
 * @example
 * ```ts
 * import { oneJobsDir } from "./jobs_dir.ts";
 * oneJobsDir("var/jobs", undefined); // "var/jobs"
 * ```
 */
export function oneJobsDir(value: string, previous: string | undefined): string {
  if (previous !== undefined) {
    throw usageError(
      `--jobs-dir given twice ("${previous}", then "${value}"): this command uses one jobs directory`,
    );
  }
  return value;
}

/** The nearest ancestor of a missing path that exists (null: none, or the root). */
function existingAncestor(path: string): string | null {
  for (let p = dirname(path);; p = dirname(p)) {
    if (existsSync(p)) return p;
    if (dirname(p) === p) return null;
  }
}
