/**
 * The completion model: the commander program walked into plain data (each
 * command path with its subcommands, options and positional arguments, and
 * what kind of value each takes), from which the shell scripts are printed.
 *
 * @module
 */
import type { Command } from "@commander-js/extra-typings";

/** What a value completes to: dynamic names found on the search roots, paths, or nothing. */
export type ValueKind =
  | "workflow"
  | "task"
  | "endpoint"
  | "backend"
  | "agent"
  | "file"
  | "none";

/** One option of a command. */
export interface OptionSpec {
  /** Flags as typed (`-e`, `--endpoint`). */
  flags: string[];
  /** Description (for zsh/fish). */
  description: string;
  /** What its value completes to; null when it takes no value. */
  value: ValueKind | null;
}

/** One command of the tree (the root has the path `[]`). */
export interface CommandSpec {
  /** Names from the root (`["workflow", "task"]`). */
  path: string[];
  /** Description. */
  description: string;
  /** Subcommand names (with aliases). */
  subcommands: string[];
  /** Options (without the hidden ones). */
  options: OptionSpec[];
  /** Kinds of the positional arguments, in order; the last repeats when `variadic`. */
  args: ValueKind[];
  /** The last argument takes many values. */
  variadic: boolean;
}

/**
 * Commands whose arguments' names do not say their kind: the kinds in order.
 * `workflow task <args...>` reads `<workflow> <task> [--input v…]`; the
 * `agent` commands' `<name>` is an agent (`kb register`'s is a database).
 */
const ARG_OVERRIDES: Record<string, ValueKind[]> = {
  "workflow task": ["workflow", "task", "none"],
  "agent ask": ["agent", "none"],
  "agent find": ["agent"],
  "agent kb": ["agent", "none"],
};

/** Kind of an argument or option value from its name (`<workflow>`, `--endpoint <name>`). */
export function kindOf(name: string, flag = ""): ValueKind {
  const n = name.toLowerCase();
  const f = flag.replace(/^-+/, "");
  if (f === "endpoint" || n === "endpoint") return "endpoint";
  if (f === "workflow" || n === "workflow") return "workflow";
  if (f === "backend" || n === "backend") return "backend";
  if (f === "agent" || n === "agent") return "agent";
  if (n === "task") return "task";
  if (/^(file|files|path|dir|root|job|schema)s?$/.test(n) || f === "chat") return "file";
  return "none";
}

/**
 * Walks a commander program into {@link CommandSpec}s, depth first.
 *
 * @param program the program (as built by `buildProgram`)
 * @returns one spec per command, the root first
 */
export function commandTree(program: Command): CommandSpec[] {
  const out: CommandSpec[] = [];
  const walk = (cmd: Command, path: string[]) => {
    // deno-lint-ignore no-explicit-any
    const c = cmd as any;
    const args = (c.registeredArguments ?? []) as { name(): string; variadic: boolean }[];
    const key = path.join(" ");
    out.push({
      path,
      description: cmd.description(),
      subcommands: cmd.commands.filter((s) => !(s as unknown as { _hidden?: boolean })._hidden)
        .flatMap((s) => [s.name(), ...s.aliases()]),
      options: cmd.options.filter((o) => !o.hidden).map((o) => ({
        flags: [o.short, o.long].filter((x): x is string => typeof x === "string"),
        description: o.description,
        value: o.required || o.optional
          ? kindOf(/<([^>]+)>|\[([^\]]+)\]/.exec(o.flags)?.[1] ?? "", o.long ?? "")
          : null,
      })),
      args: ARG_OVERRIDES[key] ?? args.map((a) => kindOf(a.name())),
      // `llm prov ROOT…` takes more ROOTs as excess operands (R134-1): its last one repeats
      variadic: (args.at(-1)?.variadic ?? false) || c._allowExcessArguments === true,
    });
    for (const s of cmd.commands) walk(s as unknown as Command, [...path, s.name()]);
  };
  walk(program, []);
  return out;
}
