/**
 * The Ruby scout's flag spellings, read before commander parses the command
 * line (DESIGN.md §3: scripts written for Ruby's scout carry over). Ruby's
 * option parser (SOPT) takes a long name after one dash (`-chat FILE`,
 * `-dry_run`), `-x=value`, and names flags with `_` (`--recursive_clean`);
 * commander would read `-chat` as `-c hat` and `-m=x` as the model `=x`.
 * A command may add Scout's own spellings of its flags (`addScoutSpellings`):
 * an alias for the port's flag, or a refusal naming what the port offers.
 *
 * @module
 */
import type { CommandUnknownOpts } from "@commander-js/extra-typings";
import { usageError } from "../errors.ts";
import { fittedHelp } from "./help_layout.ts";

/** Scout's spellings of one command's flags. */
export interface ScoutSpellings {
  /** Scout's flag → the port's flag of the same meaning (`-jn` → `--jobname`). */
  aliases?: Readonly<Record<string, string>>;
  /**
   * The command's `--name_with_underscores` are its own inputs (`workflow task`'s task inputs,
   * Ruby-named): no `_` is read as `-` there (a `jobs_dir` input is not `--jobs-dir`).
   */
  underscoreInputs?: boolean;
  /** Scout's flags that change nothing here → why (dropped from the arguments). */
  ignored?: Readonly<Record<string, string>>;
  /** Scout's flag → what the port offers instead (the port has no such behaviour). */
  refused?: Readonly<Record<string, string>>;
}

const SPELLINGS = new WeakMap<CommandUnknownOpts, ScoutSpellings>();

/**
 * Ruby's two-letter short flags with no port alias, which commander would
 * read as `-i n` / `-w t` (a Map: an argument such as `toString` is no flag
 * of Object.prototype's, R112-5).
 */
const RUBY_MULTI_LETTER = new Map<string, string>([
  ["-in", 'use --inline FILE (-in would read as -i n: import the chat file "n")'],
  [
    "-wt",
    "Ruby's -wt/--workflow_tasks is not supported (it did nothing there): use -w WORKFLOW " +
    '(-wt would read as -w t: the workflow "t")',
  ],
]);

/**
 * Gives a command Scout's spellings of its flags and names them in its help
 * ("Also accepted (Scout's spellings)", "Not offered (Scout's)").
 *
 * @param cmd the command
 * @param spellings its aliases and refusals
 * @returns the command
 */
export function addScoutSpellings<C extends CommandUnknownOpts>(
  cmd: C,
  spellings: ScoutSpellings,
): C {
  SPELLINGS.set(cmd, spellings);
  const byTarget = new Map<string, string[]>();
  for (const [a, to] of Object.entries(spellings.aliases ?? {})) {
    byTarget.set(to, [...(byTarget.get(to) ?? []), a]);
  }
  const aliases = [...byTarget].map(([to, names]) => `${names.join(", ")} for ${to}`);
  const ignored = Object.entries(spellings.ignored ?? {}).map(([a, why]) => `${a} (${why})`);
  const refused = Object.keys(spellings.refused ?? {});
  let text = "";
  if (aliases.length > 0) text += `\n\nAlso accepted (Scout's spellings): ${aliases.join("; ")}.`;
  if (ignored.length > 0) text += `\n\nAccepted, changing nothing: ${ignored.join("; ")}.`;
  if (refused.length > 0) {
    text += `\n\nScout's flags not offered (refused, naming what to use): ${refused.join(", ")}.`;
  }
  if (text !== "") cmd.addHelpText("after", fittedHelp(text.slice(1)));
  return cmd;
}

/**
 * The arguments before a `--` as commander should read them, Ruby's way:
 * `-name` that is a long option of the command run (or of its parents; `_`
 * or `-` alike) is `--name`; `-x=value` for a short option taking a value is
 * `-x value`, `-name=value` is `--name=value`; `--name_with_underscores` is
 * the port's `--name-with-underscores`; the command's Scout spellings are
 * its flags. A one-dash token no flag reads and no bundle of short flags
 * (`-chat` where only `-c` is known) and a value given to a flag that takes
 * none (`-q=1`) are usage errors naming the token as typed; any other token
 * is left as it is (`-5` stays a question word).
 *
 * @param program the program (as built by `buildProgram`)
 * @param argv the arguments after the program name
 * @returns the arguments to parse
 * @throws ScoutError `usage` for a Scout flag the port refuses, and Ruby's
 *   `-in` / `-wt`, naming what to use instead; for an unknown one-dash token
 *   or a value given to a flag that takes none
 */
export function rubyFlagArgs(program: CommandUnknownOpts, argv: readonly string[]): string[] {
  const out: string[] = [];
  let cmd = program;
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === "--") return [...out, ...argv.slice(i)];
    if (token.length > 1 && token.startsWith("-")) {
      const read = readFlag(cmd, token);
      out.push(...read);
      if (read.length === 1 && takesSeparateValue(cmd, read[0]!) && i + 1 < argv.length) {
        out.push(argv[++i]!);
      }
      continue;
    }
    out.push(token);
    if (cmd.commands.length === 0) continue;
    const sub = cmd.commands.find((c) => c.name() === token || c.aliases().includes(token));
    if (sub === undefined) return [...out, ...argv.slice(i + 1)]; // commander's to refuse
    cmd = sub;
  }
  return out;
}

/** One flag token as the port's: the tokens it becomes. */
function readFlag(cmd: CommandUnknownOpts, token: string): string[] {
  const eq = token.indexOf("=");
  const flag = eq < 0 ? token : token.slice(0, eq);
  const value = eq < 0 ? undefined : token.slice(eq + 1);
  const withValue = (f: string) => value === undefined ? [f] : [`${f}=${value}`];
  const refusal = RUBY_MULTI_LETTER.get(flag);
  if (refusal !== undefined) throw usageError(`Unknown flag ${flag}: ${refusal}`);
  const spellings = SPELLINGS.get(cmd);
  const alias = own(spellings?.aliases, flag);
  if (alias !== undefined) return withValue(alias);
  if (value === undefined && own(spellings?.ignored, flag) !== undefined) return [];
  const refused = own(spellings?.refused, flag);
  if (refused !== undefined) {
    throw usageError(`${flag} (Scout's) is not offered by scout-ai: ${refused}`);
  }
  const known = findOption(cmd, flag);
  if (known !== undefined && value !== undefined) noValue(cmd, known, token);
  if (/^-[^-]$/.test(flag) && value !== undefined) {
    return known !== undefined ? [flag, value] : asTyped(cmd, token);
  }
  if (known !== undefined) return [token];
  const name = flag.replace(/^--?/, "");
  if (name.length < 2 || !/^[A-Za-z][\w-]*$/.test(name)) return asTyped(cmd, token);
  if (name === "help") return withValue("--help");
  const dashed = spellings?.underscoreInputs ? [] : [`--${name.replaceAll("_", "-")}`];
  for (const long of [`--${name}`, ...dashed]) {
    const o = findOption(cmd, long);
    if (o === undefined) continue;
    if (value !== undefined) noValue(cmd, o, token);
    return withValue(long);
  }
  return asTyped(cmd, token);
}

/** Whether `cmd` takes options it does not know (`workflow task`'s inputs). */
function takesUnknown(cmd: CommandUnknownOpts): boolean {
  return (cmd as unknown as { _allowUnknownOption?: boolean })._allowUnknownOption === true;
}

/**
 * `-x=value` or `--flag=value` for a flag that takes no value: an error naming
 * the token as typed, not commander's `unknown option '-=1'` (R164-3).
 */
function noValue(cmd: CommandUnknownOpts, o: AnOption, token: string): void {
  if (!o.required && !o.optional && !takesUnknown(cmd)) {
    throw usageError(`option '${token}' does not take a value`);
  }
}

/**
 * A token no flag of the command reads: left for commander, unless it is a
 * one-dash multi-letter token that is no bundle of the command's short flags
 * (`-dv`, `-mgpt-4`): commander would split it and name a fragment never
 * typed (`-chat` → `unknown option '-hat'`), so it is refused as typed (R164-3).
 */
function asTyped(cmd: CommandUnknownOpts, token: string): string[] {
  if (!/^-[A-Za-z]./.test(token) || takesUnknown(cmd) || isBundle(cmd, token)) return [token];
  throw usageError(`unknown option '${token}'`);
}

/**
 * Whether commander reads `-abc` as known short flags, the last one taking
 * the rest as its value. With a `=` only a value flag first is (`-Okey=v`):
 * `-format=x` is Ruby's `-name=value`, not `-f -o rmat=x`.
 */
function isBundle(cmd: CommandUnknownOpts, token: string): boolean {
  for (let i = 1; i < token.length; i++) {
    const o = findOption(cmd, `-${token[i]}`);
    if (o === undefined) return false;
    if (o.required || o.optional) return i === 1 || !token.includes("=");
  }
  return true;
}

/** An own entry of a table (never an Object.prototype member). */
function own(table: Readonly<Record<string, string>> | undefined, key: string) {
  return table !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
}

type AnOption = CommandUnknownOpts["options"][number];

/** The option `flag` (long or short) of `cmd` or of its parents. */
function findOption(cmd: CommandUnknownOpts, flag: string): AnOption | undefined {
  for (let c: CommandUnknownOpts | null = cmd; c !== null; c = c.parent) {
    const o = c.options.find((o) => o.long === flag || o.short === flag);
    if (o !== undefined) return o;
  }
  return undefined;
}

/** Whether `token` is an option whose value is the next token. */
function takesSeparateValue(cmd: CommandUnknownOpts, token: string): boolean {
  if (token.includes("=")) return false;
  const o = findOption(cmd, token);
  return o !== undefined && o.required;
}
