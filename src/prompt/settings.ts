/**
 * The numeric settings of the built-in strategies (`prompt-strategies.md`
 * §6), resolved **per call** — never memoised for the process (the Ruby
 * memoisation trap): per-call value, then config entry (scopes `prompt`,
 * `context`), then environment variable, then default.
 *
 * @module
 */
import { ScoutError } from "../errors.ts";
import { configSetting, type ConfigStore } from "../config/store.ts";
import { checkSetting, type SettingSource } from "../config/setting_source.ts";

/** Resolved settings handed to every strategy function. */
export interface PromptSettings {
  /** `shorten_tools`: calls kept whole regardless of the budget (`full_tool_calls`). */
  fullToolCalls: number;
  /** `shorten_tools`: outputs kept whole regardless of the budget (`full_tool_outputs`). */
  fullToolOutputs: number;
  /** `shorten_tools`: calls beyond this rank are dropped (`max_tool_calls`). */
  maxToolCalls: number;
  /** `shorten_tools`: outputs beyond this rank are dropped (`max_tool_outputs`). */
  maxToolOutputs: number;
  /** `shorten_tools`: character budget of whole tool JSON (`max_tool_chars`). */
  maxToolChars: number;
  /** `shorten_tools_epoch`: outputs at or below which nothing happens. */
  epochToolCallThreshold: number;
  /** `shorten_tools_epoch`: pairs kept whole before the current epoch. */
  epochFullToolCalls: number;
  /** `shorten_tools_epoch`: pairs compacted before the whole ones. */
  epochCompactedToolCalls: number;
  /** `shorten_tools_epoch`: new pairs per epoch (boundary moves this often). */
  epochSize: number;
}

/** Name of one setting. */
export type PromptSettingName = keyof PromptSettings;

/** Config key of one setting (also accepted as a per-call option name). */
export type PromptSettingKey =
  | "full_tool_calls"
  | "full_tool_outputs"
  | "max_tool_calls"
  | "max_tool_outputs"
  | "max_tool_chars"
  | "epoch_tool_call_threshold"
  | "epoch_full_tool_calls"
  | "epoch_compacted_tool_calls"
  | "epoch_size";

/** One row of the settings table: names, env var, default. */
export interface PromptSettingSpec {
  /** Field of {@link PromptSettings}. */
  name: PromptSettingName;
  /** Config key (also accepted as a per-call option name). */
  key: PromptSettingKey;
  /** Environment variable. */
  env: string;
  /** Default; `null` = "the resolved value of {@link PromptSettingSpec.inherit}". */
  fallback: number | null;
  /** Setting whose resolved value is the default (only `maxToolOutputs`). */
  inherit?: PromptSettingName;
}

/** The settings table (`prompt-strategies.md` §6), in resolution order. */
export const PROMPT_SETTINGS: readonly PromptSettingSpec[] = [
  { name: "fullToolCalls", key: "full_tool_calls", env: "FULL_TOOL_CALLS", fallback: 0 },
  { name: "fullToolOutputs", key: "full_tool_outputs", env: "FULL_TOOL_OUTPUTS", fallback: 10 },
  { name: "maxToolCalls", key: "max_tool_calls", env: "MAX_TOOL_CALLS", fallback: 40 },
  {
    name: "maxToolOutputs",
    key: "max_tool_outputs",
    env: "MAX_TOOL_OUTPUTS",
    fallback: null,
    inherit: "maxToolCalls",
  },
  { name: "maxToolChars", key: "max_tool_chars", env: "MAX_TOOL_CHARS", fallback: 100_000 },
  {
    name: "epochToolCallThreshold",
    key: "epoch_tool_call_threshold",
    env: "EPOCH_TOOL_CALL_THRESHOLD",
    fallback: 50,
  },
  {
    name: "epochFullToolCalls",
    key: "epoch_full_tool_calls",
    env: "EPOCH_FULL_TOOL_CALLS",
    fallback: 20,
  },
  {
    name: "epochCompactedToolCalls",
    key: "epoch_compacted_tool_calls",
    env: "EPOCH_COMPACTED_TOOL_CALLS",
    fallback: 80,
  },
  { name: "epochSize", key: "epoch_size", env: "EPOCH_SIZE", fallback: 20 },
];

/** Config scopes searched for the settings. */
export const PROMPT_CONFIG_SCOPES: readonly string[] = ["prompt", "context"];

/**
 * Where settings come from for one call. Per-call values may be given under
 * the camelCase field name or the config key (`maxToolChars` or
 * `max_tool_chars`), as numbers or integer strings (chat `option:` values
 * are strings).
 */
export type PromptConfig =
  & { [K in PromptSettingName | PromptSettingKey]?: number | string }
  & {
    /** Config store consulted after per-call values (scopes `prompt`, `context`). */
    store?: ConfigStore;
    /** Environment consulted after the store (default `process.env`). */
    env?: Record<string, string | undefined>;
    /**
     * Where a per-call value given under its config key came from (a chat's
     * `option:` line), for the error about a bad one (R128-1).
     */
    sources?: (key: PromptSettingKey) => SettingSource | undefined;
  };

/**
 * Resolves every setting for one call: per-call value → config entry → env
 * var → default. A config entry `nil`/`false` means "use the default".
 *
 * @param config per-call values, store and environment (all optional)
 * @returns the settings
 * @throws ScoutError `config` when a value is not an integer (Ruby reads `abc` as 0)
 *
 * @example
 * ```ts
 * import { resolvePromptSettings } from "./settings.ts";
 * const s = resolvePromptSettings({ epochSize: 10, env: { EPOCH_FULL_TOOL_CALLS: "5" } });
 * [s.epochSize, s.epochFullToolCalls, s.epochToolCallThreshold]; // [10, 5, 50]
 * ```
 */
export function resolvePromptSettings(config: PromptConfig = {}): PromptSettings {
  const environment = config.env ?? process.env;
  const out = {} as PromptSettings;
  for (const spec of PROMPT_SETTINGS) {
    const direct = config[spec.name] ?? config[spec.key];
    let raw: unknown;
    let source: string;
    let at: SettingSource | undefined;
    if (direct !== undefined && direct !== null) {
      raw = direct;
      source = `option "${spec.key}"`;
      if (config[spec.name] == null) at = config.sources?.(spec.key); // its chat line
    } else {
      const v = config.store === undefined
        ? { value: envValue(environment, spec.env), source: { variable: spec.env } }
        : configSetting(config.store, spec.key, PROMPT_CONFIG_SCOPES, {
          env: [spec.env],
          environment,
        });
      raw = v.value === null || v.value === false ? undefined : v.value;
      source = `"${spec.key}" (config or ${spec.env})`;
      at = v.source; // the config's line, the variable (R128-1)
    }
    out[spec.name] = raw === undefined
      ? spec.fallback ?? out[spec.inherit!]
      : checkSetting(at, () => toSettingInt(raw, source));
  }
  return out;
}

/**
 * The settings an ask takes from the config store or the environment, not
 * from its own values, where they change what is sent: each one whose
 * resolved value differs from its default (for `max_tool_outputs`, from the
 * resolved `max_tool_calls` it would inherit), as the integer string a
 * chat's `option:` line gives. Part of the inference-cache key next to the
 * ask's own values (`src/llm/ask_cache.ts`): none when nothing comes from
 * there, so such asks keep their keys; and `EPOCH_SIZE=2` keys as
 * `option: epoch_size 2` does.
 *
 * @param config per-call values, store and environment
 * @returns config key → value, only the settings that come from there and differ
 * @throws ScoutError `config` as {@link resolvePromptSettings}
 *
 * @example
 * ```ts
 * import { promptSettingsFromConfig } from "./settings.ts";
 * promptSettingsFromConfig({ epochSize: 3, env: { EPOCH_SIZE: "2", MAX_TOOL_CALLS: "40" } });
 * // {} — epoch_size is the ask's own, MAX_TOOL_CALLS the default
 * promptSettingsFromConfig({ env: { EPOCH_SIZE: "2" } }); // { epoch_size: "2" }
 * ```
 */
export function promptSettingsFromConfig(
  config: PromptConfig,
): Partial<Record<PromptSettingKey, string>> {
  const resolved = resolvePromptSettings(config);
  const out: Partial<Record<PromptSettingKey, string>> = {};
  for (const spec of PROMPT_SETTINGS) {
    if ((config[spec.name] ?? config[spec.key]) != null) continue; // the ask's own value
    const value = resolved[spec.name];
    if (value !== (spec.fallback ?? resolved[spec.inherit!])) out[spec.key] = String(value);
  }
  return out;
}

function envValue(environment: Record<string, string | undefined>, name: string) {
  const v = environment[name];
  return v === undefined || v === "" ? undefined : v;
}

function toSettingInt(raw: unknown, source: string): number {
  if (typeof raw === "number" && Number.isSafeInteger(raw)) return raw;
  if (typeof raw === "string" && /^\s*[+-]?\d+\s*$/.test(raw)) {
    const n = Number.parseInt(raw, 10);
    if (Number.isSafeInteger(n)) return n;
  }
  throw new ScoutError(
    "config",
    `Invalid prompt strategy setting ${source}: ${JSON.stringify(raw)} is not an integer`,
    { value: raw },
  );
}

/**
 * The defaults of every setting (what {@link resolvePromptSettings} returns
 * with an empty environment).
 *
 * @returns the default settings
 */
export function defaultPromptSettings(): PromptSettings {
  return resolvePromptSettings({ env: {} });
}
