/**
 * Scout type names (`workflow.md` §1.3): they go into `.info`, drive input
 * coercion, digests, result serialization and tool schemas.
 *
 * @module
 */

/** A Scout type name; `<t>_array` for arrays of `t`. */
export type ScoutType =
  | "string"
  | "text"
  | "integer"
  | "float"
  | "boolean"
  | "array"
  | "select"
  | "path"
  | "file"
  | "folder"
  | "binary"
  | "json"
  | "yaml"
  | "tsv"
  | "chat"
  | `${string}_array`;

/** The base Scout types (everything but `<t>_array`). */
export const SCOUT_TYPES: readonly string[] = [
  "string",
  "text",
  "integer",
  "float",
  "boolean",
  "array",
  "select",
  "path",
  "file",
  "folder",
  "binary",
  "json",
  "yaml",
  "tsv",
  "chat",
];

/**
 * The element type of an `<t>_array` type, or null.
 *
 * @param type a type name
 * @returns `t` for `t_array`, else null
 */
export function arrayElementType(type: string): string | null {
  const m = /^(.+)_array$/.exec(type);
  return m ? m[1]! : null;
}

/**
 * Whether `type` is a known Scout type (base or `<base>_array`).
 *
 * @param type a type name
 * @returns true when known
 */
export function isScoutType(type: string): type is ScoutType {
  const el = arrayElementType(type);
  return SCOUT_TYPES.includes(el ?? type);
}
