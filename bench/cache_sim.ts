/**
 * Prompt-cache simulator for the context strategies (issue 3).
 *
 *   tools/deno run -P=test bench/cache_sim.ts            # tables (markdown)
 *   tools/deno run -P=test bench/cache_sim.ts --json     # raw figures
 *   tools/deno run -P=test bench/cache_sim.ts --calls 500 --seed 7
 *
 * A 300-tool-call agent session (outputs log-uniform 200–8,000 chars, see
 * `cache_sim_session.ts`) is replayed inference by inference: inference k
 * sends `preparePrompt(first k pairs)`. For each strategy we record the
 * prompt size and the common prefix with the previous prompt, then apply:
 *
 * - OpenAI rules: prompts of ≥ 1,024 tokens are cached; a hit covers the
 *   common prefix rounded down to a multiple of 128 tokens, and only when
 *   that prefix is ≥ 1,024 tokens.
 * - Anthropic rules: a cache breakpoint on the last message of every request
 *   and one after the system prompt; a hit is exact: the previous prompt is
 *   read back whole if it is a message-wise prefix of the new one, else the
 *   system breakpoint if the system prompt is ≥ 1,024 tokens, else nothing.
 *
 * Tokens ≈ chars / 4. A prompt is measured as the concatenation of its
 * messages serialized as `{"role","content"}` JSON lines (what a provider
 * request body carries, in order).
 */
import type { Message } from "../src/chat/types.ts";
import { preparePrompt, type PromptConfig } from "../src/prompt/mod.ts";
import { agentSession, inferencePrompts } from "./cache_sim_session.ts";

/** Chars per token assumed by the simulator. */
export const CHARS_PER_TOKEN = 4;

/** One inference as seen by the cache. */
export interface InferenceRecord {
  /** Prompt size, tokens. */
  promptTokens: number;
  /** Common prefix with the previous prompt, tokens (exact, char-level). */
  prefixTokens: number;
  /** Whether the previous prompt is a message-wise prefix of this one. */
  extendsPrevious: boolean;
  /** Tokens of the system message line. */
  systemTokens: number;
}

/** Totals of one strategy under one provider's rules. */
export interface CacheTotals {
  /** Sum of prompt tokens over all inferences. */
  inputTokens: number;
  /** Sum of tokens read from the cache. */
  cachedTokens: number;
  /** cachedTokens / inputTokens. */
  cacheReadShare: number;
}

const tokens = (chars: number) => Math.ceil(chars / CHARS_PER_TOKEN);

/** One message as it is measured. */
export function messageText(m: Message): string {
  return JSON.stringify({ role: m.role, content: m.content }) + "\n";
}

/**
 * Compares consecutive prompts: sizes and common prefixes.
 *
 * @param prompts the prompts sent, in order
 * @returns one record per prompt
 */
export function recordInferences(prompts: readonly Message[][]): InferenceRecord[] {
  const out: InferenceRecord[] = [];
  let previous: string[] = [];
  for (const prompt of prompts) {
    const texts = prompt.map(messageText);
    let prefix = 0;
    let i = 0;
    while (i < texts.length && i < previous.length && texts[i] === previous[i]) {
      prefix += texts[i]!.length;
      i++;
    }
    const extendsPrevious = i === previous.length;
    if (!extendsPrevious && i < texts.length) prefix += commonPrefix(texts[i]!, previous[i]!);
    const total = texts.reduce((n, t) => n + t.length, 0);
    out.push({
      promptTokens: tokens(total),
      prefixTokens: Math.floor(prefix / CHARS_PER_TOKEN),
      extendsPrevious: previous.length > 0 && extendsPrevious,
      systemTokens: Math.floor((texts[0]?.length ?? 0) / CHARS_PER_TOKEN),
    });
    previous = texts;
  }
  return out;
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/**
 * Cached tokens of one inference under OpenAI's rules.
 *
 * @param r the inference
 * @returns tokens read from the cache
 */
export function openAiCached(r: InferenceRecord): number {
  if (r.promptTokens < 1024 || r.prefixTokens < 1024) return 0;
  return Math.floor(r.prefixTokens / 128) * 128;
}

/**
 * Cached tokens of one inference under Anthropic's rules (exact prefixes at
 * breakpoints; see the module doc).
 *
 * @param r the inference
 * @param previousTokens prompt tokens of the previous inference
 * @returns tokens read from the cache
 */
export function anthropicCached(r: InferenceRecord, previousTokens: number): number {
  if (r.extendsPrevious && previousTokens >= 1024) return previousTokens;
  if (r.systemTokens >= 1024 && r.prefixTokens >= r.systemTokens) return r.systemTokens;
  return 0;
}

/**
 * Totals of a run under both rule sets.
 *
 * @param records the inferences
 * @returns OpenAI and Anthropic totals
 */
export function cacheTotals(records: readonly InferenceRecord[]) {
  let input = 0;
  let openai = 0;
  let anthropic = 0;
  records.forEach((r, i) => {
    input += r.promptTokens;
    openai += openAiCached(r);
    anthropic += anthropicCached(r, i > 0 ? records[i - 1]!.promptTokens : 0);
  });
  const totals = (cached: number): CacheTotals => ({
    inputTokens: input,
    cachedTokens: cached,
    cacheReadShare: input === 0 ? 0 : cached / input,
  });
  return { openai: totals(openai), anthropic: totals(anthropic) };
}

/** Result of simulating one strategy. */
export interface StrategyRun {
  /** Label. */
  label: string;
  /** Strategy names. */
  strategy: string;
  /** Per-call settings used. */
  config: PromptConfig;
  /** OpenAI totals. */
  openai: CacheTotals;
  /** Anthropic totals. */
  anthropic: CacheTotals;
  /** Largest prompt, tokens. */
  maxPromptTokens: number;
  /** Prompt of the last inference, tokens. */
  lastPromptTokens: number;
  /** Inferences whose prefix broke (not an extension of the previous prompt). */
  prefixBreaks: number;
  /** Mean number of tool outputs sent whole (a fidelity proxy), over the last 250 inferences. */
  meanWholeOutputs: number;
}

/**
 * Replays a session under one strategy.
 *
 * @param prompts the un-strategised prompts of each inference
 * @param label row label
 * @param strategy strategy names
 * @param settings per-call settings
 * @returns the figures
 */
export function simulate(
  prompts: readonly Message[][],
  label: string,
  strategy: string,
  settings: Record<string, number> = {},
): StrategyRun {
  const config: PromptConfig = { env: {}, ...settings };
  const sent = prompts.map((p) => preparePrompt(p, strategy, config));
  const whole = sent.map((out, i) => {
    const inputs = new Set(prompts[i]);
    return out.filter((m) => m.role === "function_call_output" && inputs.has(m)).length;
  });
  const tail = whole.slice(-250);
  const records = recordInferences(sent);
  const { openai, anthropic } = cacheTotals(records);
  return {
    label,
    strategy,
    config: settings,
    openai,
    anthropic,
    maxPromptTokens: Math.max(...records.map((r) => r.promptTokens)),
    lastPromptTokens: records.at(-1)!.promptTokens,
    prefixBreaks: records.slice(1).filter((r) => !r.extendsPrevious).length,
    meanWholeOutputs: tail.reduce((a, b) => a + b, 0) / Math.max(1, tail.length),
  };
}

/** Epoch configurations compared in the trade-off table (threshold/full/compacted/size). */
export const EPOCH_CANDIDATES: [number, number, number, number][] = [
  [50, 20, 80, 20],
  [50, 20, 80, 40],
  [50, 10, 80, 40],
  [50, 20, 80, 60],
  [50, 10, 60, 50],
  [50, 10, 80, 50],
  [50, 20, 80, 80],
  [100, 20, 80, 50],
];

/**
 * Runs the whole comparison.
 *
 * @param calls tool calls in the session
 * @param seed PRNG seed
 * @returns one run per strategy row
 */
export function runAll(calls = 300, seed = 42): StrategyRun[] {
  const prompts = inferencePrompts(agentSession({ calls, seed }));
  const runs = [
    simulate(prompts, "none", "none"),
    simulate(prompts, "shorten_tools (defaults)", "shorten_tools"),
  ];
  for (const [t, f, c, s] of EPOCH_CANDIDATES) {
    runs.push(
      simulate(prompts, `shorten_tools_epoch ${t}/${f}/${c}/${s}`, "shorten_tools_epoch", {
        epochToolCallThreshold: t,
        epochFullToolCalls: f,
        epochCompactedToolCalls: c,
        epochSize: s,
      }),
    );
  }
  return runs;
}

/**
 * Billed-equivalent input tokens: OpenAI bills cached input at 10 % (GPT-5
 * family); Anthropic bills cache reads at 10 % and cache writes (everything
 * after the hit, written at the final breakpoint) at 125 %.
 *
 * @param r a run
 * @returns OpenAI and Anthropic billed-equivalent tokens
 */
export function billedTokens(r: StrategyRun): { openai: number; anthropic: number } {
  const o = r.openai;
  const a = r.anthropic;
  return {
    openai: o.inputTokens - o.cachedTokens + 0.1 * o.cachedTokens,
    anthropic: 1.25 * (a.inputTokens - a.cachedTokens) + 0.1 * a.cachedTokens,
  };
}

function table(runs: StrategyRun[]): string {
  const pct = (x: number) => (x * 100).toFixed(1) + " %";
  const k = (x: number) => (x / 1000).toFixed(0) + " k";
  const lines = [
    "| strategy | cache-read share OpenAI | cache-read share Anthropic | total input tokens | billed-equiv. OpenAI | billed-equiv. Anthropic | max prompt | last prompt | prefix breaks | whole outputs (mean) |",
    "|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const r of runs) {
    const b = billedTokens(r);
    lines.push(
      `| ${r.label} | ${pct(r.openai.cacheReadShare)} | ${pct(r.anthropic.cacheReadShare)} | ${
        k(r.openai.inputTokens)
      } | ${k(b.openai)} | ${k(b.anthropic)} | ${k(r.maxPromptTokens)} | ${
        k(r.lastPromptTokens)
      } | ${r.prefixBreaks} | ${r.meanWholeOutputs.toFixed(1)} |`,
    );
  }
  return lines.join("\n");
}

if (import.meta.main) {
  const args = Deno.args;
  const num = (flag: string, dflt: number) => {
    const i = args.indexOf(flag);
    return i === -1 ? dflt : Number(args[i + 1]);
  };
  const calls = num("--calls", 300);
  const seed = num("--seed", 42);
  const runs = runAll(calls, seed);
  if (args.includes("--json")) console.log(JSON.stringify({ calls, seed, runs }, null, 2));
  else {
    console.log(`Cache simulation: ${calls} tool calls, seed ${seed}, tokens ≈ chars/4\n`);
    console.log(table(runs));
  }
}
