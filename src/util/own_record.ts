/**
 * Records keyed by names users choose — a workflow's input values, a tool
 * call's arguments — made without a prototype. In a plain `{}` an input
 * called `toString`, `constructor` or `valueOf` that was not given reads as
 * Object.prototype's member, and under Bun (the binary) assigning
 * `__proto__` sets the record's prototype instead of a value. In a record
 * from {@link ownRecord} every name is a key like any other: absent until
 * set, and `__proto__` a value.
 *
 * @module
 */

/**
 * A record without a prototype holding the own enumerable string keys of
 * `sources`, later sources over earlier ones (as `{...a, ...b}` would).
 *
 * @param sources records to copy, in order (undefined and null skipped)
 * @returns a new record whose only keys are its own
 *
 * @example
 * ```ts
 * import { ownRecord } from "./own_record.ts";
 * const r = ownRecord<unknown>({ a: 1 }, { b: 2 });
 * r.toString; // undefined
 * r["__proto__"] = "x";
 * Object.keys(r); // ["a", "b", "__proto__"]
 * ```
 */
export function ownRecord<T = unknown>(
  ...sources: (Readonly<Record<string, T>> | undefined | null)[]
): Record<string, T> {
  const out = Object.create(null) as Record<string, T>;
  for (const s of sources) {
    if (s === undefined || s === null) continue;
    for (const [k, v] of Object.entries(s)) out[k] = v;
  }
  return out;
}

/**
 * Sets `key` of `record` as its own data property, whatever the key: in a
 * plain record `record[key] = value` with `key` `__proto__` calls
 * Object.prototype's setter under Bun (the binary) and sets no key — the
 * value is lost, or made the record's prototype. For records that stay
 * plain (`{}`), as users and tests see them, built key by key.
 *
 * @param record the record (changed)
 * @param key the key, named by a user, a chat or a model
 * @param value its value
 *
 * @example
 * ```ts
 * import { setOwn } from "./own_record.ts";
 * const r: Record<string, unknown> = {};
 * setOwn(r, "__proto__", "x");
 * Object.keys(r); // ["__proto__"]
 * ```
 */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}
