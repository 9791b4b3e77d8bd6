/**
 * Meta record serialisation (`provenance.md` §4.1), re-exported by `meta.ts`.
 *
 * @module
 */
import { codePointLength } from "../util/code_points.ts";
import { jsonText } from "../util/json_text.ts";

/**
 * Serializes a meta record to one line (`provenance.md` §4.1): keys in stable
 * order of value length (non-strings count 0); values containing `=`, `"`,
 * `\`, or leading/trailing whitespace are quoted with `\`/`"` escaped; CR/LF
 * become spaces; null/undefined become empty; an object is its JSON, a lone
 * surrogate in it U+FFFD as in a string value once written (R162-1).
 *
 * @param meta the record
 * @returns the meta line
 *
 * @example
 * ```ts
 * import { serializeMeta } from "./meta_serialize.ts";
 * serializeMeta({ reas: "a=b", pt: 1 }); // 'pt=1 reas="a=b"'
 * ```
 */
export function serializeMeta(meta: Record<string, unknown>): string {
  const keys = Object.keys(meta);
  const lens: number[] = new Array(keys.length);
  const order: number[] = new Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const v = meta[keys[i]!];
    lens[i] = typeof v === "string" ? codePointLength(v) : 0;
    order[i] = i;
  }
  order.sort((a, b) => lens[a]! - lens[b]! || a - b);
  let out = "";
  for (let j = 0; j < order.length; j++) {
    const k = keys[order[j]!]!;
    out += `${j === 0 ? "" : " "}${k}=${metaValue(meta[k])}`;
  }
  return out;
}

/** What a value's text needs work for: line breaks, quoting characters, edge whitespace. */
const NEEDS_WORK = /[\r\n="\\]|^[ \t\v\f]|[ \t\v\f]$/;

function metaValue(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "number") return String(v); // digits, ".", "-", "e", "+", Infinity, NaN
  let s = typeof v === "string" ? v : typeof v === "object" ? jsonText(v) : String(v);
  if (typeof s === "string" && !NEEDS_WORK.test(s)) return s; // most values: as they are
  s = s.replace(/\r\n|\r|\n/g, " ");
  if (/[="\\]/.test(s) || /^[ \t\v\f]|[ \t\v\f]$/.test(s)) {
    return `"${s.replace(/[\\"]/g, (c) => "\\" + c)}"`;
  }
  return s;
}
