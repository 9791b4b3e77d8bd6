/**
 * Building tool registries (`inference.md` §2.3 step 1): accepts the shapes
 * callers pass as `tools` — a registry map, `{name: [impl, definition]}`,
 * `{name: definition}`, `{name: ToolEntry}` or an array of definitions — and
 * normalises definitions to the internal `{type:"function", function:{…}}`
 * shape. Formatting for a provider never mutates these (§5.3).
 *
 * @module
 */
import { ScoutError } from "../errors.ts";
import type {
  FunctionToolDefinition,
  ToolDefinition,
  ToolEntry,
  ToolFunction,
  ToolRegistry,
} from "./types.ts";

/** Tool inputs accepted by {@link toolRegistry}. */
export type ToolsInput =
  | ToolRegistry
  | ReadonlyArray<ToolDefinition | ToolEntry>
  | Record<
    string,
    ToolEntry | ToolDefinition | readonly [ToolFunction | null | undefined, unknown]
  >;

function isEntry(v: unknown): v is ToolEntry {
  return typeof v === "object" && v !== null && "definition" in v;
}

/**
 * Normalises a definition: the flat Responses shape `{type:"function", name,
 * description, parameters}` and the bare `{name, description, parameters}`
 * become `{type:"function", function:{…}}`; hosted tools pass unchanged.
 *
 * @param def a definition in any accepted shape
 * @returns the internal shape (a new object; the input is not changed)
 * @throws ScoutError `invalid_input` for something that is not a definition
 */
export function normalizeDefinition(def: unknown): ToolDefinition {
  if (typeof def !== "object" || def === null || Array.isArray(def)) {
    throw new ScoutError("invalid_input", `Not a tool definition: ${JSON.stringify(def)}`);
  }
  const d = def as Record<string, unknown>;
  if (d.type === "function" && typeof d.function === "object" && d.function !== null) {
    return {
      type: "function",
      function: { ...(d.function as FunctionToolDefinition["function"]) },
    };
  }
  if (typeof d.name === "string" && (d.type === undefined || d.type === "function")) {
    const { type: _t, ...rest } = d;
    return { type: "function", function: rest as unknown as FunctionToolDefinition["function"] };
  }
  if (typeof d.type === "string") return { ...d } as ToolDefinition;
  throw new ScoutError("invalid_input", `Not a tool definition: ${JSON.stringify(def)}`);
}

/**
 * The name a definition is registered under: `function.name`, else `name`,
 * else `type` (hosted tools such as `web_search_preview`).
 *
 * @param def a normalised definition
 * @returns the name
 */
export function definitionName(def: ToolDefinition): string {
  if (def.type === "function") {
    const f = (def as FunctionToolDefinition).function;
    if (f && typeof f.name === "string") return f.name;
  }
  if (typeof (def as Record<string, unknown>).name === "string") {
    return (def as Record<string, unknown>).name as string;
  }
  return def.type;
}

/**
 * Whether a definition is a function tool (vs a hosted one).
 *
 * @param def definition
 * @returns true for `{type:"function", function}`
 */
export function isFunctionDefinition(def: ToolDefinition): def is FunctionToolDefinition {
  return def.type === "function" &&
    typeof (def as FunctionToolDefinition).function === "object";
}

/**
 * Builds a registry from any accepted tools input (later names win).
 *
 * @param tools tools input (undefined → empty)
 * @returns a new registry
 *
 * @example
 * ```ts
 * import { toolRegistry } from "./registry.ts";
 * const reg = toolRegistry({
 *   add: [(_n, a) => Number(a.x) + Number(a.y), { name: "add", parameters: { type: "object" } }],
 * });
 * reg.get("add")?.definition; // {type: "function", function: {name: "add", …}}
 * ```
 */
export function toolRegistry(tools?: ToolsInput | null): ToolRegistry {
  const reg: ToolRegistry = new Map();
  if (tools === undefined || tools === null) return reg;
  if (tools instanceof Map) {
    for (const [name, entry] of tools) reg.set(name, { ...entry });
    return reg;
  }
  if (Array.isArray(tools)) {
    for (const item of tools) {
      const entry: ToolEntry = isEntry(item)
        ? { ...item, definition: normalizeDefinition(item.definition) }
        : { definition: normalizeDefinition(item) };
      reg.set(definitionName(entry.definition), entry);
    }
    return reg;
  }
  for (const [name, value] of Object.entries(tools)) {
    let entry: ToolEntry;
    if (Array.isArray(value)) {
      const [impl, def] = value as readonly [ToolFunction | null | undefined, unknown];
      const definition = normalizeDefinition(def ?? { name });
      entry = impl ? { impl, definition } : { definition };
    } else if (isEntry(value)) {
      entry = { ...value, definition: normalizeDefinition(value.definition) };
    } else {
      entry = { definition: normalizeDefinition(value) };
    }
    reg.set(name, entry);
  }
  return reg;
}

/**
 * Merges registries left to right (later names win) into a new one.
 *
 * @param registries registries to merge
 * @returns the merged registry
 */
export function mergeRegistries(...registries: ToolRegistry[]): ToolRegistry {
  const out: ToolRegistry = new Map();
  for (const r of registries) for (const [k, v] of r) out.set(k, v);
  return out;
}

/**
 * The definitions to send to a provider, in registry order, with pinned
 * `parameters.defaults` stripped (copies; the registry is untouched).
 *
 * @param reg the registry
 * @returns provider-bound definitions
 */
export function providerDefinitions(reg: ToolRegistry): ToolDefinition[] {
  const out: ToolDefinition[] = [];
  for (const { definition } of reg.values()) {
    if (!isFunctionDefinition(definition)) {
      out.push({ ...definition });
      continue;
    }
    const fn = { ...definition.function };
    if (fn.parameters && "defaults" in fn.parameters) {
      const { defaults: _d, ...params } = fn.parameters;
      fn.parameters = params;
    }
    out.push({ type: "function", function: fn });
  }
  return out;
}
