/**
 * `key=value` option strings (`chat.md` §9.1–9.2): the inputs of `task:`
 * messages and the options of `association:`, parsed with the Ruby
 * `IndiferentHash.parse_options` conversions and printed back.
 *
 * @module
 */
import { setOwn } from "../util/own_record.ts";
import { rubyStrip, WORD } from "./text.ts";

/** A parsed option value. */
export type OptionValue = string | number | boolean | RegExp | string[];

/**
 * Key = word characters; value = quoted segments and runs of non-space,
 * non-quote characters ([DIVERGE D20]: Ruby stops at the first quote after
 * unquoted text, losing `"and three"` in `list=one,two,"and three"`).
 */
const PAIR = new RegExp(String.raw`(${WORD}+)=((?:"[^"]*"|[^" \t\n\v\f\r])*)`, "gu");

/**
 * Parses `key=value` pairs out of free text (`chat.md` §9.1). Text that is not
 * a pair is ignored. Values: a comma (outside quotes) makes a list of the
 * trimmed, unquoted parts, unconverted (a fully quoted `"a,b"` is split too,
 * as in Ruby); otherwise, after dropping surrounding `"`: empty → `true`,
 * `:x` → `"x"`, `/re/` → RegExp, `'x'` → `x`, digits → integer,
 * `\d*\.\d+` → float, `true`/`false` → boolean, else the string.
 * [DIVERGE D20]: quoted list elements are kept, and `x=""` is `""`, not `true`.
 *
 * @param text option text, e.g. the inputs part of a `task:` message
 * @returns the options, in order of appearance (last duplicate wins)
 *
 * @example
 * ```ts
 * import { parseOptions } from "./option_text.ts";
 * parseOptions('n=3 name="a b" tags=x,y on'); // { n: 3, name: "a b", tags: ["x", "y"] }
 * ```
 */
export function parseOptions(text: string): Record<string, OptionValue> {
  const out: Record<string, OptionValue> = {};
  PAIR.lastIndex = 0;
  for (let m = PAIR.exec(text); m !== null; m = PAIR.exec(text)) {
    // defined, not assigned: under Bun `__proto__=x` set no key (R112-5 follow-up)
    setOwn(out, m[1]!, optionValue(rubyStrip(m[2]!)));
  }
  return out;
}

function optionValue(raw: string): OptionValue {
  const parts = splitOutsideQuotes(raw);
  if (parts.length > 1) return listOf(parts);
  const quoted = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"');
  const v = quoted ? raw.slice(1, -1) : raw;
  if (quoted && v.includes(",")) return listOf(v.split(","));
  if (v === "") return quoted ? "" : true;
  if (v.startsWith(":")) return v.slice(1);
  if (v.length >= 1 && v.startsWith("/") && v.endsWith("/")) return regexp(v.slice(1, -1)) ?? v;
  if (/^['"][^\n]*['"]$/.test(v)) return v.slice(1, -1);
  if (/^\d+$/.test(v)) return Number.parseInt(v, 10);
  if (/^\d*\.\d+$/.test(v)) return Number.parseFloat(v);
  if (v === "true") return true;
  if (v === "false") return false;
  return v;
}

function regexp(source: string): RegExp | null {
  try {
    return new RegExp(source);
  } catch {
    return null; // not a valid pattern: keep the text
  }
}

/** Ruby `split(",")` drops trailing empty parts; each part is trimmed and unquoted. */
function listOf(parts: string[]): string[] {
  const list = parts.map((p) => {
    const t = rubyStrip(p);
    return t.length >= 2 && t.startsWith('"') && t.endsWith('"') ? t.slice(1, -1) : t;
  });
  while (list.length > 0 && list[list.length - 1] === "") list.pop();
  return list;
}

function splitOutsideQuotes(s: string): string[] {
  if (!s.includes(",")) return [s];
  const parts: string[] = [];
  let inQuote = false;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '"') inQuote = !inQuote;
    else if (c === "," && !inQuote) {
      parts.push(s.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(s.slice(start));
  return parts;
}

/**
 * Prints options as `key=value` pairs joined by spaces (`chat.md` §9.2):
 * arrays comma-joined; empty or space-containing scalars and elements wrapped
 * in `"` (no escaping); RegExps as `/source/`; null/undefined as `""`.
 *
 * @param options the options
 * @returns the option text
 *
 * @example
 * ```ts
 * import { printOptions } from "./option_text.ts";
 * printOptions({ n: 3, name: "a b", tags: ["x", "y"] }); // 'n=3 name="a b" tags=x,y'
 * ```
 */
export function printOptions(options: Readonly<Record<string, unknown>>): string {
  return Object.entries(options).map(([k, v]) =>
    `${k}=${Array.isArray(v) ? v.map(scalarText).join(",") : scalarText(v)}`
  ).join(" ");
}

function scalarText(v: unknown): string {
  let s: string;
  if (v === null || v === undefined) s = "";
  else if (v instanceof RegExp) s = `/${v.source}/`;
  else if (typeof v === "object") s = JSON.stringify(v);
  else s = String(v);
  return s === "" || /\s/.test(s) ? `"${s}"` : s;
}
