/**
 * The first stages of an ask (`inference.md` §2.1 steps 1–3): the stage
 * context ({@link askContext}: environment, config, run-scoped resources),
 * the compiled-input check, the request options (chat options over call
 * options, the endpoint file under both, `persist` and `agent` taken out),
 * and delegation to an agent.
 *
 * @module
 */
import type { Message } from "../chat/types.ts";
import { extractOptions } from "../chat/options.ts";
import { locateAt, type OptionLine } from "../chat/written_at.ts";
import { chooseEndpoint, loadEndpoint } from "../config/endpoints.ts";
import { scoutHome } from "../config/home.ts";
import { locateSetting } from "../config/setting_source.ts";
import { processConfig } from "../config/process_config.ts";
import { currentWarningSink } from "../util/warn_once.ts";
import { setOwn } from "../util/own_record.ts";
import type { ConfigStore } from "../config/store.ts";
import { isScoutError, ScoutError } from "../errors.ts";
import { chatRelaySettings, dropChatOnly, warnChatRelay } from "./chat_option_guard.ts";
import {
  type AskOptions,
  type AskResult,
  type AskRuntime,
  COMPILE_ROLES,
  RUNTIME_KEYS,
} from "./ask_types.ts";
import { checkRequestOption } from "./option_values.ts";
import { PIPELINE_KEYS } from "./params.ts";

/** What every stage of one ask shares. */
export interface AskContext {
  /** The ask's options (runtime hooks and request options). */
  readonly options: AskOptions;
  /** Environment. */
  readonly env: Record<string, string | undefined>;
  /** Working directory. */
  readonly cwd: string;
  /** SCOUT_HOME. */
  readonly home: string;
  /** Config store. */
  readonly store: ConfigStore;
  /** Warning sink. */
  readonly warn: (message: string) => void;
  /**
   * Run-scoped resources (MCP clients, temp files…): each is closed when the
   * ask ends, success or failure, last registered first.
   */
  readonly onClose: (() => unknown)[];
}

/**
 * The context of one ask.
 *
 * @param options the ask's options
 * @returns the context
 */
export function askContext(options: AskOptions): AskContext {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  return {
    options,
    env,
    cwd,
    home: scoutHome(env),
    store: options.config ?? processConfig(env, cwd),
    warn: options.warn ?? currentWarningSink(),
    onClose: [],
  };
}

/**
 * Closes the run-scoped resources of an ask (last registered first); a
 * failing close is a warning, never the ask's error.
 *
 * @param ctx the context
 */
export async function closeAsk(ctx: AskContext): Promise<void> {
  for (const close of ctx.onClose.splice(0).reverse()) {
    try {
      await close();
    } catch (e) {
      ctx.warn(`Cannot close a resource of the ask: ${(e as Error)?.message ?? String(e)}`);
    }
  }
}

/**
 * Whether a setting says "off" (`false`, `"false"`, `"none"`, `"nil"`).
 *
 * @param v the value
 * @returns true when off
 */
export function isOff(v: unknown): boolean {
  return v === false || (typeof v === "string" && /^(false|none|nil)$/i.test(v.trim()));
}

/**
 * Whether messages still hold roles only `compile` resolves (`import:`,
 * `task:`…).
 *
 * @param messages the messages
 * @returns the first such message, or undefined
 */
export function uncompiled(messages: readonly Message[]): Message | undefined {
  return messages.find((m) => COMPILE_ROLES.has(m.role));
}

/**
 * Stage: the messages must be compiled.
 *
 * @param messages the messages
 * @throws ScoutError `invalid_input` naming the first uncompiled role
 */
export function requireCompiled(messages: readonly Message[]): void {
  const raw = uncompiled(messages);
  if (raw) {
    throw new ScoutError(
      "invalid_input",
      `Compile the chat before asking: found "${raw.role}:" (use compileText, compileFile or compile)`,
      { role: raw.role },
    );
  }
}

/**
 * The request options of a call: every option but the runtime hooks, unset
 * values dropped; of the provider parameters (not the pipeline's keys), values
 * that are not JSON data (an `AbortSignal` under a misspelt `singal`, a
 * function…) are left out, never sent (R105-6); `warn` is told of those, and
 * of a key that looks like a misspelt runtime option.
 *
 * @param options call options
 * @param warn warning sink (default: none)
 * @returns request options
 */
export function requestOptions(
  options: Record<string, unknown>,
  warn?: (message: string) => void,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(options)) {
    if (RUNTIME_KEYS.has(k) || v === undefined || v === null) continue;
    // the pipeline's own keys may hold what it takes (`prompt_strategies` functions, a `client`)
    if (PIPELINE_KEYS.has(k)) {
      out[k] = v;
      continue;
    }
    const { send, warning } = checkRequestOption(k, v, RUNTIME_KEYS);
    if (warning !== null) warn?.(warning);
    if (send) setOwn(out, k, v); // `__proto__` is a parameter like any, under Bun too
  }
  return out;
}

/** The request after the option stages. */
export interface AskRequest {
  /** The chat, option lines taken out. */
  chat: Message[];
  /**
   * Request options (endpoint file under call options under chat options);
   * when the ask delegates, the options as given (no endpoint file merged,
   * `persist` kept: the agent's ask honours it).
   */
  opts: Record<string, unknown>;
  /** Endpoint name, or null. */
  endpoint: string | null;
  /** The `persist` option as given (undefined: the config decides). */
  persist: unknown;
  /** The `agent` option when it delegates, else null. */
  agent: string | null;
  /**
   * Where options in force were written: a chat's option lines, and the
   * endpoint file's for the settings only it gave (an error about a value names its line).
   */
  lines?: Record<string, OptionLine>;
}

async function endpointSettings(
  opts: Record<string, unknown>,
  ctx: AskContext,
  lines: Record<string, OptionLine>,
): Promise<{
  endpoint: string | null;
  settings: Record<string, unknown>;
  fileLines: Record<string, OptionLine>;
}> {
  const choice = chooseEndpoint(opts.endpoint, ctx.store, ctx.env);
  if (!choice || choice.name === "") return { endpoint: null, settings: {}, fileLines: {} };
  const ep = await loadEndpoint(choice.name, { cwd: ctx.cwd, env: ctx.env }).catch((e) => {
    // the `endpoint:` line that named it, while its value is the one in use
    const line = lines.endpoint;
    if (
      choice.source === "option" && line !== undefined && String(line.value).trim() === choice.name
    ) {
      locateAt(e, line);
    }
    // §1.2: say where a name the user did not type came from (LLM, ASK are generic names),
    // the config's file and line too (R128-1)
    if (isScoutError(e, "endpoint_not_found") && choice.source !== "option") {
      if (choice.source === "config") e.message += ` (named by the config key "endpoint")`;
      const at = choice.source === "config" ? choice.at : { variable: choice.source.slice(4) };
      locateSetting(e, at, "named");
      e.source = choice.source;
    }
    throw e;
  });
  const { endpoint: _e, ...settings } = ep.settings;
  const fileLines: Record<string, OptionLine> = {};
  for (const [key, line] of Object.entries(ep.lines)) {
    fileLines[key] = { file: ep.file, line, value: settings[key] };
  }
  return { endpoint: ep.name, settings, fileLines };
}

/**
 * Stage: chat options over call options, the endpoint file merged under
 * both; `endpoint`, `persist` and `agent` taken out.
 *
 * @param messages compiled messages
 * @param ctx the ask context
 * @returns the request
 */
export async function resolveRequest(
  messages: readonly Message[],
  ctx: AskContext,
): Promise<AskRequest> {
  const extracted = extractOptions(messages, {
    cwd: ctx.cwd,
    ...(ctx.options.origin ? { origin: ctx.options.origin } : {}),
  });
  // what a chat line may not set (R97-1): the chat's own lines, and the call
  // options a `-c` chat or an agent's start chat gave (`optionLines`)
  const call = requestOptions(ctx.options, ctx.warn);
  const callLines = { ...ctx.options.optionLines };
  dropChatOnly(extracted.options, extracted.lines, ctx.warn);
  dropChatOnly(call, callLines, ctx.warn, true);
  const chatRelay = chatRelaySettings(extracted, { options: call, lines: callLines });
  let opts: Record<string, unknown> = { ...call, ...extracted.options };
  const named = opts.agent;
  if (named !== undefined && named !== null && !isOff(named)) {
    // `persist` stays among the options handed over (R116-1): as any option given here it wins
    // over the agent's start chat (§7.5) and flows to its specialists (agents.md §3.3)
    const { agent: _named, ...explicit } = opts;
    // the agent resolves its own endpoint (its start chat's, unless one is given
    // here): the default endpoint's file merged in would override it
    return {
      chat: extracted.chat,
      opts: explicit,
      endpoint: null,
      persist: explicit.persist,
      agent: String(named),
    };
  }
  const lines = { ...callLines, ...extracted.lines };
  const { endpoint, settings, fileLines } = await endpointSettings(opts, ctx, lines);
  const src = { endpoint: settings, store: ctx.store, env: ctx.env };
  warnChatRelay(chatRelay.options, chatRelay.lines, src, ctx.warn);
  delete opts.endpoint;
  // the endpoint file's lines for what only it set (a flag or chat over it is not its)
  for (const [key, at] of Object.entries(fileLines)) {
    if (opts[key] === undefined) lines[key] = at;
  }
  opts = { ...settings, ...opts };
  const { persist, agent: _off, ...rest } = opts;
  return { chat: extracted.chat, opts: rest, endpoint, persist, agent: null, lines };
}

/**
 * Runtime keys an ask does not hand to the agent an `agent:` line names: the
 * asking chat's (`origin`, `optionLines`: its option lines are taken out),
 * the asking agent's (`asker`, `runSpecialists`: the agent runs and logs its
 * own specialists), the hook itself (the agent layer installs its own) and
 * `tools` (never handed over).
 */
const NOT_DELEGATED: ReadonlySet<string> = new Set([
  "origin",
  "optionLines",
  "asker",
  "runSpecialists",
  "delegate",
  "tools",
]);

/**
 * The runtime the agent an `agent:` line names runs with (R116): the ask's
 * own runtime hooks — signal, env, cwd, config, cache, offline, fetch, warn,
 * onEvent… — but those in {@link NOT_DELEGATED}; and `cache: false` when the
 * ask's `persist` is off, so nothing the agent runs (its task route's job
 * too) is cached or replayed (agents.md §7.4). Only what the ask was given:
 * the hook's own defaults stand for the rest.
 *
 * @param req the request (its `agent` set)
 * @param ctx the ask context
 * @returns the runtime hooks
 */
export function delegatedRuntime(req: AskRequest, ctx: AskContext): AskRuntime {
  const out: Record<string, unknown> = {};
  for (const k of RUNTIME_KEYS) {
    const v = ctx.options[k];
    if (v !== undefined && !NOT_DELEGATED.has(k)) out[k] = v;
  }
  // [TS-FIX] agents.md §7.4: Ruby ignores `persist: false` for agents
  if (req.persist !== undefined && isOff(req.persist)) out.cache = false;
  return out as AskRuntime;
}

/**
 * Stage: an `agent:` option hands the ask to that agent (the runtime's
 * `delegate`, supplied by the agent layer), with the ask's options and
 * runtime ({@link delegatedRuntime}).
 *
 * @param req the request (its `agent` set)
 * @param ctx the ask context
 * @returns the agent's result
 * @throws ScoutError `not_available` without a `delegate` hook
 */
export function delegateAsk(req: AskRequest, ctx: AskContext): Promise<AskResult> {
  if (!ctx.options.delegate) {
    throw new ScoutError("not_available", `Agents are not available here (agent: ${req.agent})`);
  }
  return ctx.options.delegate(req.agent!, req.chat, req.opts, delegatedRuntime(req, ctx));
}
