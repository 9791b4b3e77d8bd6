/**
 * Meta records (`provenance.md` §4, `inference.md` §4): the one-line
 * `key=value …` content of `meta:` messages, and provider usage normalisation.
 *
 * @module
 */

/** A parsed meta record: numbers for numeric values, strings otherwise. */
export type MetaRecord = Record<string, string | number>;

export { normalizeUsage, toInt, TOKEN_KEYS } from "./meta_usage.ts";
export type { TokenKey } from "./meta_usage.ts";
export { serializeMeta } from "./meta_serialize.ts";

/**
 * Parses a meta line (`provenance.md` §4.2). Text before the first `key=` is
 * ignored; quoted values are unescaped; whole-string integers and decimals
 * become numbers (integers beyond `Number.MAX_SAFE_INTEGER` stay strings).
 * Never throws; no pairs → `{}`.
 *
 * @param content meta message content
 * @param omit a key to leave out (as if its pair were not there), e.g.
 *   `reas` where a model's reasoning is not wanted: cheaper than copying the
 *   record without it, and its value is never unescaped
 * @returns the record
 *
 * @example
 * ```ts
 * import { parseMeta } from "./meta.ts";
 * parseMeta('pt=100 reas="a=b" ct=3'); // {pt: 100, reas: "a=b", ct: 3}
 * parseMeta('pt=100 reas="a=b" ct=3', "reas"); // {pt: 100, ct: 3}
 * ```
 */
export function parseMeta(content: string, omit?: string): MetaRecord {
  const words = parseWordsMeta(content, omit);
  if (words !== null) return words;
  const all = content.includes('"') ? parseQuotedMeta(content) : parseUnquotedMeta(content);
  if (omit === undefined || !Object.hasOwn(all, omit)) return all;
  const out: MetaRecord = {};
  for (const k in all) if (k !== omit) out[k] = all[k]!;
  return out;
}

/** Keys of the pairs of the last lines parsed, by position (see {@link parseWordsMeta}). */
const recentKeys: string[] = [];

/** Whitespace other than the space character. */
const OTHER_SPACE = /[\t\n\v\f\r]/;

/**
 * {@link parseMeta} for the shape Scout writes, with native searches instead
 * of a loop per character: space-separated `key=value` words (a word's key
 * ends at its first `=`, which is not its first character), then, when the
 * text has quotes, a last part starting with a `key="` word (a model's
 * `reas`, left to the quoted scanner). On such text every value ends at its
 * word's end, exactly as the scanners decide; any other text gives null and
 * goes to them (equal by property test).
 *
 * @param content meta message content
 * @param omit a key to leave out (see {@link parseMeta})
 * @returns the record, or null when the text has another shape
 */
export function parseWordsMeta(content: string, omit?: string): MetaRecord | null {
  if (OTHER_SPACE.test(content)) return null;
  const quote = content.indexOf('"');
  // Where the quoted part starts: the word holding the first quote.
  const end = quote === -1 ? content.length : content.lastIndexOf(" ", quote) + 1;
  if (quote !== -1 && (quote - 1 <= end || content.indexOf("=", end) !== quote - 1)) return null;
  const out: MetaRecord = {};
  let i = 0;
  let pair = 0;
  while (i < end) {
    if (content.charCodeAt(i) === 32) {
      i++;
      continue;
    }
    let wordEnd = content.indexOf(" ", i);
    if (wordEnd === -1) wordEnd = content.length;
    const eq = content.indexOf("=", i);
    if (eq <= i || eq >= wordEnd) return null; // a word without a key of its own
    // Lines repeat their keys in the same order: the key of the previous
    // line's pair at this position, when it matches, spares a substring and
    // its lookup in the engine's table of property names.
    let key = recentKeys[pair];
    if (key === undefined || key.length !== eq - i || !content.startsWith(key, i)) {
      key = recentKeys[pair] = content.slice(i, eq);
    }
    pair++;
    if (key !== omit) out[key] = numericAt(content, eq + 1, wordEnd);
    i = wordEnd;
  }
  return quote === -1 ? out : scanQuoted(content, end, out, omit);
}

/**
 * Does `content[j…]` match the pattern's value boundary
 * `(?=\s+[^\s=]+=|\s*$)`: the end after optional whitespace, or whitespace
 * then a key word and `=`?
 */
function boundaryAt(content: string, j: number): boolean {
  const n = content.length;
  let k = j;
  while (k < n && isAsciiSpace(content.charCodeAt(k))) k++;
  if (k === n) return true;
  if (k === j) return false;
  const keyStart = k;
  for (; k < n; k++) {
    const c = content.charCodeAt(k);
    if (c === 61) return k > keyStart;
    if (isAsciiSpace(c)) return false;
  }
  return false;
}

/** {@link parseMeta} for content with `"`: the spec's pattern as a scanner (equal by property test). */
export function parseQuotedMeta(content: string): MetaRecord {
  return scanQuoted(content, 0, {});
}

/** The quoted scanner from `from` (where a key may start), adding pairs but `omit`'s to `out`. */
function scanQuoted(content: string, from: number, out: MetaRecord, omit?: string): MetaRecord {
  const n = content.length;
  let i = from;
  for (;;) {
    // Next key: the leftmost `[^\s=]+` followed by `=` (after a value, the
    // boundary guarantees it starts right after the whitespace).
    let keyStart = -1;
    let keyEnd = -1;
    for (let runStart = -1; i < n; i++) {
      const c = content.charCodeAt(i);
      if (c === 61) {
        if (runStart !== -1) {
          keyStart = runStart;
          keyEnd = i;
          break;
        }
      } else if (isAsciiSpace(c)) runStart = -1;
      else if (runStart === -1) runStart = i;
    }
    if (keyEnd === -1) return out;
    const start = keyEnd + 1;
    let end = -1;
    if (content.charCodeAt(start) === 34) end = quotedEnd(content, start);
    if (end === -1) {
      end = start;
      while (!boundaryAt(content, end)) end++;
    }
    const key = content.slice(keyStart, keyEnd);
    if (key !== omit) {
      out[key] = numeric(unquote(content.slice(start, end)));
    }
    i = end;
    if (i >= n) return out;
  }
}

/**
 * A value as Ruby's `parse_meta` unwraps it: one that starts and ends with
 * `"` loses both (a lone `"` too, which becomes empty) and `\x` becomes `x`,
 * except before a line feed (Ruby's `/\\(.)/` has no `m`: `.` stops at `\n`).
 */
function unquote(v: string): string {
  if (!v.startsWith('"') || !v.endsWith('"')) return v;
  return v.slice(1, -1).replace(/\\([^\n])/g, "$1");
}

/** End (exclusive) of a quoted value opening at `start`, or -1 when it never closes. */
function quotedEnd(content: string, start: number): number {
  const n = content.length;
  for (let j = start + 1; j < n; j++) {
    const c = content.charCodeAt(j);
    if (c === 92) {
      if (j + 1 >= n) return -1;
      j++;
    } else if (c === 34 && boundaryAt(content, j + 1)) return j + 1;
  }
  return -1;
}

/** {@link parseMeta} for content without `"` (exported for the equivalence property test). */
export function parseUnquotedMeta(content: string): MetaRecord {
  const out: MetaRecord = {};
  const n = content.length;
  let key: string | null = null;
  let valueStart = 0;
  let valueEnd = 0;
  let i = 0;
  while (i < n) {
    while (i < n && isAsciiSpace(content.charCodeAt(i))) i++;
    if (i >= n) break;
    const wordStart = i;
    // Where a key may start: after whitespace once a pair is open (the
    // pattern's lookahead); anywhere before the first pair, i.e. at the first
    // non-empty `=`-free run of the word that an `=` follows.
    let keyStart = -1;
    let keyEnd = -1;
    let segment = wordStart;
    for (; i < n; i++) {
      const c = content.charCodeAt(i);
      if (isAsciiSpace(c)) break;
      if (c !== 61 || keyEnd !== -1) continue;
      if (i > segment && (key === null || segment === wordStart)) {
        keyStart = segment;
        keyEnd = i;
      } else if (key !== null) keyEnd = -2; // a word opening with `=` continues the value
      segment = i + 1;
    }
    if (keyEnd >= 0) {
      if (key !== null) out[key] = numeric(content.slice(valueStart, valueEnd));
      key = content.slice(keyStart, keyEnd);
      valueStart = keyEnd + 1;
    }
    valueEnd = i;
  }
  if (key !== null) out[key] = numeric(content.slice(valueStart, valueEnd));
  return out;
}

function isAsciiSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/**
 * The value `content[from, to)` as a number when it is a whole integer
 * (`-?\d+`, safe) or a decimal (`-?\d+\.\d+`), else as text. One pass over
 * the characters, on positions: a short integer (a token count: most values
 * of a meta line) is never sliced, and a value that stops looking like a
 * number (a UUID, a timestamp) is sliced and returned as soon as it does.
 */
function numericAt(content: string, from: number, to: number): string | number {
  const first = content.charCodeAt(from) === 45 ? from + 1 : from; // after a leading "-"
  let i = first;
  let x = 0;
  for (; i < to; i++) {
    const d = content.charCodeAt(i) - 48;
    if (d < 0 || d > 9) break;
    x = x * 10 + d;
  }
  const text = () => content.slice(from, to);
  if (i === first) return text(); // no digits first: text
  if (i === to) {
    if (to - first <= 15) return first === from ? x : -x; // exact: below 2^53
    const big = Number(text());
    return Number.isSafeInteger(big) ? big : text();
  }
  if (content.charCodeAt(i) !== 46 /* . */ || i + 1 === to) return text();
  for (let j = i + 1; j < to; j++) {
    const d = content.charCodeAt(j) - 48;
    if (d < 0 || d > 9) return text();
  }
  return Number(text());
}

/** {@link numericAt} on a whole string. */
function numeric(v: string): string | number {
  return numericAt(v, 0, v.length);
}
