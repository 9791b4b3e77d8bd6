/**
 * An empty path on the command line is a usage error naming the option or
 * argument (R164-2): `resolve(cwd, "")` is the working directory itself, so
 * `llm process "$RELAY_DIR"` with the variable unset took the working
 * directory as its queue and moved its `package.json` into `failed/`, and
 * `--jobs-dir ''`, `--batch-dir ''`, `-o ''`… named the working directory
 * too. One check for every command, run before its action: any option whose
 * value is a `<dir>`, `<file>`, `<path>` or `<chat>`, and any `dir`, `file`
 * or `kb-dir` argument. (`llm prov ''` has its own "Missing ROOT".)
 *
 * @module
 */
import type { Command } from "@commander-js/extra-typings";
import { usageError } from "../errors.ts";

/** What a placeholder or argument name holds, as the error says it. */
const PATH_NAMES: Readonly<Record<string, string>> = {
  dir: "directory",
  "kb-dir": "directory",
  file: "file",
  chat: "file",
  path: "path",
};

type Described = { flags: string; long?: string; short?: string; attributeName(): string };
type Argument = { name(): string };

function isEmpty(value: unknown): boolean {
  return value === "" || (Array.isArray(value) && value.includes(""));
}

function refuse(name: string, what: string): never {
  throw usageError(`Missing ${name}: "" names no ${what} (an unset shell variable?)`);
}

/**
 * Refuses an empty path given to the command about to run (see the module note).
 *
 * @param cmd the command whose action is next
 * @throws ScoutError `usage` naming the option (`--jobs-dir`) or argument (`DIR`)
 *
 * @example
 * ```ts
 * import { Command } from "@commander-js/extra-typings";
 * import { refuseEmptyPaths } from "./empty_path.ts";
 * const cmd = new Command("x").option("-o, --output <file>");
 * cmd.parse(["-o", ""], { from: "user" });
 * try { refuseEmptyPaths(cmd); } catch (e) { (e as Error).message; } // 'Missing --output: "" names no file …'
 * ```
 */
export function refuseEmptyPaths(cmd: Command): void {
  for (const o of cmd.options as readonly Described[]) {
    const what = PATH_NAMES[/<([a-z-]+)>$/.exec(o.flags)?.[1] ?? ""];
    if (what !== undefined && isEmpty(cmd.getOptionValue(o.attributeName()))) {
      refuse(o.long ?? o.short ?? o.flags, what);
    }
  }
  const args = (cmd as unknown as { registeredArguments?: readonly Argument[] })
    .registeredArguments ?? [];
  args.forEach((a, i) => {
    const what = PATH_NAMES[a.name()];
    if (what !== undefined && isEmpty(cmd.processedArgs[i])) refuse(a.name().toUpperCase(), what);
  });
}
