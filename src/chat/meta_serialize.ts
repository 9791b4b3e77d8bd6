/**
 * Meta record serialisation (`provenance.md` §4.1), re-exported by `meta.ts`.
 *
 * @module
 */

/**
 * Serializes a meta record to one line (`provenance.md` §4.1): keys in stable
 * order of value length (non-strings count 0); values containing `=`, `"`,
 * `\`, or leading/trailing whitespace are quoted with `\`/`"` escaped; CR/LF
 * become spaces; null/undefined become empty.
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
  const entries = Object.entries(meta).map(([k, v], i) => ({
    k,
    v,
    i,
    len: typeof v === "string" ? codePointLength(v) : 0,
  }));
  entries.sort((a, b) => a.len - b.len || a.i - b.i);
  return entries.map(({ k, v }) => `${k}=${metaValue(v)}`).join(" ");
}

function metaValue(v: unknown): string {
  if (v === null || v === undefined) return "";
  let s = typeof v === "string" ? v : typeof v === "object" ? JSON.stringify(v) : String(v);
  s = s.replace(/\r\n|\r|\n/g, " ");
  if (/[="\\]/.test(s) || /^[ \t\v\f]|[ \t\v\f]$/.test(s)) {
    return `"${s.replace(/[\\"]/g, (c) => "\\" + c)}"`;
  }
  return s;
}

function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
}
