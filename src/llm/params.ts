/**
 * Pipeline keys vs provider parameters (`inference.md` §2.4) and the
 * `format` / `reasoning_*` / `text_*` conversions (§2.5). Pure.
 *
 * @module
 */
import { setOwn } from "../util/own_record.ts";

/** Option keys consumed by the pipeline: never sent to a provider. */
export const PIPELINE_KEYS: ReadonlySet<string> = new Set([
  "endpoint",
  "persist",
  "agent",
  "backend",
  "current_meta",
  "return_messages",
  "log_response",
  "relay",
  "process",
  "prompt_strategies",
  "websearch",
  "client",
  "url",
  "key",
  "api_version",
  "tag",
  "default_model",
  "log_errors",
  "request_timeout",
  "format",
  "tools",
  "previous_response",
  "previous_response_id",
  "messages",
  "max_tool_rounds",
  "max_reply_tool_calls",
  "timeout",
  "max_retries",
  "max_retry_after",
  "model",
  "reasoning",
  "reasoning_options",
  "text",
  "text_options",
  "stream",
  "max_content_length",
  "tool_concurrency",
  "provider",
  // Bedrock's settings (credentials never reach a request body)
  "region",
  "access_key",
  "secret_key",
  "session_token",
  "aws_profile",
  "bedrock_api",
  // the relay's queue (`server`: ssh host or directory) and its ssh command
  "server",
  "ssh_command",
]);

/**
 * Turns a value written in a chat (`option: temperature 0.2`) into the JSON
 * type a provider expects: integers, decimals, `true`/`false`, `null`, and
 * JSON objects/arrays; anything else stays a string. Non-strings pass through.
 *
 * @param v the raw value
 * @returns the typed value
 */
export function typedValue(v: unknown): unknown {
  if (typeof v !== "string") return v;
  const s = v.trim();
  if (/^-?\d+$/.test(s)) {
    const n = Number(s);
    return Number.isSafeInteger(n) ? n : v;
  }
  if (/^-?\d*\.\d+([eE][+-]?\d+)?$|^-?\d+[eE][+-]?\d+$/.test(s)) return Number(s);
  if (s === "true") return true;
  if (s === "false") return false;
  if (s === "null") return null;
  if ((s.startsWith("{") && s.endsWith("}")) || (s.startsWith("[") && s.endsWith("]"))) {
    try {
      return JSON.parse(s);
    } catch { /* not JSON: keep the text */ }
  }
  return v;
}

function mapValue(v: unknown): Record<string, unknown> | undefined {
  const t = typedValue(v);
  return typeof t === "object" && t !== null && !Array.isArray(t)
    ? t as Record<string, unknown>
    : undefined;
}

/**
 * Collects `<prefix>_<x>` options into a map (§2.5): start from
 * `<prefix>_options`, add each `<prefix>_<x>`, and let an explicit `<prefix>`
 * map replace the result. The prefix is anchored ([TS-FIX]: Ruby also matches
 * `max_reasoning_tokens`); `reasoning: "high"` means `{effort: "high"}`.
 *
 * @param opts options
 * @param prefix `reasoning` or `text`
 * @returns the map, or undefined when nothing was given
 */
export function prefixedMap(
  opts: Record<string, unknown>,
  prefix: "reasoning" | "text",
): Record<string, unknown> | undefined {
  let out: Record<string, unknown> | undefined = mapValue(opts[`${prefix}_options`]);
  for (const [k, v] of Object.entries(opts)) {
    if (!k.startsWith(prefix + "_") || k === `${prefix}_options`) continue;
    setOwn(out ??= {}, k.slice(prefix.length + 1), typedValue(v));
  }
  const explicit = opts[prefix];
  if (explicit !== undefined && explicit !== null) {
    const m = mapValue(explicit);
    if (m) out = m;
    else if (prefix === "reasoning" && typeof explicit === "string") out = { effort: explicit };
  }
  return out;
}

function shorthandProperty(v: unknown): unknown {
  if (typeof v === "string") return { type: v };
  if (Array.isArray(v)) {
    const [type, description, def] = v;
    const p: Record<string, unknown> = { type };
    if (description !== undefined) p.description = description;
    if (def !== undefined) p.default = def;
    return p;
  }
  return v;
}

/**
 * Converts a `format` option to a Responses `text` map (§2.5): `json` /
 * `json_object` → `{format:{type:"json_object"}}`; another string `s` →
 * `{format:{type:s}}`; a map with `format` → as is; a map with
 * `type:"json_schema"` → `{format: map}`; any other map is a shorthand schema.
 *
 * @param format the option value (a JSON string is parsed first)
 * @returns the `text` map
 *
 * @example
 * ```ts
 * import { formatToText } from "./params.ts";
 * formatToText({ name: "person", age: ["integer", "Age", 0], who: "string" });
 * // {format:{name:"person", type:"json_schema", schema:{type:"object",
 * //   properties:{age:{type:"integer",description:"Age",default:0}, who:{type:"string"}},
 * //   required:["age","who"], additionalProperties:false}}}
 * ```
 */
export function formatToText(format: unknown): Record<string, unknown> {
  const f = typeof format === "string" ? typedValue(format) : format;
  if (typeof f === "string") {
    const s = f.trim();
    if (s === "json" || s === "json_object") return { format: { type: "json_object" } };
    return { format: { type: s } };
  }
  if (typeof f !== "object" || f === null || Array.isArray(f)) {
    return { format: { type: "json_object" } };
  }
  const map = { ...(f as Record<string, unknown>) };
  if ("format" in map) return map;
  if (map.type === "json_schema") return { format: map };
  const name = typeof map.name === "string" ? map.name : "response";
  delete map.name;
  let schema: Record<string, unknown>;
  if ("properties" in map) schema = map;
  else schema = { properties: map };
  const props: Record<string, unknown> = {};
  for (const [k, v] of Object.entries((schema.properties ?? {}) as Record<string, unknown>)) {
    setOwn(props, k, shorthandProperty(v)); // a field `__proto__` is one, under Bun too
  }
  const required = Object.entries(props)
    .filter(([, p]) =>
      !(typeof p === "object" && p !== null && (p as Record<string, unknown>).default)
    )
    .map(([k]) => k);
  const out: Record<string, unknown> = {
    ...schema,
    type: (schema.type as string | undefined) ?? "object",
    properties: props,
  };
  if (!("required" in schema)) out.required = required;
  if (!("additionalProperties" in schema)) {
    out.additionalProperties = (out.required as unknown[]).length ? false : { type: "string" };
  }
  return { format: { name, type: "json_schema", schema: out } };
}

/** Request parameters split into what providers get and the shaped maps. */
export interface ProviderParams {
  /** Parameters sent as is (typed). */
  params: Record<string, unknown>;
  /** Responses-style `reasoning`. */
  reasoning?: Record<string, unknown>;
  /** Responses-style `text` (from `text_*` or `format`). */
  text?: Record<string, unknown>;
}

/**
 * Splits options into provider parameters (§2.4) and the reasoning/text maps.
 *
 * @param opts merged options (after the pipeline took its keys)
 * @returns params and maps
 */
export function providerParams(opts: Record<string, unknown>): ProviderParams {
  const params: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(opts)) {
    if (PIPELINE_KEYS.has(k) || k.startsWith("reasoning_") || k.startsWith("text_")) continue;
    if (v === undefined) continue;
    setOwn(params, k, typedValue(v)); // an option `__proto__` is sent as any, under Bun too
  }
  const out: ProviderParams = { params };
  const reasoning = prefixedMap(opts, "reasoning");
  if (reasoning) out.reasoning = reasoning;
  let text = prefixedMap(opts, "text");
  if (opts.format !== undefined && opts.format !== null && opts.format !== "") {
    text = formatToText(opts.format);
  }
  if (text) out.text = text;
  return out;
}
