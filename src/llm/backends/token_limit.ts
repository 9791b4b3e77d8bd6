/**
 * The output-token limit under each protocol's own name ([TS-FIX] of
 * `inference.md` §2.4, R113-2). Ruby passes `max_tokens` to every provider as
 * written; only Anthropic and Chat-Completions-compatible servers know it:
 *
 * - Responses (OpenAI, vLLM) has only `max_output_tokens` (OpenAI answers an
 *   unknown `max_tokens` with 400);
 * - OpenAI's own Chat Completions refuses `max_tokens` for its reasoning
 *   models (gpt-5, o-series: 400 "Use 'max_completion_tokens' instead") and
 *   takes `max_completion_tokens` for every model, while compatible servers
 *   (vLLM, llama.cpp, OpenWebUI, TGI) read `max_tokens` and may not know the
 *   newer name — so the rename happens only at `api.openai.com`;
 * - Ollama reads `options.num_predict` and ignores an unknown option.
 *
 * A limit the user gives under the protocol's own name wins over the mapped
 * one. Anthropic's `max_tokens` is native; its default must exceed a
 * thinking budget ({@link anthropicMaxTokens}, R113-3). Pure.
 *
 * @module
 */

/** The host of OpenAI's own API (the `openai` backend's default url). */
export const OPENAI_API_HOST = "api.openai.com";

/**
 * Whether a base url is OpenAI's own API.
 *
 * @param baseURL the url the client sends to
 * @returns true for `api.openai.com`
 */
export function isOpenAiApi(baseURL: string | undefined): boolean {
  if (!baseURL) return false;
  try {
    return new URL(baseURL).hostname.toLowerCase() === OPENAI_API_HOST;
  } catch {
    return false;
  }
}

/**
 * `params` with `max_tokens` removed and, unless `name` is given already,
 * its value under `name`. Never mutates its input.
 *
 * @param params provider parameters
 * @param name the protocol's name of the limit
 * @returns the parameters to send
 */
export function renamedLimit(
  params: Readonly<Record<string, unknown>>,
  name: string,
): Record<string, unknown> {
  if (!("max_tokens" in params)) return { ...params };
  const { max_tokens, ...rest }: Record<string, unknown> = params;
  if (rest[name] === undefined && max_tokens !== undefined) rest[name] = max_tokens;
  return rest;
}

/**
 * Chat Completions parameters: `max_tokens` → `max_completion_tokens` at
 * OpenAI's own API, as written elsewhere.
 *
 * @param params provider parameters
 * @param baseURL the url the client sends to
 * @returns the parameters to send
 */
export function chatLimit(
  params: Readonly<Record<string, unknown>>,
  baseURL: string | undefined,
): Record<string, unknown> {
  return isOpenAiApi(baseURL) ? renamedLimit(params, "max_completion_tokens") : { ...params };
}

/** Default Anthropic `max_tokens` (the API requires one; Ruby's value). */
export const ANTHROPIC_MAX_TOKENS = 1000;

/** The thinking budget of a `thinking` parameter, if it sets one. */
function thinkingBudget(thinking: unknown): number | undefined {
  if (typeof thinking !== "object" || thinking === null) return undefined;
  const t = thinking as Record<string, unknown>;
  if (t.type !== undefined && t.type !== "enabled") return undefined;
  const budget = typeof t.budget_tokens === "string" ? Number(t.budget_tokens) : t.budget_tokens;
  return typeof budget === "number" && Number.isFinite(budget) ? budget : undefined;
}

/**
 * The `max_tokens` an Anthropic request gets when the user gives none: 1000,
 * or, with a thinking budget, the budget plus 1000 — Anthropic requires
 * `max_tokens` above `budget_tokens` (which is at least 1024), so the default
 * alone refused every thinking request. A given `max_tokens` is the user's.
 *
 * @param params provider parameters
 * @returns the default, or undefined when `max_tokens` is given
 */
export function anthropicMaxTokens(params: Readonly<Record<string, unknown>>): number | undefined {
  if (params.max_tokens !== undefined) return undefined;
  const budget = thinkingBudget(params.thinking);
  return budget === undefined ? ANTHROPIC_MAX_TOKENS : budget + ANTHROPIC_MAX_TOKENS;
}
