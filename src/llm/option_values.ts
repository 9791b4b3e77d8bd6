/**
 * What a call option may send to a provider (R105-6): `AskOptions` takes any
 * key, so a misspelt runtime option (`singal: ac.signal`, `strem: true`)
 * type-checks and would land in the request body. A value that is not JSON
 * data (an `AbortSignal`, a function, a `Map`…) is never sent; a key one
 * typo away from a runtime option's name is told (did you mean).
 *
 * @module
 */
import { editDistance } from "../util/edit_distance.ts";

/**
 * Why a value is not JSON data, or null when it is: strings, finite numbers,
 * booleans, null, `Date`s, and arrays and plain objects of those (an
 * `undefined` member is left out, as `JSON.stringify` does).
 *
 * @param v the value
 * @returns null, or what the value (or the first member that is not JSON) is,
 *   e.g. `AbortSignal`, `function at .f`
 *
 * @example
 * ```ts
 * import { notJsonReason } from "./option_values.ts";
 * notJsonReason({ a: [1, "x", null] }); // null
 * notJsonReason(new AbortController().signal); // "AbortSignal"
 * notJsonReason({ on: () => 1 }); // "function at .on"
 * ```
 */
export function notJsonReason(v: unknown): string | null {
  return reasonAt(v, "", new Set());
}

function reasonAt(v: unknown, at: string, open: Set<object>): string | null {
  const where = (what: string) => at === "" ? what : `${what} at ${at}`;
  if (v === null || typeof v === "string" || typeof v === "boolean") return null;
  if (typeof v === "number") return Number.isFinite(v) ? null : where(String(v));
  if (typeof v !== "object") return where(typeof v);
  if (v instanceof Date) return null;
  const proto = Object.getPrototypeOf(v);
  const plain = proto === Object.prototype || proto === null;
  if (!Array.isArray(v) && !plain) return where(constructorName(v));
  if (open.has(v)) return where("a cycle");
  open.add(v);
  try {
    const entries = Array.isArray(v) ? v.map((x, i) => [`[${i}]`, x] as const) : Object.entries(v)
      .filter(([, x]) => x !== undefined).map(([k, x]) => [`.${k}`, x] as const);
    for (const [k, x] of entries) {
      const why = reasonAt(x, at + k, open);
      if (why !== null) return why;
    }
    return null;
  } finally {
    open.delete(v);
  }
}

function constructorName(v: object): string {
  const name = (v as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === "string" && name !== "" ? name : "an object that is not plain";
}

/** Lower case, `_` and `-` left out: `on_event`, `OnEvent` and `onevent` are one name. */
function folded(name: string): string {
  return name.toLowerCase().replace(/[_-]/g, "");
}

/**
 * The known name `key` is a near miss of: the same name but for case, `_` or
 * `-`, or, for names of 4 letters or more, one edit away (`session_id` is
 * two from `session`: a provider's own parameter, not a typo).
 * Short names (`n`, `env`) are only matched but for case and separators, so
 * provider parameters are not taken for typos.
 *
 * @param key the option name given
 * @param known the names it may be a typo of
 * @returns the name meant, or null (also when `key` is one of them)
 *
 * @example
 * ```ts
 * import { nearName } from "./option_values.ts";
 * const runtime = ["signal", "stream", "onEvent"];
 * [nearName("singal", runtime), nearName("strem", runtime), nearName("on_event", runtime)];
 * // ["signal", "stream", "onEvent"]
 * nearName("store", runtime); // null
 * ```
 */
export function nearName(key: string, known: Iterable<string>): string | null {
  const k = folded(key);
  let best: { name: string; d: number } | null = null;
  for (const name of known) {
    if (name === key) return null;
    const n = folded(name);
    const limit = Math.min(k.length, n.length) < 4 ? 0 : 1;
    const d = k === n ? 0 : Math.abs(k.length - n.length) > limit ? Infinity : editDistance(k, n);
    if (d <= limit && (best === null || d < best.d)) best = { name, d };
  }
  return best?.name ?? null;
}

/** {@link nearName}'s answers by the names asked about, per list of known names. */
const nearAnswers = new WeakMap<object, Map<string, string | null>>();

/** {@link nearName}, answered once per name and list: every ask checks the same few options. */
function knownNear(key: string, known: Iterable<string>): string | null {
  let answers = nearAnswers.get(known);
  if (answers === undefined) nearAnswers.set(known, answers = new Map());
  let near = answers.get(key);
  if (near === undefined) {
    near = nearName(key, known);
    if (answers.size < 1_000) answers.set(key, near);
  }
  return near;
}

/**
 * Why a call option is not sent, or what it may have meant: a value that is
 * not JSON data is dropped (`send: false`) with a warning; a JSON value
 * whose name is a near miss of a runtime option is sent, with a warning.
 *
 * @param key the option's name (neither a runtime option's nor a pipeline key)
 * @param value its value (not null or undefined)
 * @param runtime the runtime option names
 * @returns whether to send it, and the warning (null: none)
 */
export function checkRequestOption(
  key: string,
  value: unknown,
  runtime: Iterable<string>,
): { send: boolean; warning: string | null } {
  const near = knownNear(key, runtime);
  const hint = near === null ? "" : `; did you mean "${near}"?`;
  const why = notJsonReason(value);
  if (why !== null) {
    return {
      send: false,
      warning: `Option "${key}" is not a JSON value (${why}): not sent${hint}`,
    };
  }
  if (near === null) return { send: true, warning: null };
  return {
    send: true,
    warning: `Option "${key}" is not a runtime option: sent to the provider as a request ` +
      `parameter${hint}`,
  };
}
