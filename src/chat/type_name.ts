/**
 * What a JSON-ish value is, in words, for messages about input of the wrong
 * shape ("agent_meta is an object, not an array").
 *
 * @module
 */

/**
 * The kind of `v` with its article: `"an object"`, `"an array"`, `"a string"`,
 * `"a number"`…; `null` and `undefined` bare (`"null"`, `"undefined"`).
 *
 * @param v any value
 * @returns its kind, as words that fit "is …" and "has … content"
 *
 * @example
 * ```ts
 * import { typeName } from "./type_name.ts";
 * typeName({}); // "an object"
 * typeName("x"); // "a string"
 * ```
 */
export function typeName(v: unknown): string {
  if (v === null || v === undefined) return String(v);
  if (Array.isArray(v)) return "an array";
  const t = typeof v;
  return t === "object" ? "an object" : `a ${t}`;
}
