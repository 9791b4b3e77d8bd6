/**
 * What fits an input's declared type (`workflow.md` §1.3): the zod schema of
 * each Scout type, a select's options as a list, and a value described for a
 * message. Job creation validates provided values with them (`coerce.ts`),
 * `workflow()` the declared defaults (`define_checks.ts`).
 *
 * @module
 */
import { z, type ZodType } from "zod";
import type { InputSpec } from "./job_types.ts";
import { arrayElementType } from "./types.ts";
import { clipEnd } from "../util/clip.ts";

/**
 * The schema a coerced value of a Scout type satisfies (a `<t>_array`: a
 * list of `t`s; a select: any string — its options are advisory).
 *
 * @param type a Scout type name
 * @returns the schema
 */
export function typeSchema(type: string): ZodType {
  const el = arrayElementType(type);
  if (el !== null) return z.array(typeSchema(el));
  switch (type) {
    case "integer":
      return z.number().int();
    case "float":
      return z.number();
    case "boolean":
      return z.boolean();
    case "array":
      return z.array(z.unknown());
    case "json":
      return z.unknown();
    case "binary":
      return z.union([z.string(), z.instanceof(Uint8Array)]);
    case "select": // options are advisory (§1.3): a value outside them is accepted, with a warning
      return z.string();
    default:
      return z.string();
  }
}

/**
 * The options of a select input as a list.
 *
 * @param def the input
 * @returns its options ([] when none)
 */
export function selectOptionsOf(def: InputSpec): string[] {
  const o = def.selectOptions;
  if (o === undefined) return [];
  return Array.isArray(o) ? [...o] : Object.values(o as Record<string, string>);
}

/**
 * A value as a message names it: a string quoted (cut at 60 characters), a
 * list, bytes or an object by kind, anything else as it prints.
 *
 * @param value any value
 * @returns the text
 */
export function describeValue(value: unknown): string {
  if (typeof value === "string") {
    return JSON.stringify(value.length > 60 ? clipEnd(value, 57, "...") : value);
  }
  if (Array.isArray(value)) return "an array";
  if (value instanceof Uint8Array) return "bytes";
  if (typeof value === "object" && value !== null) return "an object";
  return String(value);
}
