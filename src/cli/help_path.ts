/**
 * `scout-ai help COMMAND…` read as the whole command path (R128-9):
 * commander's help command takes one name, so `help llm ask` showed the
 * `llm` group's help, and answered an unknown name (`help chatt`) with the
 * root's help and no word of what was wrong.
 *
 * @module
 */
import type { CommandUnknownOpts } from "@commander-js/extra-typings";

/**
 * The arguments to parse in place of `argv`: a `help` where a command group
 * takes its command (`help llm ask`, `llm help ask`) becomes the named
 * command's `--help` (`llm ask --help`); a name that is no command of its
 * group is left for commander to refuse as it refuses it without `help`
 * (`help chatt` → `chatt`: unknown command, did you mean chat?, exit 2).
 * Any other `argv` is returned as it is.
 *
 * @param program the program (as built by `buildProgram`)
 * @param argv the arguments after the program name
 * @returns the arguments to parse
 *
 * @example
 * ```ts
 * import { Command } from "@commander-js/extra-typings";
 * import { helpArgs } from "./help_path.ts";
 * const program = new Command("x");
 * program.command("llm").command("ask");
 * helpArgs(program, ["help", "llm", "ask"]); // ["llm", "ask", "--help"]
 * ```
 */
export function helpArgs(program: CommandUnknownOpts, argv: readonly string[]): string[] {
  let cmd = program;
  for (let i = 0; i < argv.length;) {
    const token = argv[i]!;
    if (token === "--") break;
    if (token.startsWith("-")) {
      const width = optionWidth(cmd, token);
      if (width === 0) break; // not an option of the path so far: commander's to judge
      i += width;
      continue;
    }
    if (cmd.commands.length === 0) break;
    if (token === "help" && subcommand(cmd, token) === undefined) {
      return [...argv.slice(0, i), ...helpPath(cmd, argv.slice(i + 1))];
    }
    const sub = subcommand(cmd, token);
    if (sub === undefined) break;
    cmd = sub;
    i++;
  }
  return [...argv];
}

/** The command path after `help`, with `--help`; up to an unknown name, without. */
function helpPath(from: CommandUnknownOpts, rest: readonly string[]): string[] {
  const path: string[] = [];
  let cmd = from;
  let k = 0;
  for (; k < rest.length && !rest[k]!.startsWith("-") && cmd.commands.length > 0; k++) {
    const sub = subcommand(cmd, rest[k]!);
    if (sub === undefined) return [...path, rest[k]!];
    path.push(rest[k]!);
    cmd = sub;
  }
  // `--help` before what follows the path: after a `--` it would be an operand (R129-6)
  return [...path, "--help", ...rest.slice(k)];
}

function subcommand(cmd: CommandUnknownOpts, name: string): CommandUnknownOpts | undefined {
  return cmd.commands.find((c) => c.name() === name || c.aliases().includes(name));
}

/** Tokens an option of `cmd` or its parents takes (2 with a separate value); 0 if it is none. */
function optionWidth(cmd: CommandUnknownOpts, token: string): number {
  const flag = token.split("=")[0]!;
  for (let c: CommandUnknownOpts | null = cmd; c !== null; c = c.parent) {
    const o = c.options.find((o) => o.long === flag || o.short === flag);
    if (o !== undefined) return (o.required || o.optional) && !token.includes("=") ? 2 : 1;
  }
  return 0;
}
