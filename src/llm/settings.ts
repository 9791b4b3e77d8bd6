/**
 * Client settings of one ask (`inference.md` §1.3–1.5): backend name, model,
 * url, key, API version, timeout and retries, from the merged options (chat,
 * call, endpoint file) → config entries → environment → built-in defaults.
 * `key` and `model` are also looked up under the configured url's host
 * scopes (`ask.gpu1` for `http://gpu1:8000`, Ruby's `get_url_config`).
 * Keys are looked up under `<TAG>_KEY` and then `OPENAI_API_KEY` /
 * `ANTHROPIC_API_KEY` ([TS-FIX]); a missing key is an error naming the
 * variables — except offline, where nothing is sent (R152-2); keyless local
 * servers get `"EMPTY"`.
 *
 * @module
 */
import type { ConfigStore } from "../config/store.ts";
import { configGet, configSetting } from "../config/store.ts";
import { checkSetting, type SettingSource } from "../config/setting_source.ts";
import { withUrlScopes } from "../config/url_scopes.ts";
import { BACKEND_ENV_VARS } from "../config/routing_env.ts";
import { ScoutError } from "../errors.ts";
import { escapeLine } from "../util/one_line.ts";
import type { BackendDefaults, ClientSettings, ExtraSetting } from "./types.ts";

/** Default backend when nothing names one. */
export const DEFAULT_BACKEND = "responses";
/** Default `request_timeout` in seconds (Ruby's). */
export const DEFAULT_REQUEST_TIMEOUT_S = 1200;
/** Default retries of a failed query. */
export const DEFAULT_MAX_RETRIES = 3;
/** Default `max_retry_after` in seconds: the longest `Retry-After` waited for. */
export const DEFAULT_MAX_RETRY_AFTER_S = 60;

type Env = Record<string, string | undefined>;

function present(v: unknown): boolean {
  return v !== undefined && v !== null && v !== "" && v !== false;
}

/**
 * Chooses the backend name: option → config `backend` (scopes `ask`, `llm`) →
 * env `ASK_BACKEND`, `LLM_BACKEND` → `responses`; with where a name the option
 * did not give came from: the config entry's file and line, or the
 * environment variable (R128-1).
 *
 * @param option the merged `backend` option
 * @param store config store
 * @param env environment
 * @returns the backend name, and its source when the config or environment named it
 */
export function backendChoice(
  option: unknown,
  store: ConfigStore,
  env: Env,
): { name: string; source?: SettingSource } {
  if (present(option)) return { name: String(option).trim() };
  const { value, source } = configSetting(store, "backend", ["ask", "llm"], {
    env: BACKEND_ENV_VARS,
    environment: env,
  });
  if (typeof value !== "string" || value === "") return { name: DEFAULT_BACKEND };
  return source === undefined ? { name: value.trim() } : { name: value.trim(), source };
}

// `url`: the configured server's host scopes come first (Ruby `get_url_config`,
// used for `key` and `model`), so `ask.gpu1` beats `ask` for http://gpu1:8000
function scoped(
  store: ConfigStore,
  key: string,
  tag: string,
  envNames: readonly string[],
  env: Env,
  url?: string,
): string | undefined {
  const v = configGet(store, key, withUrlScopes(url, [`${tag}_ask`, "ask", tag]), {
    env: [...envNames],
    environment: env,
  });
  return typeof v === "string" && v !== "" ? v : undefined;
}

function officialUrl(url: string | undefined, defaults: BackendDefaults): boolean {
  if (url === undefined) return true;
  if (!defaults.url) return false;
  try {
    return new URL(url).host === new URL(defaults.url).host;
  } catch {
    return false;
  }
}

function seconds(v: unknown, what: string): number | undefined {
  if (!present(v)) return undefined;
  const n = typeof v === "number" ? v : Number(String(v).trim());
  if (!Number.isFinite(n) || n <= 0) {
    throw new ScoutError("config", `Invalid ${what}: "${String(v)}" (expected seconds > 0)`);
  }
  return n;
}

function extraSettings(
  list: readonly ExtraSetting[],
  o: ResolveSettingsOptions,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const x of list) {
    const option = x.envOnly ? undefined : o.options[x.name];
    const v = present(option)
      ? String(option)
      : x.envOnly
      ? (x.env ?? []).map((n) => o.env[n]).find((e) => e !== undefined && e !== "")
      : scoped(o.store, x.name, o.defaults.tag, x.env ?? [], o.env);
    if (v !== undefined) out[x.name] = v;
  }
  return out;
}

/**
 * Checks a server url: an absolute `http:` or `https:` URL (R142-3). A bad
 * one used to reach the backend, which blamed the provider for a reply it
 * never sent or retried a request that could never leave.
 */
function checkUrl(url: string): string {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch { /* below */ }
  if (parsed === null || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    const why = parsed === null ? "not a URL" : `scheme "${escapeLine(parsed.protocol)}"`;
    throw new ScoutError(
      "config",
      `Invalid url "${escapeLine(url)}" (${why}; expected an http:// or https:// URL)`,
    );
  }
  return url;
}

/**
 * The server url: option → config (`<tag>_ask`, `ask`, `<tag>`) → the
 * backend's variable; checked ({@link checkUrl}), a bad one failing before
 * any request, naming the chat or endpoint line, config entry or variable
 * that set it.
 */
function urlSetting(o: ResolveSettingsOptions): string | undefined {
  const { defaults: d, options: opts } = o;
  if (present(opts.url)) {
    const given = String(opts.url);
    return checkSetting(o.optionSource?.("url"), () => checkUrl(given));
  }
  const { value, source } = configSetting(o.store, "url", [`${d.tag}_ask`, "ask", d.tag], {
    env: d.urlEnv ? [d.urlEnv] : [],
    environment: o.env,
  });
  if (typeof value !== "string" || value === "") return undefined;
  return checkSetting(source, () => checkUrl(value));
}

/** Inputs of {@link resolveSettings}. */
export interface ResolveSettingsOptions {
  /** Backend name. */
  backend: string;
  /** The backend's defaults. */
  defaults: BackendDefaults;
  /** Merged options (chat, call, endpoint file). */
  options: Record<string, unknown>;
  /** Where an option in force was written (a chat's line, an endpoint file's key), if known. */
  optionSource?: (name: string) => SettingSource | undefined;
  /** Config store. */
  store: ConfigStore;
  /** Environment. */
  env: Record<string, string | undefined>;
  /**
   * Offline replay: nothing is sent, so a missing key is no error (R152-2) —
   * a miss fails as the `not_cached` it is (the key is no part of the cache key).
   */
  offline?: boolean;
}

/** The model: option → config (url scopes first) → environment → the backend's default. */
function modelSetting(o: ResolveSettingsOptions, url: string | undefined): string {
  const { defaults: d, options: opts } = o;
  const model = present(opts.model)
    ? String(opts.model)
    : scoped(o.store, "model", d.tag, d.modelEnv, o.env, url) ?? d.model;
  if (!model) {
    throw new ScoutError(
      "config",
      `No model for backend "${o.backend}": set "model" in the chat, endpoint or config`,
      {
        backend: o.backend,
      },
    );
  }
  return model;
}

/**
 * The key: option → config (url scopes first) → environment; `"EMPTY"` where
 * none is needed, or none is sent (offline).
 */
function keySetting(o: ResolveSettingsOptions, url: string | undefined): string {
  const { defaults: d, options: opts } = o;
  const key = present(opts.key)
    ? String(opts.key)
    : scoped(o.store, "key", d.tag, d.keyEnv, o.env, url);
  if (key !== undefined) return key;
  if (d.keyRequired && officialUrl(url, d) && !o.offline) {
    const vars = d.keyEnv.join(" or ");
    throw new ScoutError(
      "missing_key",
      `No API key for backend "${o.backend}": set ${vars}, or "key" in the endpoint file or config`,
      { backend: o.backend, variables: d.keyEnv },
    );
  }
  return "EMPTY";
}

/**
 * A setting's value, checked: the option when present, else the config's
 * (these scopes); what the check throws names where the value was set
 * (R128-1).
 */
function checkedSetting<T>(
  o: ResolveSettingsOptions,
  name: string,
  scopes: string[],
  check: (v: unknown) => T,
): T {
  const given = o.options[name];
  if (present(given)) return checkSetting(o.optionSource?.(name), () => check(given));
  const { value, source } = configSetting(o.store, name, scopes, { environment: o.env });
  return checkSetting(source, () => check(value));
}

/** A duration in seconds: option → config (these scopes); undefined when neither sets it. */
function secondsSetting(
  o: ResolveSettingsOptions,
  name: string,
  scopes: string[],
): number | undefined {
  return checkedSetting(o, name, scopes, (v) => seconds(v, name));
}

/** Retries of a failed query: option → config → the default; a count ≥ 0. */
function retriesSetting(o: ResolveSettingsOptions): number {
  const tag = o.defaults.tag;
  return checkedSetting(o, "max_retries", [`${tag}_ask`, "ask", tag, "llm"], (raw) => {
    if (!present(raw)) return DEFAULT_MAX_RETRIES;
    const maxRetries = Number.parseInt(String(raw), 10);
    if (!Number.isInteger(maxRetries) || maxRetries < 0) {
      throw new ScoutError("config", `Invalid max_retries: "${String(raw)}"`);
    }
    return maxRetries;
  });
}

/**
 * Resolves the client settings.
 *
 * @param o backend, defaults, options, config and environment
 * @returns the settings plus `maxRetries` and `maxRetryAfterMs`
 * @throws ScoutError `missing_key` naming the variables to set (online only); `config` for
 *   a missing model, an invalid timeout or url
 */
export function resolveSettings(
  o: ResolveSettingsOptions,
): ClientSettings & { maxRetries: number; maxRetryAfterMs: number } {
  const { defaults: d, options: opts } = o;
  const tag = d.tag;
  const url = urlSetting(o);
  const model = modelSetting(o, url);
  const key = keySetting(o, url);
  const timeoutS = secondsSetting(o, "request_timeout", [`${tag}_ask`, "ask", tag]) ??
    DEFAULT_REQUEST_TIMEOUT_S;
  const maxRetries = retriesSetting(o);
  // the longest Retry-After waited for (seconds; longer ones fail at once)
  const maxRetryAfterS = secondsSetting(o, "max_retry_after", [`${tag}_ask`, "ask", tag, "llm"]) ??
    DEFAULT_MAX_RETRY_AFTER_S;
  const settings: ClientSettings & { maxRetries: number; maxRetryAfterMs: number } = {
    backend: o.backend,
    model,
    key,
    apiVersion: present(opts.api_version) ? String(opts.api_version) : "v1",
    timeoutMs: Math.round(timeoutS * 1000),
    maxRetries,
    maxRetryAfterMs: Math.round(maxRetryAfterS * 1000),
  };
  if (url !== undefined) settings.url = url;
  if (d.extra) settings.extra = extraSettings(d.extra, o);
  return settings;
}
