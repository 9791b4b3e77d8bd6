/**
 * `--<input> value` arguments of `workflow task`: parsed against a task's
 * inputs, and the one input given as `-` read from stdin.
 *
 * @module
 */
import { resolve } from "node:path";
import { usageError } from "../errors.ts";
import { exists, isFile } from "../util/fs.ts";
import { ownRecord } from "../util/own_record.ts";
import { isPipe } from "../util/path_kind.ts";
import type { InputDef } from "../workflow/mod.ts";
import type { Io } from "./io.ts";
import { readStdinText } from "./lossy_text.ts";
import { END_OF_OPTIONS } from "./workflow_task_escape.ts";

const NUMBER = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;
const INTEGER = /^\s*[+-]?\d+\s*$/;
const BOOLEAN_WORDS = /^(true|false|t|f|yes|no|y|n|on|off|1|0)$/i;
/** Types whose values are paths: a file name stays a name, and `-` is no stdin. */
export const PATH_TYPES: ReadonlySet<string> = new Set(["path", "file", "folder"]);

/** Context of {@link parseInputArgs}. */
export interface InputArgsContext {
  /** `Workflow/task`, for messages. */
  where: string;
  /** Directory relative file names resolve against. */
  cwd: string;
  /** Suggestions for an unknown input name (the workflow library's `nearNames`). */
  nearNames: (name: string, candidates: readonly string[]) => string[];
}

/** The arguments and the position of the one being parsed (a flag's value moves it on). */
interface ArgCursor {
  args: readonly string[];
  k: number;
}

/** `--name=value` or `--name` split; anything else is not an input. */
function flagParts(a: string, where: string): { name: string; value: string | undefined } {
  if (!a.startsWith("--") || a === "--") {
    throw usageError(`Unexpected argument "${a}" for ${where} (inputs are given as --name value)`);
  }
  const eq = a.indexOf("=");
  return {
    name: a.slice(2, eq >= 0 ? eq : undefined),
    value: eq >= 0 ? a.slice(eq + 1) : undefined,
  };
}

/** The input a flag names, as written or with dashes for underscores. */
function inputNamed(byName: Map<string, InputDef>, name: string): InputDef | undefined {
  return byName.get(name) ?? byName.get(name.replaceAll("-", "_"));
}

function unknownInput(name: string, byName: Map<string, InputDef>, ctx: InputArgsContext) {
  const near = ctx.nearNames(name, [...byName.keys()]);
  return usageError(
    `Unknown input --${name} for ${ctx.where}` +
      (near.length > 0 ? `; did you mean ${near.map((n) => `--${n}`).join(" or ")}?` : "") +
      ` (inputs: ${[...byName.keys()].map((n) => `--${n}`).join(", ") || "none"})`,
  );
}

/**
 * The value of a flag given without `=`: the next argument; a boolean takes it
 * only when it is a boolean word, and is otherwise true.
 */
function nextValue(cur: ArgCursor, def: InputDef): string | boolean {
  if (def.type === "boolean") {
    const next = cur.args[cur.k + 1];
    return next !== undefined && BOOLEAN_WORDS.test(next) ? cur.args[++cur.k]! : true;
  }
  const next = cur.args[++cur.k];
  // `--` ends the options, it is no value (`--x -- --json v` gives no value to --x)
  if (next === undefined || next === END_OF_OPTIONS) {
    throw usageError(`Missing value for --${def.name} (${def.type})`);
  }
  return next;
}

/**
 * Ruby's `Task#get_SOPT` for a list input (type `array` or `<t>_array`): the
 * value is split on "," (Ruby's `split`, trailing empty items dropped) unless
 * it names an existing file or directory — always for a type naming `file` or
 * `path`. A newline does not split. `-` (stdin) stays for the job to read.
 */
function listValue(def: InputDef, value: string, cwd: string): string | string[] {
  const pathy = def.type.includes("file") || def.type.includes("path");
  if (value === "-" || (!pathy && exists(resolve(cwd, value)))) return value;
  const items = value.split(",");
  while (items.length > 0 && items.at(-1) === "") items.pop();
  return items;
}

/** A number or `json` value given inline must read as one: else a usage error. */
function checkScalar(def: InputDef, scalar: string, values: readonly string[], where: string) {
  const { name } = def;
  const shown = (v: string) => JSON.stringify(v);
  if (scalar === "integer") {
    const bad = values.find((v) => !INTEGER.test(v));
    if (bad !== undefined) {
      throw usageError(`Input --${name} of ${where} expects an integer, got ${shown(bad)}`);
    }
  }
  if (scalar === "float") {
    const bad = values.find((v) => !NUMBER.test(v));
    if (bad !== undefined) {
      throw usageError(`Input --${name} of ${where} expects a number, got ${shown(bad)}`);
    }
  }
  if (scalar === "json") checkJson(name, values, where);
}

/**
 * Stores one input's value: a list input's split as Ruby's CLI does
 * ({@link listValue}), numbers checked; a repeated list flag adds its items
 * (Ruby keeps the last flag only — [TS-FIX], docs/spec-notes/workflow.md).
 */
function setInput(
  out: Record<string, unknown>,
  def: InputDef,
  value: string | boolean,
  ctx: InputArgsContext,
): void {
  const { name } = def;
  const el = /^(.+)_array$/.exec(def.type)?.[1];
  const isArray = def.type === "array" || el !== undefined;
  const scalar = el ?? (def.type === "array" ? "string" : def.type);
  if (typeof value !== "string") {
    out[name] = value;
    return;
  }
  if (!isArray) {
    // a file's text, stdin's or a pipe's (read once parsed: workflow_pipe_inputs.ts) is checked
    // as the job reads it
    const abs = resolve(ctx.cwd, value);
    const fromFile = !PATH_TYPES.has(scalar) && (value === "-" || isFile(abs) || isPipe(abs));
    if (!fromFile) checkScalar(def, scalar, [value], ctx.where);
    out[name] = value;
    return;
  }
  const v = listValue(def, value, ctx.cwd);
  if (Array.isArray(v)) checkScalar(def, scalar, v, ctx.where);
  if (Object.hasOwn(out, name)) { // own: an input may be called `constructor` (R112-5)
    const prev = out[name];
    out[name] = [...(Array.isArray(prev) ? prev : [prev]), ...(Array.isArray(v) ? v : [v])];
  } else out[name] = v;
}

/** A `json` input's value(s) given inline must parse: else a usage error naming `--<input>`. */
function checkJson(name: string, values: readonly string[], where: string): void {
  for (const v of values) {
    try {
      JSON.parse(v);
    } catch (e) {
      const why = (e as Error).message.replace(/\s+/g, " ");
      throw usageError(`Input --${name} of ${where} expects JSON, got "${v}" (${why})`);
    }
  }
}

/** Parses the argument at the cursor (and its value, when that is the next one) into `out`. */
function parseArg(
  cur: ArgCursor,
  byName: Map<string, InputDef>,
  out: Record<string, unknown>,
  ctx: InputArgsContext,
): void {
  const { name, value } = flagParts(cur.args[cur.k]!, ctx.where);
  if (name.includes("#")) {
    const v = value ?? cur.args[++cur.k];
    if (v === undefined) throw usageError(`Missing value for --${name}`);
    out[name] = v;
    return;
  }
  const def = inputNamed(byName, name);
  if (def === undefined && name.startsWith("no-")) {
    const b = inputNamed(byName, name.slice(3));
    if (b?.type === "boolean" && value === undefined) {
      out[b.name] = false;
      return;
    }
  }
  if (def === undefined) throw unknownInput(name, byName, ctx);
  setInput(out, def, value ?? nextValue(cur, def), ctx);
}

/**
 * Parses `--<input> value` arguments against a task's recursive inputs
 * (those after a `--` as well: there an input named like an option of the
 * command is given, see `workflow_task_escape.ts`). A value naming an existing file, or `-` (stdin), is left as one string for
 * the job to load (so a numeric input's file name is not checked as a number,
 * and an array input's file is split into lines).
 *
 * @param args raw arguments (after WF and TASK)
 * @param inputs the task's recursive inputs
 * @param ctx messages, cwd and suggestions
 * @returns provided inputs (strings, string arrays, booleans), in a record
 *   without a prototype: inputs called `toString` or `__proto__` are keys like any
 * @throws ScoutError `usage` for unknown inputs, missing values, non-numeric numbers
 */
export function parseInputArgs(
  args: readonly string[],
  inputs: readonly InputDef[],
  ctx: InputArgsContext,
): Record<string, unknown> {
  const byName = new Map(inputs.map((i) => [i.name, i]));
  const out = ownRecord();
  const end = args.indexOf(END_OF_OPTIONS);
  const cur: ArgCursor = { args, k: 0 };
  for (; cur.k < args.length; cur.k++) {
    if (cur.k !== end) parseArg(cur, byName, out, ctx); // `--`: the inputs after it are inputs too
  }
  return out;
}

/**
 * Replaces the one input given as `-` by the text on stdin.
 *
 * @param provided parsed inputs (changed in place)
 * @param inputs the task's recursive inputs
 * @param io injected I/O (stdin)
 * @throws ScoutError `usage` for more than one `-`, or `-` for a path input
 */
export async function readStdinInput(
  provided: Record<string, unknown>,
  inputs: readonly InputDef[],
  io: Io,
): Promise<void> {
  const names = Object.keys(provided).filter((n) => provided[n] === "-");
  if (names.length === 0) return;
  if (names.length > 1) {
    throw usageError(
      `Only one input can read stdin: ${names.map((n) => `--${n} -`).join(", ")}`,
    );
  }
  const name = names[0]!;
  const def = inputs.find((i) => i.name === name);
  if (def !== undefined && PATH_TYPES.has(def.type)) {
    throw usageError(`Input --${name} takes a ${def.type} path; "-" (stdin) is for value inputs`);
  }
  provided[name] = await readStdinText(io, `--${name}`);
}
