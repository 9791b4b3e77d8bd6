/**
 * Help texts of `workflow task WORKFLOW [TASK] --help`: a workflow's tasks,
 * and a task's inputs with types and defaults.
 *
 * @module
 */
import type { InputDef, Workflow } from "../workflow/mod.ts";
import { PIPE_HELP_WIDTH, wrapWords } from "./help_fit.ts";
import { columnWidth, displayWidth, padToWidth } from "../util/display_width.ts";

/** One option as a help text lists it: `--cpus <n>` and what it does. */
export interface HelpOption {
  /** The flags with their value (`--cpus <n>`). */
  term: string;
  /** The description (with its default, if any). */
  description: string;
}

/**
 * `text` after `prefix`, wrapped at `width` columns between words, the
 * following lines indented to the text's column; a prefix wider than half
 * the width on a line of its own, the text below it indented 8, as
 * commander's help puts a term wider than its column (`help_layout.ts`). A
 * word longer than a line stays whole.
 *
 * @param prefix what comes first (`  --file <file>  `, or "")
 * @param text the words, or the words as a list (`wrapWords`)
 * @param width the width the help is written in, as commander's (`help_fit.ts`)
 * @returns the lines
 */
export function wrapItem(
  prefix: string,
  text: string | readonly string[],
  width = PIPE_HELP_WIDTH,
): string[] {
  if ((typeof text === "string" ? text.trim() : text.join("")) === "") return [prefix.trimEnd()];
  const prefixWidth = displayWidth(prefix);
  if (prefixWidth > width / 2) {
    const indent = " ".repeat(8);
    return [prefix.trimEnd(), ...wrapWords(text, width - indent.length).map((l) => indent + l)];
  }
  const indent = " ".repeat(prefixWidth);
  return wrapWords(text, width - prefixWidth).map((l, i) => (i === 0 ? prefix : indent) + l);
}

/** The usage after "Usage: ", as words to wrap between (`[--<input> value]...` is one). */
function usageWords(ref: string, task: string): string[] {
  return ["scout-ai", "workflow", "task", ref, task, "[--<input> value]...", "[options]"];
}

/** The "Options:" section (and the blank line after it); none when there are no options. */
function optionLines(options: readonly HelpOption[], width: number): string[] {
  if (options.length === 0) return [];
  const w = columnWidth(options.map((o) => o.term));
  return [
    "Options:",
    ...options.flatMap((o) => wrapItem(`  ${padToWidth(o.term, w)}  `, o.description, width)),
    "",
  ];
}

const VALUES_NOTE = "Values: a value naming an existing file is replaced by its content (except " +
  "for path/file/folder/binary/tsv inputs), and '-' reads it from stdin (one input at most); a " +
  "list input splits its value on commas (--list a,b), as Scout does, unless the value names an " +
  "existing file (then one item per line; file/path lists always split), and repeated flags add " +
  "items (--list a --list b); a newline in a value does not split; booleans accept --flag, " +
  "--no-flag or --flag=false.";

function defaultText(def: InputDef): string {
  if (def.default === undefined || def.default === null) return "";
  const d = typeof def.default === "string" ? def.default : JSON.stringify(def.default);
  return ` (default: ${d === "" ? '""' : d})`;
}

/**
 * Help text of one task: its description and inputs with types and defaults.
 *
 * @param wf the workflow
 * @param taskName the task
 * @param inputs its recursive inputs
 * @param ref the workflow as the user named it (name or path), for the usage and examples
 * @param options the options of `workflow task` (as its own help lists them)
 * @param shadowed the inputs named like an option, given after `--`
 * @param width the width the help is written in
 * @returns the help text
 */
export function taskHelp(
  wf: Workflow,
  taskName: string,
  inputs: InputDef[],
  ref: string = wf.name,
  options: readonly HelpOption[] = [],
  shadowed: readonly InputDef[] = [],
  width: number = PIPE_HELP_WIDTH,
): string {
  const task = wf.tasks[taskName]!;
  const wrap = (prefix: string, text: string | string[]) => wrapItem(prefix, text, width);
  const lines = [
    ...wrap("Usage: ", usageWords(ref, taskName)),
    "",
    ...wrap("", `${wf.name}/${taskName}: ${task.description || "(no description)"}`),
    ...wrap("", `Result type: ${task.type}` + (task.returns ? ` — ${task.returns}` : "")),
    "",
    "Inputs:",
  ];
  if (inputs.length === 0) lines.push("  (none)");
  const term = (i: (typeof inputs)[number]) => `--${i.name} <${i.type}>`;
  const w = columnWidth(inputs.map(term));
  for (const i of inputs) {
    const own = task.inputs.some((o) => o === i) ? "" : " [dependency]";
    const sel = i.type === "select" && i.selectOptions
      ? `${i.description ? ";" : ""} one of: ${
        (Array.isArray(i.selectOptions) ? i.selectOptions : Object.values(i.selectOptions)).join(
          ", ",
        )
      }`
      : "";
    const req = i.required ? " (required)" : "";
    const late = shadowed.includes(i) ? " [after --]" : "";
    const text = `${i.description ?? ""}${sel}${req}${defaultText(i)}${own}${late}`;
    lines.push(...wrap(`  ${padToWidth(term(i), w)}  `, text));
  }
  lines.push(
    "",
    ...optionLines(options, width),
    ...shadowNote(shadowed, ref, taskName, width),
    ...wrap("", VALUES_NOTE),
    "",
    ...examples(ref, taskName, inputs, shadowed),
  );
  return lines.join("\n") + "\n";
}

/** How inputs named like an option are given (after `--`); nothing when there are none. */
function shadowNote(
  shadowed: readonly InputDef[],
  ref: string,
  taskName: string,
  width: number,
): string[] {
  if (shadowed.length === 0) return [];
  const first = shadowed[0]!;
  const example = `-- --${first.name} ${placeholder(first)}`;
  return [
    ...wrapItem(
      "",
      'Inputs marked [after --] are named like an option: give them after "--", where ' +
        "nothing is taken for an option (the options go before it):",
      width,
    ),
    `  scout-ai workflow task ${ref} ${taskName} [options] ${example}`,
    "",
  ];
}

/**
 * The stand-in for a value the user must give: the input's name in
 * uppercase (`--file FILE`), never a value that would run as given.
 *
 * @param i the input
 * @returns the placeholder
 */
function placeholder(i: InputDef): string {
  return i.name.toUpperCase().replace(/[^A-Z0-9]+/g, "_");
}

/** A value an example can show for an optional input (its default, or one of its type), if any. */
function exampleValue(i: InputDef): string | undefined {
  if (i.default !== undefined && i.default !== null && typeof i.default !== "object") {
    return String(i.default);
  }
  const examples: Record<string, string> = { integer: "3", float: "0.5", boolean: "true" };
  return examples[i.type];
}

/**
 * The "Examples" section of a task's help. Every required input is given,
 * as a placeholder to replace (a boolean as its bare flag); a task with none
 * shows its first input that has a value to show, so the example runs.
 */
function examples(
  ref: string,
  taskName: string,
  inputs: InputDef[],
  shadowed: readonly InputDef[],
): string[] {
  const required = inputs.filter((i) => i.required);
  let given = required.map((i): [InputDef, string] => [
    i,
    i.type === "boolean" ? `--${i.name}` : `--${i.name} ${placeholder(i)}`,
  ]);
  if (required.length === 0) {
    const shown = inputs.find((i) => exampleValue(i) !== undefined && !shadowed.includes(i));
    if (shown !== undefined) given = [[shown, `--${shown.name} ${exampleValue(shown)}`]];
  }
  // an input named like an option goes after `--`, the options before it
  const late = given.filter(([i]) => shadowed.includes(i)).map(([, a]) => a);
  const args = given.filter(([i]) => !shadowed.includes(i)).map(([, a]) => a);
  const tail = late.length > 0 ? ["--", ...late] : [];
  const holders = required.filter((i) => i.type !== "boolean").map(placeholder);
  const replace = holders.length === 0
    ? ""
    : ` (replace ${
      holders.length === 1 ? holders[0] : `${holders.slice(0, -1).join(", ")} and ${holders.at(-1)}`
    } with your ${holders.length === 1 ? "value" : "values"})`;
  const run = ["scout-ai", "workflow", "task", ref, taskName, ...args, ...tail].join(" ");
  const jsonArgs = required.length > 0 ? args : [];
  const jsonTail = required.length > 0 ? tail : [];
  const json = ["scout-ai", "workflow", "task", ref, taskName, ...jsonArgs, "--json", ...jsonTail];
  return [`Examples${replace}:`, `  ${run}`, `  ${json.join(" ")} | jq .path`];
}

/**
 * Help text of a workflow: its tasks with descriptions and result types.
 *
 * @param wf the workflow
 * @param ref the workflow as the user named it (name or path), for the usage lines
 * @param width the width the help is written in
 * @returns the help text
 */
export function workflowHelp(
  wf: Workflow,
  ref: string = wf.name,
  width: number = PIPE_HELP_WIDTH,
): string {
  const names = Object.keys(wf.tasks);
  const w = columnWidth(names);
  const wrap = (prefix: string, text: string | string[]) => wrapItem(prefix, text, width);
  const lines = [
    ...wrap("Usage: ", usageWords(ref, "TASK")),
    "",
    ...wrap("", `${wf.title || wf.name}${wf.description ? ": " + wf.description : ""}`),
    "",
    "Tasks:",
    ...names.flatMap((n) =>
      wrap(`  ${padToWidth(n, w)}  `, `${wf.tasks[n]!.description || ""} [${wf.tasks[n]!.type}]`)
    ),
    "",
    ...wrap("", `Run 'scout-ai workflow task ${ref} TASK --help' for a task's inputs.`),
  ];
  return lines.join("\n") + "\n";
}
