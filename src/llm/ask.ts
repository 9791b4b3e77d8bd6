/**
 * `ask(messages, options)` — the ask pipeline (`inference.md` §2.1): chat
 * options over call options, the endpoint file under both, the current meta
 * taken out, tools assembled from the whole chat, `previous_response_id`
 * threading, backend and client settings, the inference cache, then the tool
 * loop. Messages must already be compiled (`compile*` from `chat/`).
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { clear, purge } from "../chat/clear.ts";
import type { MetaRecord } from "../chat/meta.ts";
import { currentMeta } from "../chat/meta_chat.ts";
import { extractOptions } from "../chat/options.ts";
import type { Message } from "../chat/types.ts";
import { chooseEndpoint, loadEndpoint } from "../config/endpoints.ts";
import { scoutHome } from "../config/home.ts";
import type { ConfigStore } from "../config/store.ts";
import { configGet } from "../config/store.ts";
import { processConfig } from "../config/process_config.ts";
import { isScoutError, ScoutError } from "../errors.ts";
import { preparePrompt } from "../prompt/prepare.ts";
import { PROMPT_SETTINGS } from "../prompt/settings.ts";
import { assembleTools, type ToolResolver } from "../tools/assemble.ts";
import { providerDefinitions, toolRegistry, type ToolsInput } from "../tools/registry.ts";
import type { ToolFunction } from "../tools/types.ts";
import type { SpecialistRunner } from "../tools/agent_results.ts";
import { cacheDir, cacheKey, cacheRead, cacheWrite, withCacheLock } from "./cache.ts";
import { type AskEvent, finalText, runLoop } from "./loop.ts";
import { defaultSession, type Session } from "./meta_record.ts";
import { providerParams } from "./params.ts";
import { getBackend } from "./registry.ts";
import { chooseBackend, resolveSettings } from "./settings.ts";
import { writeSnapshot } from "./snapshot.ts";

/** Runtime hooks of an ask: never sent to a provider, never part of the cache key. */
export interface AskRuntime {
  /** Environment (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Config store (default: `$SCOUT_HOME/etc/config`). */
  config?: ConfigStore;
  /** Working directory (endpoint files in `./etc/AI`, `format:` files). */
  cwd?: string;
  /** The chat file the messages come from (`format:` files next to it). */
  origin?: string;
  /** HTTP client for every backend (default global `fetch`). */
  fetch?: typeof fetch;
  /** Aborts the ask. */
  signal?: AbortSignal;
  /** Stream answer text as `text` events. */
  stream?: boolean;
  /** Progress events (text deltas, rounds, retries, tools, cache). */
  onEvent?: (e: AskEvent) => void;
  /** Warnings (default: ignored). */
  warn?: (message: string) => void;
  /** Session totals for `_s` (default: one per process). */
  session?: Session;
  /** Fallback tool handler for names without implementation. */
  handler?: ToolFunction;
  /**
   * Resolves `tool:`/`introduce:`/`mcp:`… directives (default: workflows by
   * name, registered or found in `./workflows` and `$SCOUT_HOME/workflows`).
   */
  toolResolver?: ToolResolver;
  /** Use the inference cache (default true; `persist: false` also turns it off). */
  cache?: boolean;
  /**
   * Offline replay: every inference must come from the inference cache; a
   * miss throws `not_cached` instead of calling the provider (also
   * `SCOUT_OFFLINE=1`). Turns the cache on even under `persist: false`.
   */
  offline?: boolean;
  /**
   * Runs the specialists that tools return as `{agent}` (`agents.md` §3.2);
   * supplied by the agent layer, so `llm/` never imports `agent/`.
   */
  runSpecialists?: SpecialistRunner;
  /** Delegates to an agent when the chat names one (`agent:`). */
  delegate?: (
    agent: string,
    messages: Message[],
    options: Record<string, unknown>,
  ) => Promise<AskResult>;
  /** Clock (tests). */
  now?: () => Date;
  /** Inference id source (tests). */
  newId?: () => string;
  /** Retry sleep (tests). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Options of {@link ask}: runtime hooks, `tools`, and any chat-level option. */
export type AskOptions = AskRuntime & {
  /** Tools (registry, `{name: [impl, definition]}`, definitions…). */
  tools?: ToolsInput;
  /** Any other option: `endpoint`, `model`, `backend`, `persist`, `format`, provider parameters… */
  [option: string]: unknown;
};

/** What an ask produced. */
export interface AskResult {
  /** New messages: `[meta, fc, fco, …, meta, assistant, previous_response_id?]`. */
  messages: Message[];
  /** The answer text (`""` when the last message is not an assistant one). */
  text: string;
  /** True when served from the inference cache. */
  cached: boolean;
  /** Endpoint used, or null. */
  endpoint: string | null;
  /** Backend used. */
  backend: string;
  /** Model used. */
  model: string;
}

/** Option keys that configure the run (I/O, hooks, cache), never the model request. */
export const RUNTIME_KEYS: ReadonlySet<string> = new Set([
  "env",
  "config",
  "cwd",
  "origin",
  "fetch",
  "signal",
  "stream",
  "onEvent",
  "warn",
  "session",
  "handler",
  "toolResolver",
  "cache",
  "offline",
  "runSpecialists",
  "delegate",
  "now",
  "newId",
  "sleep",
  "tools",
]);

/** Roles `compile` resolves: their presence means the messages were not compiled. */
export const COMPILE_ROLES: ReadonlySet<string> = new Set([
  "import",
  "continue",
  "last",
  "file",
  "directory",
  "task",
  "inline_task",
  "exec_task",
  "job",
  "inline_job",
  "step",
  "clear",
  "clean_role",
  "clear_role",
  "config",
]);

const PROMPT_KEYS = new Set(PROMPT_SETTINGS.map((s) => s.key as string));

function isOff(v: unknown): boolean {
  return v === false || (typeof v === "string" && /^(false|none|nil)$/i.test(v.trim()));
}

function intSetting(v: unknown, name: string): number | undefined {
  if (v === undefined || v === null || v === "" || v === false) return undefined;
  const n = typeof v === "number" ? v : Number(String(v).trim());
  if (!Number.isInteger(n) || n < 1) {
    throw new ScoutError("config", `Invalid ${name}: "${String(v)}" (expected a positive integer)`);
  }
  return n;
}

/**
 * Asks a model: runs the whole pipeline and returns the new messages and the
 * answer text.
 *
 * @param messages compiled chat messages (not modified)
 * @param options chat-level options (`model`, `endpoint`, `temperature`…; the
 *   chat's own option lines win over these), `tools`, and runtime hooks
 * @returns the result
 * @throws ScoutError `endpoint_not_found`, `unknown_backend`, `missing_key`,
 *   `provider_http`, `provider_response`, `timeout`, `tool_loop_limit`… —
 *   failures during the loop carry the messages produced so far in `messages`
 *
 * @example
 * ```ts
 * import { ask } from "./ask.ts";
 * const r = await ask([{ role: "user", content: "Say hi" }], {
 *   backend: "openai", url: "http://127.0.0.1:8080", model: "test", persist: false,
 * });
 * console.log(r.text);
 * ```
 */
export async function ask(
  messages: readonly Message[],
  options: AskOptions = {},
): Promise<AskResult> {
  // Resolvers the ask made itself are closed when it ends, also on errors and aborts (MCP sessions).
  const opened: ToolResolver[] = [];
  try {
    return await askRun(messages, options, opened);
  } finally {
    for (const r of opened) await r.close?.();
  }
}

async function askRun(
  messages: readonly Message[],
  options: AskOptions,
  opened: ToolResolver[],
): Promise<AskResult> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const home = scoutHome(env);
  const store = options.config ?? processConfig(env);
  const warn = options.warn ?? (() => {});

  const raw = messages.find((m) => COMPILE_ROLES.has(m.role));
  if (raw) {
    throw new ScoutError(
      "invalid_input",
      `Compile the chat before asking: found "${raw.role}:" (use compileText, compileFile or compile)`,
      { role: raw.role },
    );
  }

  // 1. chat options win over call options
  const call: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(options)) {
    if (!RUNTIME_KEYS.has(k) && v !== undefined && v !== null) call[k] = v;
  }
  const extracted = extractOptions(messages, {
    cwd,
    ...(options.origin ? { origin: options.origin } : {}),
  });
  let opts: Record<string, unknown> = { ...call, ...extracted.options };
  let chat = extracted.chat;

  // 2. endpoint (file merged under) and persist
  const choice = chooseEndpoint(opts.endpoint, store, env);
  delete opts.endpoint;
  let endpoint: string | null = null;
  if (choice && choice.name !== "") {
    const ep = await loadEndpoint(choice.name, { cwd, env }).catch((e) => {
      // §1.2: say where a name the user did not type came from (LLM, ASK are generic names)
      if (isScoutError(e, "endpoint_not_found") && choice.source !== "option") {
        e.message += choice.source === "config"
          ? ` (named by the config key "endpoint")`
          : ` (named by the environment variable ${choice.source.slice(4)})`;
        e.source = choice.source;
      }
      throw e;
    });
    endpoint = ep.name;
    const { endpoint: _e, ...fileSettings } = ep.settings;
    opts = { ...fileSettings, ...opts };
  }
  const persistOpt = opts.persist;
  delete opts.persist;

  // 3. agent delegation
  const agent = opts.agent;
  delete opts.agent;
  if (agent !== undefined && agent !== null && !isOff(agent)) {
    if (!options.delegate) {
      throw new ScoutError(
        "not_available",
        `Agents are not available here (agent: ${String(agent)})`,
      );
    }
    return options.delegate(String(agent), chat, opts);
  }

  // 4. meta → current meta
  const cur: MetaRecord = currentMeta(chat);
  chat = chat.filter((m) => m.role !== "meta");

  // tools from the whole chat, before any threading trim ([TS-FIX] defect 11)
  let resolver = options.toolResolver;
  if (!resolver && chat.some((m) => ["tool", "introduce", "mcp"].includes(m.role))) {
    const { workflowToolResolver } = await import("../tools/workflow.ts");
    resolver = workflowToolResolver({ cwd, env, config: store, warn });
    opened.push(resolver);
  }
  const assembled = await assembleTools(chat, toolRegistry(options.tools), resolver);
  chat = assembled.messages;
  const registry = assembled.registry;

  // 5. previous_response_id
  const explicitBackend = opts.backend;
  const prevOff = isOff(opts.previous_response) || opts.previous_response_id === false;
  let previousResponseId: string | undefined;
  if (explicitBackend === "responses" && !prevOff && opts.previous_response_id) {
    previousResponseId = String(opts.previous_response_id);
    chat = clear(chat, "previous_response_id");
  } else {
    chat = purge(chat, "previous_response_id");
  }
  delete opts.previous_response_id;
  // `websearch` option → the provider's hosted search tool (a websearch message)
  if (opts.websearch !== undefined && !isOff(opts.websearch)) {
    chat = [...chat, { role: "websearch", content: true }];
  }
  delete opts.websearch;

  // 6. backend and settings
  const backendName = chooseBackend(opts.backend, store, env);
  const backend = await getBackend(backendName);
  const settings = resolveSettings({
    backend: backendName,
    defaults: backend.defaults,
    options: opts,
    store,
    env,
  });
  const threading = Boolean(backend.threading) && !prevOff;
  const maxToolRounds = intSetting(opts.max_tool_rounds, "max_tool_rounds") ??
    intSetting(
      configGet(store, "max_tool_rounds", ["ask", "llm"], {
        env: ["SCOUT_MAX_TOOL_ROUNDS"],
        environment: env,
      }),
      "max_tool_rounds",
    ) ??
    100;
  const maxContentLength = intSetting(opts.max_content_length, "max_content_length") ??
    intSetting(
      configGet(store, "max_content_length", ["llm_tools", "tools", "llm", "ask"], {
        environment: env,
      }),
      "max_content_length",
    ) ??
    100_000;
  const toolConcurrency = intSetting(opts.tool_concurrency, "tool_concurrency");
  const promptOptions: Record<string, unknown> = {};
  const params: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(opts)) {
    if (PROMPT_KEYS.has(k)) promptOptions[k] = v;
    else params[k] = v;
  }
  const promptConfig: Record<string, unknown> = { store, env, ...promptOptions };
  const shaped = providerParams(params);
  const strategies = opts.prompt_strategies as Parameters<typeof preparePrompt>[1];
  // Unknown strategy names fail here, before any request.
  if (typeof strategies !== "function") preparePrompt([], strategies, promptConfig);
  const logResponse = !isOff(opts.log_response);

  const persist = persistOpt !== undefined ? !isOff(persistOpt) : (() => {
    const v = configGet(store, "persist", ["ask", "llm"], {
      env: ["ASK_PERSIST", "LLM_PERSIST", "PERSIST"],
      environment: env,
    });
    return v === undefined || !isOff(v);
  })();
  const offline = options.offline ?? (env.SCOUT_OFFLINE !== undefined && !isOff(env.SCOUT_OFFLINE));
  const useCache = offline || (persist && options.cache !== false);

  const run = () =>
    runLoop({
      messages: chat,
      backendName,
      backend,
      settings,
      registry,
      params: shaped,
      currentMeta: cur,
      threading,
      prepare: (ms) => preparePrompt(ms, strategies, promptConfig),
      maxToolRounds,
      logResponse,
      stream: Boolean(options.stream),
      session: options.session ?? defaultSession,
      fetch: options.fetch ?? globalThis.fetch,
      now: options.now ?? (() => new Date()),
      newId: options.newId ?? (() => randomUUID()),
      maxContentLength,
      warn,
      ...(previousResponseId ? { previousResponseId } : {}),
      ...(options.handler ? { handler: options.handler } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
      ...(options.sleep ? { sleep: options.sleep } : {}),
      ...(toolConcurrency !== undefined ? { toolConcurrency } : {}),
      ...(options.runSpecialists ? { runSpecialists: options.runSpecialists } : {}),
    }).catch(async (e) => {
      if (isScoutError(e) && (e.phase === "query" || e.phase === "process_response")) {
        e.endpoint = endpoint;
        e.model = settings.model;
        try {
          e.snapshotPath = await writeSnapshot(join(home, "tmp", "ask"), {
            messages: chat,
            options: { ...opts, backend: backendName },
            currentMeta: cur,
          });
        } catch (se) {
          warn(`Cannot write the failure snapshot: ${(se as Error).message}`);
        }
      }
      throw e;
    });

  const result = (out: Message[], cached: boolean): AskResult => ({
    messages: out,
    text: finalText(out),
    cached,
    endpoint,
    backend: backendName,
    model: settings.model,
  });

  if (!useCache) return result(await run(), false);

  const key = cacheKey({
    endpoint: endpoint ?? "",
    backend: backendName,
    model: settings.model,
    params: {
      ...shaped,
      previousResponseId: previousResponseId ?? null,
      prompt: opts.prompt_strategies ?? null,
      // the ask's own strategy settings shape what is sent (absent: keys unchanged)
      promptSettings: Object.keys(promptOptions).length ? promptOptions : undefined,
    },
    tools: providerDefinitions(registry),
    messages: chat,
    currentMeta: cur,
  });
  const dir = cacheDir(home);
  const hit = await cacheRead(dir, key, warn);
  if (hit) {
    options.onEvent?.({ type: "cache", hit: true, key });
    return result(hit.messages, true);
  }
  if (offline) throw notCached(endpoint ?? "", backendName, settings.model, key);
  return withCacheLock(dir, key, async () => {
    const again = await cacheRead(dir, key, warn);
    if (again) {
      options.onEvent?.({ type: "cache", hit: true, key });
      return result(again.messages, true);
    }
    options.onEvent?.({ type: "cache", hit: false, key });
    const out = await run();
    try {
      await cacheWrite(dir, key, {
        v: 1,
        created: new Date().toISOString(),
        endpoint: endpoint ?? "",
        backend: backendName,
        model: settings.model,
        messages: out,
      });
    } catch (e) {
      warn(`Cannot store the answer in the cache: ${(e as Error).message}`);
    }
    return result(out, false);
  });
}

function notCached(endpoint: string, backend: string, model: string, key: string): ScoutError {
  const where = endpoint ? `endpoint "${endpoint}"` : `backend "${backend}"`;
  return new ScoutError(
    "not_cached",
    `Offline: no cached answer for ${where} (model "${model}"), request digest ${key}`,
    { endpoint, backend, model, digest: key },
  );
}
