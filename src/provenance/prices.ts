/**
 * Model prices for `llm prov` costs: `$SCOUT_HOME/etc/prices.yaml`, dollars
 * per million tokens per model (no built-in list is shipped: prices change).
 *
 * ```yaml
 * gpt-5-nano:
 *   input: 0.05          # uncached prompt tokens
 *   cached_input: 0.005  # cache reads (cct); default: input
 *   cache_write: 0.0625  # cache writes (cwt); default: input
 *   output: 0.40         # completion tokens
 *   reasoning: 0.40      # reasoning tokens (rt, part of ct); default: output
 * claude-sonnet-4-5:     # also prices claude-sonnet-4-5-20250929 (a date after the name)
 *   input: 3
 *   output: 15
 * ```
 *
 * Cached tokens are priced from `cct`/`cwt`: OpenAI-style usage counts them
 * inside `pt`, Anthropic/Bedrock usage outside it (the meta record's
 * `backend=` says which; for older records without it, `cct + cwt > pt`
 * means outside).
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TokenTotals } from "../chat/trace.ts";
import { ScoutError } from "../errors.ts";
import { nearNames } from "../util/edit_distance.ts";
import { danglingLinkError } from "../util/fs.ts";
import type { RubyYamlWithLines } from "../util/ruby_yaml.ts";
import { yamlErrorParts } from "../util/yaml_error.ts";
import { escapeLine } from "../util/one_line.ts";

/** Prices of one model, dollars per million tokens. */
export interface ModelPrice {
  /** Uncached input tokens. */
  input: number;
  /** Cache reads (`cct`); default: `input`. */
  cached_input?: number;
  /** Cache writes (`cwt`); default: `input`. */
  cache_write?: number;
  /** Output tokens. */
  output: number;
  /** Reasoning tokens (`rt`, part of `ct`); default: `output`. */
  reasoning?: number;
}

/** Model name (or prefix) → price. */
export type PriceTable = Record<string, ModelPrice>;

const BACKENDS_WITH_CACHE_OUTSIDE_PT = new Set(["anthropic", "bedrock"]);

/**
 * The highest price taken, dollars per million tokens (a dollar a token):
 * any more is a typo (`1e308` made every cost `$Infinity`, R142-7).
 */
export const MAX_PRICE = 1_000_000;

/** Where a price entry is: the file, the entry's key path and how to find a key's line. */
interface EntryPlace {
  file: string;
  at: string[];
  model: string;
  lineOf?: PriceLines | undefined;
}

/** The file and, when known, the line of `path` inside the entry (its own line for none). */
function placeOf(p: EntryPlace, ...path: string[]): { file: string; line?: number } {
  const line = p.lineOf?.([...p.at, p.model, ...path]) ?? p.lineOf?.([...p.at, p.model]);
  return line === undefined ? { file: p.file } : { file: p.file, line };
}

function num(v: unknown, key: string, p: EntryPlace): number | undefined {
  if (v === undefined || v === null) return undefined;
  const n = typeof v === "number" ? v : Number(v);
  if (!Number.isFinite(n) || n < 0 || n > MAX_PRICE) {
    throw new ScoutError(
      "config",
      `Invalid price ${p.file}: ${escapeLine(p.model)}.${key}: "${escapeLine(String(v))}" ` +
        `(dollars per million tokens, 0 to ${MAX_PRICE})`,
      placeOf(p, key),
    );
  }
  return n;
}

/** The keys of a price entry, in the order the README shows them. */
const PRICE_KEYS = ["input", "cached_input", "cache_write", "output", "reasoning"] as const;

/** Where a key of the price file is: its 1-based line, when known. */
export type PriceLines = (path: readonly string[]) => number | undefined;

/**
 * A price entry's key that is none of {@link PRICE_KEYS} (R134-3): a
 * misspelt `cahced_input` was ignored, its tokens priced at `input`.
 */
function unknownKey(key: string, p: EntryPlace) {
  const near = nearNames(key, PRICE_KEYS);
  return new ScoutError(
    "config",
    `Unknown price key "${escapeLine(key)}" in ${escapeLine(p.model)}` +
      (near.length > 0 ? `; did you mean ${near.map((n) => `"${n}"`).join(" or ")}?` : "") +
      ` (keys: ${PRICE_KEYS.join(", ")})`,
    placeOf(p, key),
  );
}

/** One model's entry, checked: its keys first (a misspelt key is why a price is missing). */
function modelPrice(entry: unknown, p: EntryPlace): ModelPrice {
  const x = (entry ?? {}) as Record<string, unknown>;
  for (const k of Object.keys(x)) {
    if (!(PRICE_KEYS as readonly string[]).includes(k)) throw unknownKey(k, p);
  }
  const input = num(x.input, "input", p);
  const output = num(x.output, "output", p);
  if (input === undefined || output === undefined) {
    throw new ScoutError(
      "config",
      `${p.file}: ${escapeLine(p.model)} needs "input" and "output" prices`,
      placeOf(p),
    );
  }
  const price: ModelPrice = { input, output };
  for (const k of ["cached_input", "cache_write", "reasoning"] as const) {
    const v = num(x[k], k, p);
    if (v !== undefined) price[k] = v;
  }
  return price;
}

/**
 * Validates a parsed price file.
 *
 * @param doc the parsed YAML
 * @param file its path (for errors)
 * @param lineOf where a key path is in the file (for errors), if known
 * @returns the table
 * @throws ScoutError `config` naming the file and line for a price that is
 *   not a number from 0 to {@link MAX_PRICE}, an entry without `input` or
 *   `output`, or a key that is no price's (with the near key)
 */
export function priceTable(doc: unknown, file: string, lineOf?: PriceLines): PriceTable {
  const wrapped = doc !== null && typeof doc === "object" && "models" in doc;
  const root = wrapped ? (doc as { models: unknown }).models : doc;
  if (root === null || root === undefined) return {};
  if (typeof root !== "object" || Array.isArray(root)) {
    throw new ScoutError("config", `${file}: expected a map of model → prices`, { file });
  }
  const out: PriceTable = {};
  const at = wrapped ? ["models"] : [];
  for (const [model, entry] of Object.entries(root as Record<string, unknown>)) {
    out[model] = modelPrice(entry, { file, at, model, lineOf });
  }
  return out;
}

/**
 * Where the price file lives: `<home>/etc/prices.yaml`.
 *
 * @param home the Scout home
 * @returns the path
 */
export function pricesFile(home: string): string {
  return join(home, "etc", "prices.yaml");
}

/**
 * Reads `$SCOUT_HOME/etc/prices.yaml`, if present.
 *
 * @param home the Scout home
 * @returns the table, or null when there is no file
 * @throws ScoutError `config` naming the file when it exists but cannot be read
 *   (a directory, no permission, a symbolic link to nothing) or is not a valid price table
 */
export async function loadPrices(home: string): Promise<PriceTable | null> {
  const file = pricesFile(home);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    // ENOTDIR: `etc` (or the home) is a file, so no price file can be there either; but
    // a link to nothing is a price file meant and lost, not no price file (R142-5)
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" && danglingLinkError(file) !== null
      ? "it is a symbolic link to nothing"
      : null;
    if ((code === "ENOENT" || code === "ENOTDIR") && why === null) return null;
    // never "no prices" for a file that is there: every cost would quietly show `?`
    const message = why ?? (e as Error).message;
    throw new ScoutError("config", `Cannot read price file "${file}": ${message}`, {
      file,
      cause: e,
    });
  }
  const { parseRubyYamlWithLines } = await import("../util/ruby_yaml.ts");
  let doc: RubyYamlWithLines;
  try {
    doc = parseRubyYamlWithLines(text);
  } catch (e) {
    const { text: what, line } = yamlErrorParts(e);
    const where = line === undefined ? { file } : { file, line };
    throw new ScoutError("config", `Cannot parse price file: ${what}`, { ...where, cause: e });
  }
  return priceTable(doc.value, file, doc.lineOf);
}

/**
 * What may follow an entry's name in a model it prices (R134-2): a date or
 * version, never more of a name. After `-`: two or more digits
 * (`-20250929`, `-2024-08-06`, `-0613`, `-002`) or `v` and digits (`-v2`);
 * after `@` or `:`: digits, `v` and digits (`@20240620`, `:0`); after any of
 * the three: `latest`. Each must end the name or be followed by `-`, `.`,
 * `_`, `@` or `:` — so `gpt-4o` prices `gpt-4o-2024-08-06` but not
 * `gpt-4o-mini`, `claude-opus-4` not `claude-opus-4-1`, `gpt-4` not
 * `gpt-4-32k`.
 */
const VERSION_SUFFIX = /^(?:-(?:\d{2,}|v\d+)|[@:]v?\d+|[\-@:]latest)(?![^\-._@:])/;

/**
 * The price of a model: an exact entry, else the longest entry the model
 * name starts with where the rest begins with a date or version
 * ({@link VERSION_SUFFIX}).
 *
 * @param model model name
 * @param prices the table
 * @returns the price, or null
 *
 * @example
 * ```ts
 * import { priceOf } from "./prices.ts";
 * const t = { "gpt-4o": { input: 2.5, output: 10 } };
 * [priceOf("gpt-4o-2024-08-06", t)?.input, priceOf("gpt-4o-mini", t)]; // [2.5, null]
 * ```
 */
export function priceOf(model: string, prices: PriceTable): ModelPrice | null {
  if (Object.hasOwn(prices, model)) return prices[model]!;
  let best: string | null = null;
  for (const k of Object.keys(prices)) {
    if (
      model.startsWith(k) && (best === null || k.length > best.length) &&
      VERSION_SUFFIX.test(model.slice(k.length))
    ) best = k;
  }
  return best === null ? null : prices[best]!;
}

/**
 * The longest entry a model's name merely begins with (`gpt-4o` of
 * `gpt-4o-mini`), which does not price it ({@link priceOf}) — before R134-2
 * it did: what a warning about the model names, so that a cost that fell
 * after an upgrade says why.
 *
 * @param model an unpriced model name
 * @param prices the table
 * @returns the entry, or null
 */
export function prefixEntry(model: string, prices: PriceTable): string | null {
  let best: string | null = null;
  for (const k of Object.keys(prices)) {
    if (k !== model && model.startsWith(k) && (best === null || k.length > best.length)) best = k;
  }
  return best;
}

/**
 * The cost of one inference in dollars.
 *
 * @param t its tokens
 * @param meta its meta record (`model=`, `backend=`)
 * @param prices the table
 * @returns dollars, or null when the model has no price
 */
export function costOf(
  t: TokenTotals,
  meta: Readonly<Record<string, unknown>>,
  prices: PriceTable,
): number | null {
  const p = priceOf(typeof meta.model === "string" ? meta.model : "", prices);
  if (p === null) return null;
  const backend = typeof meta.backend === "string" ? meta.backend : null;
  const outside = backend !== null
    ? BACKENDS_WITH_CACHE_OUTSIDE_PT.has(backend)
    : t.cct + t.cwt > t.pt;
  const uncached = outside ? t.pt : Math.max(0, t.pt - t.cct - t.cwt);
  const reasoning = Math.min(t.rt, t.ct);
  return (
    uncached * p.input +
    t.cct * (p.cached_input ?? p.input) +
    t.cwt * (p.cache_write ?? p.input) +
    (t.ct - reasoning) * p.output +
    reasoning * (p.reasoning ?? p.output)
  ) / 1e6;
}

/** Significant digits of the dollars in JSON output. */
export const JSON_DOLLAR_DIGITS = 12;

/**
 * Dollars as JSON output carries them: rounded to 12 significant digits, so
 * sums of binary fractions print as the decimal they stand for (`0.00444`,
 * not `0.0044399999999999995`) while a price per million tokens times any
 * token count keeps every digit it has.
 *
 * @param dollars an amount
 * @returns the amount rounded to {@link JSON_DOLLAR_DIGITS} significant digits
 *
 * @example
 * ```ts
 * import { jsonDollars } from "./prices.ts";
 * jsonDollars(0.0044399999999999995); // 0.00444
 * ```
 */
export function jsonDollars(dollars: number): number {
  return Number(dollars.toPrecision(JSON_DOLLAR_DIGITS));
}
