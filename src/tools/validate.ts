/**
 * A light argument check against a tool's JSON Schema: the arguments are an
 * object, required properties are present, and top-level values have the
 * declared type and are among `enum` values. Enough to turn a model's obvious
 * mistakes into an error output it can correct (the loop continues); tools
 * defined with zod validate fully (see `define.ts`).
 *
 * @module
 */
import type { JsonSchema } from "./types.ts";
import { clipEnd } from "../util/clip.ts";

function typeOk(v: unknown, type: string): boolean {
  switch (type) {
    case "string":
      return typeof v === "string";
    case "integer": // numeric strings are tolerated: the implementation coerces them
      return (typeof v === "number" && Number.isInteger(v)) ||
        (typeof v === "string" && /^\s*[+-]?\d+\s*$/.test(v));
    case "number":
      return (typeof v === "number" && Number.isFinite(v)) ||
        (typeof v === "string" && /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(v));
    case "boolean":
      return typeof v === "boolean" || v === "true" || v === "false";
    case "array":
      return Array.isArray(v);
    case "object":
      return typeof v === "object" && v !== null && !Array.isArray(v);
    case "null":
      return v === null;
    default:
      return true; // unknown type names are not ours to reject
  }
}

/** At most this many characters of a value given are shown in a problem. */
const SHOWN_CHARS = 80;

/** A value given, as JSON, cut to {@link SHOWN_CHARS}. */
function shown(v: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(v) ?? String(v);
  } catch {
    text = String(v);
  }
  return clipEnd(text, SHOWN_CHARS);
}

/**
 * Checks arguments against a schema's top level.
 *
 * @param args the arguments (after pinned values are merged)
 * @param schema the tool's `parameters`
 * @returns problems, empty when acceptable
 *
 * @example
 * ```ts
 * import { checkArguments } from "./validate.ts";
 * checkArguments({ n: "x" }, { type: "object", properties: { n: { type: "integer" } }, required: ["n"] });
 * // ['"n" must be integer, got string "x"']
 * ```
 */
export function checkArguments(args: unknown, schema: JsonSchema | undefined): string[] {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return [`Arguments must be a JSON object, got ${Array.isArray(args) ? "array" : typeof args}`];
  }
  if (!schema) return [];
  // own arguments only: one called `toString` is missing unless the model sent it (R112-5)
  const arg = (name: string) =>
    Object.hasOwn(args, name) ? (args as Record<string, unknown>)[name] : undefined;
  const problems: string[] = [];
  for (const name of schema.required ?? []) {
    if (arg(name) === undefined) problems.push(`Missing required argument "${name}"`);
  }
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const v = arg(name);
    if (v === undefined || v === null || typeof prop !== "object" || prop === null) continue;
    const types = prop.type === undefined ? [] : Array.isArray(prop.type) ? prop.type : [prop.type];
    if (types.length && !types.some((t) => typeOk(v, t))) {
      const got = Array.isArray(v) ? "array" : typeof v;
      problems.push(`"${name}" must be ${types.join(" or ")}, got ${got} ${shown(v)}`);
      continue;
    }
    if (Array.isArray(prop.enum) && !prop.enum.includes(v)) {
      problems.push(`"${name}" must be one of ${JSON.stringify(prop.enum)}, got ${shown(v)}`);
    }
  }
  return problems;
}

/**
 * The error text of a tool call whose arguments do not fit its schema
 * ({@link checkArguments}), or null when they do: one check for a model's
 * tool call and a call over `workflow mcp` (R126-5).
 *
 * @param tool the tool's name
 * @param args the arguments
 * @param schema the tool's `parameters` (what it advertises)
 * @returns `Invalid arguments for '<tool>': <problems>`, or null
 *
 * @example
 * ```ts
 * import { argumentsError } from "./validate.ts";
 * argumentsError("t", { n: "x" }, { type: "object", properties: { n: { type: "integer" } } });
 * // `Invalid arguments for 't': "n" must be integer, got string "x"`
 * ```
 */
export function argumentsError(
  tool: string,
  args: unknown,
  schema: JsonSchema | undefined,
): string | null {
  return problemsError(tool, checkArguments(args, schema));
}

/**
 * The error text of a tool call's argument problems, or null when none.
 *
 * @param tool the tool's name
 * @param problems what is wrong with its arguments
 * @returns `Invalid arguments for '<tool>': <problems>`, or null
 */
export function problemsError(tool: string, problems: readonly string[]): string | null {
  return problems.length ? `Invalid arguments for '${tool}': ${problems.join("; ")}` : null;
}
