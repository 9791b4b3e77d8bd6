/**
 * Inputs of a task named like an option of `workflow task` (`--json`,
 * `--clean`, `--deploy`, a global `--debug`…): before `--` the option takes
 * the flag, so such an input is given after `--`, where nothing is taken for
 * an option (`workflow task WF TASK --json -- --json VALUE`). This module
 * finds those inputs, places the `--` in the arguments the task gets, and
 * words the warning for an option given where its input may have been meant.
 *
 * @module
 */
import type { InputDef } from "../workflow/mod.ts";

/** The argument after which every `--<input>` is an input, never an option. */
export const END_OF_OPTIONS = "--";

/**
 * The task's inputs whose flag (`--<name>`, as help lists it) is an option
 * of the command or a global one: on the command line, before `--`, the
 * option takes it.
 *
 * @param inputs the task's recursive inputs
 * @param optionFlags the long flags of the command and its parents (`--json`, `--help`…)
 * @returns the inputs given only after `--`
 */
export function shadowedInputs(
  inputs: readonly InputDef[],
  optionFlags: readonly string[],
): InputDef[] {
  const flags = new Set(optionFlags);
  return inputs.filter((i) => flags.has(`--${i.name}`));
}

/**
 * The arguments a task gets with the `--` where the user put it. Commander
 * passes what follows `--` on as plain arguments and drops the `--` itself
 * unless an unknown option (an input) came before it; `tail` (what followed
 * the first `--` on the command line) puts it back.
 *
 * @param args the command's arguments as commander passed them
 * @param tail the command line's arguments after its first `--`
 * @returns the arguments, with `--` before the escaped ones
 */
export function markEndOfOptions(args: readonly string[], tail: readonly string[]): string[] {
  if (args.includes(END_OF_OPTIONS) || tail.length === 0 || tail.length > args.length) {
    return [...args];
  }
  const start = args.length - tail.length;
  if (!tail.every((a, k) => args[start + k] === a)) return [...args];
  return [...args.slice(0, start), END_OF_OPTIONS, ...args.slice(start)];
}

/**
 * Splits arguments at their first `--`.
 *
 * @param args the arguments
 * @returns those before it and those after it (empty when there is none)
 */
export function splitAtEnd(args: readonly string[]): { before: string[]; after: string[] } {
  const k = args.indexOf(END_OF_OPTIONS);
  return k < 0
    ? { before: [...args], after: [] }
    : { before: args.slice(0, k), after: args.slice(k + 1) };
}

/** Input names given as flags (`--name v`, `--name=v`) among the arguments. */
function flagNames(args: readonly string[]): Set<string> {
  const names = new Set<string>();
  for (const a of args) {
    if (!a.startsWith("--") || a === END_OF_OPTIONS) continue;
    const eq = a.indexOf("=");
    names.add(a.slice(2, eq >= 0 ? eq : undefined));
  }
  return names;
}

/** What {@link shadowWarnings} reports about. */
export interface ShadowContext {
  /** `Workflow/task`. */
  where: string;
  /** The workflow file, when it was loaded from one. */
  file?: string | undefined;
  /** The command that runs the task, as the user named the workflow (`scout-ai workflow task WF TASK`). */
  command: string;
  /** The inputs an option shadows ({@link shadowedInputs}). */
  shadowed: readonly InputDef[];
  /** The long flags of the options given before `--`. */
  givenOptions: readonly string[];
  /** The task's arguments (with the `--` marker, if any). */
  args: readonly string[];
}

/**
 * One warning per option given before `--` that an input of the task is
 * named like, unless that input was given after `--` as well (then the
 * option was meant as one): the option took the flag, and the input is set
 * after `--`.
 *
 * @param ctx the task, its shadowed inputs, the options given, its arguments
 * @returns the warnings (none when nothing is ambiguous)
 */
export function shadowWarnings(ctx: ShadowContext): string[] {
  const given = new Set(ctx.givenOptions);
  const escaped = flagNames(splitAtEnd(ctx.args).after);
  const file = ctx.file !== undefined ? ` (${ctx.file})` : "";
  return ctx.shadowed
    .filter((i) => given.has(`--${i.name}`) && !escaped.has(i.name))
    .map((i) =>
      `--${i.name} was taken as the option of workflow task, not as input "${i.name}" of ` +
      `${ctx.where}${file}, which has the same name; to set the input, give it after "--": ` +
      `${ctx.command} [options] -- --${i.name} <${i.type}>`
    );
}
