/**
 * `--<input> value` arguments of `workflow task`: parsed against a task's
 * inputs, and the one input given as `-` read from stdin.
 *
 * @module
 */
import { resolve } from "node:path";
import { usageError } from "../errors.ts";
import { isFile } from "../util/fs.ts";
import type { InputDef } from "../workflow/mod.ts";
import type { Io } from "./io.ts";

const NUMBER = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;
const INTEGER = /^\s*[+-]?\d+\s*$/;
const BOOLEAN_WORDS = /^(true|false|t|f|yes|no|y|n|on|off|1|0)$/i;
/** Types whose values are paths: a file name stays a name, and `-` is no stdin. */
const PATH_TYPES = new Set(["path", "file", "folder"]);

/** Context of {@link parseInputArgs}. */
export interface InputArgsContext {
  /** `Workflow/task`, for messages. */
  where: string;
  /** Directory relative file names resolve against. */
  cwd: string;
  /** Suggestions for an unknown input name (the workflow library's `nearNames`). */
  nearNames: (name: string, candidates: readonly string[]) => string[];
}

/**
 * Parses `--<input> value` arguments against a task's recursive inputs. A
 * value naming an existing file, or `-` (stdin), is left as one string for
 * the job to load (so a numeric input's file name is not checked as a number,
 * and an array input's file is split into lines).
 *
 * @param args raw arguments (after WF and TASK)
 * @param inputs the task's recursive inputs
 * @param ctx messages, cwd and suggestions
 * @returns provided inputs (strings, string arrays, booleans)
 * @throws ScoutError `usage` for unknown inputs, missing values, non-numeric numbers
 */
export function parseInputArgs(
  args: readonly string[],
  inputs: readonly InputDef[],
  ctx: InputArgsContext,
): Record<string, unknown> {
  const { where, nearNames } = ctx;
  const loaded = (v: string) => v === "-" || isFile(resolve(ctx.cwd, v));
  const byName = new Map(inputs.map((i) => [i.name, i]));
  const out: Record<string, unknown> = {};
  for (let k = 0; k < args.length; k++) {
    const a = args[k]!;
    if (!a.startsWith("--") || a === "--") {
      throw usageError(
        `Unexpected argument "${a}" for ${where} (inputs are given as --name value)`,
      );
    }
    const eq = a.indexOf("=");
    let name = a.slice(2, eq >= 0 ? eq : undefined);
    let value: string | boolean | undefined = eq >= 0 ? a.slice(eq + 1) : undefined;
    if (name.includes("#")) {
      if (value === undefined) value = args[++k];
      if (value === undefined) throw usageError(`Missing value for --${name}`);
      out[name] = value;
      continue;
    }
    const def = byName.get(name) ?? byName.get(name.replaceAll("-", "_"));
    if (def === undefined && name.startsWith("no-")) {
      const b = byName.get(name.slice(3)) ?? byName.get(name.slice(3).replaceAll("-", "_"));
      if (b?.type === "boolean" && value === undefined) {
        out[b.name] = false;
        continue;
      }
    }
    if (def === undefined) {
      const near = nearNames(name, [...byName.keys()]);
      throw usageError(
        `Unknown input --${name} for ${where}` +
          (near.length > 0 ? `; did you mean ${near.map((n) => `--${n}`).join(" or ")}?` : "") +
          ` (inputs: ${[...byName.keys()].map((n) => `--${n}`).join(", ") || "none"})`,
      );
    }
    name = def.name;
    if (value === undefined) {
      if (def.type === "boolean") {
        const next = args[k + 1];
        if (next !== undefined && BOOLEAN_WORDS.test(next)) value = args[++k]!;
        else value = true;
      } else {
        const next = args[++k];
        if (next === undefined) throw usageError(`Missing value for --${name} (${def.type})`);
        value = next;
      }
    }
    const el = /^(.+)_array$/.exec(def.type)?.[1];
    const scalar = el ?? (def.type === "array" ? "string" : def.type);
    const fromFile = typeof value === "string" && !PATH_TYPES.has(scalar) && loaded(value);
    if (typeof value === "string" && !fromFile) {
      const check = el !== undefined ? value.replace(/\n+$/, "").split("\n") : [value];
      if (scalar === "integer" && check.some((v) => !INTEGER.test(v))) {
        throw usageError(`Input --${name} of ${where} expects an integer, got "${value}"`);
      }
      if (scalar === "float" && check.some((v) => !NUMBER.test(v))) {
        throw usageError(`Input --${name} of ${where} expects a number, got "${value}"`);
      }
    }
    const isArray = def.type === "array" || el !== undefined;
    if (isArray && name in out) {
      const prev = out[name];
      out[name] = [...(Array.isArray(prev) ? prev : [prev]), value];
    } else if (isArray) {
      out[name] = typeof value === "string" && (fromFile || value.includes("\n")) ? value : [value];
    } else out[name] = value;
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
  provided[name] = await io.readStdin();
}
