/**
 * Canonical JSON: object keys sorted at every level, so two values that differ
 * only in key order give the same text. The inference cache's keys
 * (`llm/cache_key.ts`) and the repeated-call keys of the context strategies
 * (`prompt/tool_messages.ts`) are built on it.
 *
 * @module
 */

import { ownRecord } from "./own_record.ts";

/**
 * JSON with object keys sorted at every level (arrays keep their order);
 * `undefined` and function members are dropped and a Date is its ISO text,
 * as `JSON.stringify` does. A value JSON cannot write at all (`undefined`,
 * a function, a symbol) is `"null"`, as it would be in an array.
 *
 * @param v any JSON-able value
 * @returns canonical JSON text
 *
 * @example
 * ```ts
 * import { canonicalJson } from "./canonical_json.ts";
 * canonicalJson({ b: 1, a: [{ d: 1, c: 2 }] }); // '{"a":[{"c":2,"d":1}],"b":1}'
 * ```
 */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(sortKeys(v)) ?? "null";
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (typeof v !== "object" || v === null) return v;
  if (v instanceof Date) return v.toJSON(); // its ISO text (null when invalid), as JSON writes it
  // no prototype: a `__proto__` key (a model's argument) is written, under Bun too, never
  // set as the copy's prototype and dropped (two values differing there had one key)
  const out = ownRecord();
  for (const k of Object.keys(v).sort()) {
    const x = (v as Record<string, unknown>)[k];
    if (x !== undefined && typeof x !== "function") out[k] = sortKeys(x);
  }
  return out;
}
