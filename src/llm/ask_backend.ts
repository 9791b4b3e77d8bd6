/**
 * The model stage of an ask (`inference.md` §2.1 step 6): the backend and its
 * client settings, the loop's limits, the prompt-strategy settings split from
 * the provider parameters, and whether the inference cache is used (offline
 * replay turns it on).
 *
 * @module
 */
import { configGet, configSetting } from "../config/store.ts";
import { checkSetting, locateSetting, type SettingSource } from "../config/setting_source.ts";
import { PERSIST_ENV_VARS } from "../config/routing_env.ts";
import { ScoutError } from "../errors.ts";
import { preparePrompt, strategyNames } from "../prompt/prepare.ts";
import { PROMPT_SETTINGS, promptSettingsFromConfig } from "../prompt/settings.ts";
import { type AskContext, type AskRequest, isOff } from "./ask_options.ts";
import type { PreparedChat } from "./ask_tools.ts";
import { type ProviderParams, providerParams } from "./params.ts";
import { setOwn } from "../util/own_record.ts";
import { getBackend } from "./registry.ts";
import { backendChoice, resolveSettings } from "./settings.ts";
import type { Backend } from "./types.ts";

const PROMPT_KEYS = new Set(PROMPT_SETTINGS.map((s) => s.key as string));

/** The model side of an ask. */
export interface AskModel {
  /** Backend name and implementation. */
  backendName: string;
  backend: Backend;
  /** Client settings (model, url, key, retries…). */
  settings: ReturnType<typeof resolveSettings>;
  /** Whether replies are threaded by response id. */
  threading: boolean;
  /** Round cap, tool output length guard, tool concurrency. */
  maxToolRounds: number;
  maxReplyToolCalls: number;
  maxContentLength: number;
  toolConcurrency?: number;
  /** The ask's own prompt-strategy settings. */
  promptOptions: Record<string, unknown>;
  /**
   * The prompt-strategy settings taken from the config or the environment
   * that change what is sent (part of the cache key; usually none).
   */
  promptFromConfig: Record<string, string>;
  /** Applies the strategies to one round's messages. */
  prepare: (messages: Parameters<typeof preparePrompt>[0]) => ReturnType<typeof preparePrompt>;
  /** Provider parameters, shaped. */
  params: ProviderParams;
  /** Write meta records. */
  logResponse: boolean;
  /** Use the inference cache. */
  useCache: boolean;
  /** Offline replay: every round from the cache. */
  offline: boolean;
}

/**
 * Default of `max_reply_tool_calls`: how many tool calls of one reply run (not
 * the prompt-strategy `max_tool_calls`, which `shorten_tools` reads, R100-2).
 */
export const MAX_REPLY_TOOL_CALLS = 256;

function positiveInt(v: unknown, name: string): number | undefined {
  if (v === undefined || v === null || v === "" || v === false) return undefined;
  const n = typeof v === "number" ? v : Number(String(v).trim());
  if (!Number.isInteger(n) || n < 1) {
    throw new ScoutError("config", `Invalid ${name}: "${String(v)}" (expected a positive integer)`);
  }
  return n;
}

/**
 * Where the option `name` in force was written — a chat's option line, an
 * endpoint file's key — while that line's value is the one in use (a flag
 * over it is not its).
 */
function optionSource(req: AskRequest, name: string): SettingSource | undefined {
  const at = req.lines?.[name];
  return at !== undefined && at.value === req.opts[name] ? at : undefined;
}

/**
 * A positive-integer limit: the ask's option, else the config under `scopes`
 * (with `envNames`), else `fallback`; a bad value fails naming where it was
 * set (R128-1).
 */
function limitSetting(
  req: AskRequest,
  ctx: AskContext,
  name: string,
  where: { scopes: string[]; envNames?: string[]; fallback: number },
): number {
  const given = checkSetting(optionSource(req, name), () => positiveInt(req.opts[name], name));
  if (given !== undefined) return given;
  const { value, source } = configSetting(ctx.store, name, where.scopes, {
    ...(where.envNames ? { env: where.envNames } : {}),
    environment: ctx.env,
  });
  return checkSetting(source, () => positiveInt(value, name)) ?? where.fallback;
}

function limits(req: AskRequest, ctx: AskContext) {
  const maxToolRounds = limitSetting(req, ctx, "max_tool_rounds", {
    scopes: ["ask", "llm"],
    envNames: ["SCOUT_MAX_TOOL_ROUNDS"],
    fallback: 100,
  });
  const maxReplyToolCalls = limitSetting(req, ctx, "max_reply_tool_calls", {
    scopes: ["ask", "llm"],
    envNames: ["SCOUT_MAX_REPLY_TOOL_CALLS"],
    fallback: MAX_REPLY_TOOL_CALLS,
  });
  const maxContentLength = limitSetting(req, ctx, "max_content_length", {
    scopes: ["llm_tools", "tools", "llm", "ask"],
    fallback: 100_000,
  });
  const toolConcurrency = checkSetting(
    optionSource(req, "tool_concurrency"),
    () => positiveInt(req.opts.tool_concurrency, "tool_concurrency"),
  );
  return {
    maxToolRounds,
    maxReplyToolCalls,
    maxContentLength,
    ...(toolConcurrency !== undefined ? { toolConcurrency } : {}),
  };
}

function cacheMode(req: AskRequest, ctx: AskContext): { useCache: boolean; offline: boolean } {
  const persist = req.persist !== undefined ? !isOff(req.persist) : (() => {
    const v = configGet(ctx.store, "persist", ["ask", "llm"], {
      env: PERSIST_ENV_VARS,
      environment: ctx.env,
    });
    return v === undefined || !isOff(v);
  })();
  const fromEnv = ctx.env.SCOUT_OFFLINE;
  const offline = ctx.options.offline ??
    (fromEnv !== undefined && !/^(|0|no|off|false|none|nil)$/i.test(fromEnv.trim()));
  return { useCache: offline || (persist && ctx.options.cache !== false), offline };
}

/**
 * Checks the strategy selection before any request — an unknown name fails
 * naming the chat or endpoint line that gave it (R140-2) — and resolves the
 * settings the strategies will read (a bad value fails here, naming its
 * source): those from the config or the environment that change what is
 * sent, when a strategy reading them runs (R140-1: they join the cache key).
 */
function strategySettings(
  req: AskRequest,
  strategies: Parameters<typeof preparePrompt>[1],
  config: Record<string, unknown>,
): Record<string, string> {
  if (typeof strategies === "function") return {};
  const names = checkSetting(
    optionSource(req, "prompt_strategies"),
    () => strategyNames(strategies),
  );
  if (names.length === 0) return {};
  const fromConfig = promptSettingsFromConfig(config);
  return names.some((n) => n !== "none") ? fromConfig : {};
}

/** `backend` through the relay queue `opts.relay` names (`relay_option.ts`). */
async function relayedThrough(
  backend: Backend,
  backendName: string,
  opts: AskRequest["opts"],
  ctx: AskContext,
): Promise<Backend> {
  const { relayedBackend } = await import("./relay_option.ts");
  // `-O ssh_command` or an endpoint file's, else the config's or SCOUT_SSH (a chat's
  // `option: ssh_command` line never gets here: ask_options.ts drops it, R97-1)
  const ssh = String(
    opts.ssh_command ??
      configGet(ctx.store, "ssh_command", ["relay"], {
        env: ["SCOUT_SSH"],
        environment: ctx.env,
      }) ??
      "ssh",
  );
  return relayedBackend(backend, backendName, String(opts.relay), ssh);
}

/**
 * Stage: backend, settings, limits, prompt strategies and parameters, cache
 * mode. Unknown strategy names fail here, before any request.
 *
 * @param req the request
 * @param prepared the prepared chat
 * @param ctx the ask context
 * @returns the model side
 */
export async function resolveModel(
  req: AskRequest,
  prepared: PreparedChat,
  ctx: AskContext,
): Promise<AskModel> {
  const opts = req.opts;
  const choice = backendChoice(opts.backend, ctx.store, ctx.env);
  const backendName = choice.name;
  let backend = await getBackend(backendName).catch((e) => {
    // the chat's or endpoint file's `backend:` line, the config's, the variable (R128-1)
    throw locateSetting(e, choice.source ?? optionSource(req, "backend"), "named");
  });
  // `relay: <server>`: the requests travel through a relay queue (relay_option.ts);
  // the keys are the worker's, so none is needed here
  const relayed = opts.relay !== undefined && opts.relay !== null && !isOff(opts.relay);
  if (relayed) backend = await relayedThrough(backend, backendName, opts, ctx);
  const mode = cacheMode(req, ctx);
  const settings = resolveSettings({
    backend: backendName,
    defaults: backend.defaults,
    options: relayed ? { key: "EMPTY", ...opts } : opts,
    optionSource: (name) => optionSource(req, name),
    store: ctx.store,
    env: ctx.env,
    offline: mode.offline,
  });
  const lim = limits(req, ctx);
  const promptOptions: Record<string, unknown> = {};
  const params: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(opts)) {
    setOwn(PROMPT_KEYS.has(k) ? promptOptions : params, k, v);
  }
  const promptConfig: Record<string, unknown> = {
    store: ctx.store,
    env: ctx.env,
    ...promptOptions,
    sources: (key: string) => optionSource(req, key), // a bad setting names its chat line
  };
  const shaped = providerParams(params);
  const strategies = opts.prompt_strategies as Parameters<typeof preparePrompt>[1];
  const promptFromConfig = strategySettings(req, strategies, promptConfig);
  return {
    backendName,
    backend,
    settings,
    threading: Boolean(backend.threading) && !prepared.threadingOff,
    ...lim,
    promptOptions,
    promptFromConfig,
    prepare: (ms) => preparePrompt(ms, strategies, promptConfig),
    params: shaped,
    logResponse: !isOff(opts.log_response),
    ...mode,
  };
}
