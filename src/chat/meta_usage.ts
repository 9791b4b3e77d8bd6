/**
 * Token keys and provider usage normalisation (`inference.md` §4.2,
 * `provenance.md` §4.4), re-exported by `meta.ts`.
 *
 * @module
 */

/** Token keys of one request, in canonical order. */
export const TOKEN_KEYS = ["pt", "ct", "tt", "cct", "cwt", "rt"] as const;
/** One of {@link TOKEN_KEYS}. */
export type TokenKey = typeof TOKEN_KEYS[number];

/**
 * Ruby-style lenient integer (`provenance.md` §4.4): integers as is, floats
 * truncated, strings by their leading `[+-]?\d+(_\d+)*`, anything else 0.
 *
 * @param v any value
 * @returns an integer
 */
export function toInt(v: unknown): number {
  if (typeof v === "number") return Number.isFinite(v) ? Math.trunc(v) : 0;
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "string") {
    const m = /^\s*([+-]?\d+(?:_\d+)*)/.exec(v);
    return m ? Number(m[1]!.replace(/_/g, "")) : 0;
  }
  return 0;
}

const USAGE_PATHS: Record<Exclude<TokenKey, "tt">, string[][]> = {
  pt: [["prompt_tokens"], ["input_tokens"]],
  ct: [["completion_tokens"], ["output_tokens"]],
  cct: [
    ["prompt_tokens_details", "cached_tokens"],
    ["input_tokens_details", "cached_tokens"],
    ["cache_read_input_tokens"],
  ],
  cwt: [["input_tokens_details", "cache_write_tokens"], ["cache_creation_input_tokens"]],
  rt: [["completion_tokens_details", "reasoning_tokens"], [
    "output_tokens_details",
    "reasoning_tokens",
  ]],
};

function dig(o: unknown, path: string[]): unknown {
  let cur = o;
  for (const k of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

/**
 * Normalises a provider usage block to short token keys (`inference.md` §4.2):
 * for each key the first present path wins (0 counts as present); `tt` falls
 * back to `pt + ct`. Missing/empty usage → `{}`.
 *
 * @param usage the provider's `usage` object (OpenAI, Responses, Anthropic, Ollama-normalised)
 * @returns `{pt?, ct?, tt?, cct?, cwt?, rt?}` as integers, in canonical key order
 *
 * @example
 * ```ts
 * import { normalizeUsage } from "./meta_usage.ts";
 * normalizeUsage({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 }); // {pt:11, ct:7, tt:18}
 * ```
 */
export function normalizeUsage(usage: unknown): Partial<Record<TokenKey, number>> {
  const out: Partial<Record<TokenKey, number>> = {};
  if (usage === null || typeof usage !== "object") return out;
  const first = (paths: string[][]) => {
    for (const p of paths) {
      const v = dig(usage, p);
      if (v !== undefined && v !== null) return toInt(v);
    }
    return undefined;
  };
  const pt = first(USAGE_PATHS.pt);
  const ct = first(USAGE_PATHS.ct);
  const tt = first([["total_tokens"]]) ??
    (pt !== undefined && ct !== undefined ? pt + ct : undefined);
  const rest = {
    cct: first(USAGE_PATHS.cct),
    cwt: first(USAGE_PATHS.cwt),
    rt: first(USAGE_PATHS.rt),
  };
  for (
    const [k, v] of [["pt", pt], ["ct", ct], ["tt", tt], ["cct", rest.cct], ["cwt", rest.cwt], [
      "rt",
      rest.rt,
    ]] as const
  ) {
    if (v !== undefined) out[k] = v;
  }
  return out;
}
