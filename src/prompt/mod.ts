/**
 * Context (prompt) strategies: pure functions that turn the messages of one
 * round into what is sent to the model, keeping long tool-using
 * conversations inside the context window (`prompt-strategies.md`). The
 * stored chat is never changed.
 *
 * - {@link preparePrompt}: the dispatcher (default `shorten_tools_epoch`).
 * - {@link shortenTools}, {@link shortenToolsEpoch}: the built-ins.
 * - {@link shortenString}: the truncation primitive.
 * - {@link registerStrategy}: custom strategies by name.
 * - {@link resolvePromptSettings}: the per-call settings (option → config → env → default).
 *
 * @example
 * ```ts
 * import { preparePrompt } from "./mod.ts";
 * const sent = preparePrompt([{ role: "user", content: "go" }], "shorten_tools_epoch", {
 *   epochToolCallThreshold: 100,
 * });
 * ```
 *
 * @module
 */
export {
  DEFAULT_PROMPT_STRATEGIES,
  knownStrategies,
  preparePrompt,
  registerStrategy,
  strategyNames,
} from "./prepare.ts";
export type { PromptFunction, PromptStrategies, PromptStrategy } from "./prepare.ts";
export { codePointLength, shortenString } from "./shorten_string.ts";
export { promptSummary } from "./summary.ts";
export type { PromptSummary } from "./summary.ts";
export { shortenTools } from "./shorten_tools.ts";
export { compactionNotice, epochRegions, shortenToolsEpoch } from "./shorten_tools_epoch.ts";
export type { EpochRegions } from "./shorten_tools_epoch.ts";
export {
  defaultPromptSettings,
  PROMPT_CONFIG_SCOPES,
  PROMPT_SETTINGS,
  resolvePromptSettings,
} from "./settings.ts";
export type {
  PromptConfig,
  PromptSettingKey,
  PromptSettingName,
  PromptSettings,
  PromptSettingSpec,
} from "./settings.ts";
