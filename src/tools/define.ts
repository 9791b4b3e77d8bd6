/**
 * Function tools defined with a zod schema: the schema becomes the tool's
 * JSON Schema (`z.toJSONSchema(schema, { io: "input" })`) and validates the
 * model's arguments before the function runs (invalid arguments become an
 * error output the model can read, and the tool loop continues).
 *
 * @module
 */
import { z } from "zod";
import type { ToolCallContext, ToolEntry, ToolParameters } from "./types.ts";

/**
 * A zod schema as seen by this module (structural, so any zod v4 schema fits
 * without the public API exposing zod's own types).
 */
export interface ToolSchema<T = unknown> {
  /** Validates a value. */
  safeParse(value: unknown):
    | { success: true; data: T }
    | {
      success: false;
      error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> };
    };
}

/** What {@link defineTool} takes. */
export interface DefineToolOptions<T> {
  /** Tool name. */
  name: string;
  /** What it does. */
  description?: string;
  /** Arguments schema: a zod schema, usually `z.object({...})`. */
  schema: ToolSchema<T>;
  /** The implementation, given validated (and defaulted) arguments. */
  run: (args: T, ctx: ToolCallContext) => unknown;
}

/**
 * Converts a zod schema to tool parameters (draft 2020-12 JSON Schema without
 * the `$schema` marker; safe-integer bounds zod adds to `int()` are removed).
 *
 * @param schema zod schema
 * @returns JSON Schema for the tool's `parameters`
 */
export function zodParameters(schema: ToolSchema): ToolParameters {
  const json = z.toJSONSchema(schema as unknown as z.ZodType, { io: "input" }) as Record<
    string,
    unknown
  >;
  delete json.$schema;
  return stripIntBounds(json) as ToolParameters;
}

function stripIntBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripIntBounds);
  if (typeof node !== "object" || node === null) return node;
  // own keys whatever their names: a parameter named `__proto__` assigned into a `{}`
  // would hit Bun's setter and vanish from `properties` while `required` names it (R116-4)
  const o: Record<string, unknown> = Object.fromEntries(
    Object.entries(node).map(([k, v]) => [k, stripIntBounds(v)]),
  );
  if (o.type === "integer") {
    if (o.minimum === Number.MIN_SAFE_INTEGER) delete o.minimum;
    if (o.maximum === Number.MAX_SAFE_INTEGER) delete o.maximum;
  }
  return o;
}

/**
 * Defines a function tool from a zod schema.
 *
 * @param opts name, description, schema and implementation
 * @returns a registry entry (definition, implementation, validator)
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { defineTool } from "./define.ts";
 * const weather = defineTool({
 *   name: "weather",
 *   description: "Current weather",
 *   schema: z.object({ city: z.string() }),
 *   run: ({ city }) => `Sunny in ${city}`,
 * });
 * weather.definition; // {type:"function", function:{name:"weather", …}}
 * ```
 */
export function defineTool<T>(opts: DefineToolOptions<T>): ToolEntry {
  const parameters = zodParameters(opts.schema);
  return {
    definition: {
      type: "function",
      function: { name: opts.name, description: opts.description ?? "", parameters },
    },
    validate: (args) => {
      const r = opts.schema.safeParse(args);
      return r.success
        ? []
        : r.error.issues.map((i) =>
          `${i.path.length ? i.path.map(String).join(".") + ": " : ""}${i.message}`
        );
    },
    impl: (_name, args, ctx) => {
      const r = opts.schema.safeParse(args);
      if (!r.success) throw new Error(r.error.issues.map((i) => i.message).join("; "));
      return opts.run(r.data, ctx);
    },
  };
}
