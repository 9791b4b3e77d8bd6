/**
 * `ask(messages, options)` — the ask pipeline (`inference.md` §2.1), a short
 * run of named stages that share one {@link AskContext}:
 *
 * 1. `requireCompiled` — messages must be compiled (`compile*` from `chat/`);
 * 2. `resolveRequest` — chat options over call options, the endpoint file
 *    under both (`ask_options.ts`); `delegateAsk` when the chat names an agent;
 * 3. `prepareChat` — current meta out, tools from the whole chat,
 *    `previous_response_id` threading, websearch (`ask_tools.ts`);
 * 4. `resolveModel` — backend, client settings, limits, prompt strategies,
 *    provider parameters, cache mode (`ask_backend.ts`);
 * 5. `askCache` — the inference cache, round by round (`ask_cache.ts`);
 * 6. `runAsk` — the tool loop (`loop.ts`, rounds in `ask_round.ts`), a failure
 *    snapshot on query failures, then the result.
 *
 * Run-scoped resources registered on `ctx.onClose` are closed when the ask
 * ends, whatever the outcome (`closeAsk`), and the cache entries written
 * behind are settled (`write_behind.ts`) unless the caller settles them.
 *
 * @module
 */
import { withWarningSink } from "../util/warn_once.ts";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import type { Message } from "../chat/types.ts";
import { isScoutError } from "../errors.ts";
import { type AskModel, resolveModel } from "./ask_backend.ts";
import { type AskCache, askCache } from "./ask_cache.ts";
import {
  type AskContext,
  askContext,
  type AskRequest,
  closeAsk,
  delegateAsk,
  requireCompiled,
  resolveRequest,
} from "./ask_options.ts";
import { prepareChat, type PreparedChat } from "./ask_tools.ts";
import type { AskOptions, AskResult } from "./ask_types.ts";
import { finalText, runLoop } from "./loop.ts";
import { type InferenceTally, noteInference, tallyInferences } from "./inference_tally.ts";
import { defaultSession } from "./meta_record.ts";
import { writeSnapshot } from "./snapshot.ts";
import { addToMessage } from "./error_location.ts";
import { sameOriginFetch } from "../util/same_origin_fetch.ts";
import { defaultFetch } from "../util/http_client.ts";
import { settleCacheWrites } from "./write_behind.ts";

export { COMPILE_ROLES, RUNTIME_KEYS } from "./ask_types.ts";
export type { Asker, AskOptions, AskResult, AskRuntime } from "./ask_types.ts";
export type { AskContext } from "./ask_options.ts";

/**
 * Asks a model: runs the whole pipeline and returns the new messages and the
 * answer text.
 *
 * @param messages compiled chat messages (not modified)
 * @param options chat-level options (`model`, `endpoint`, `temperature`…; the
 *   chat's own option lines win over these), `tools`, and runtime hooks
 * @returns the result
 * @throws ScoutError `endpoint_not_found`, `unknown_backend`, `missing_key`,
 *   `provider_http`, `provider_response`, `timeout`, `tool_loop_limit`,
 *   `not_cached` (offline)… — failures during the loop carry the messages
 *   produced so far in `messages`
 *
 * @example
 * ```ts ignore
 * import { ask } from "./ask.ts";
 * const r = await ask([{ role: "user", content: "Say hi" }], {
 *   backend: "openai", url: "http://127.0.0.1:8080", model: "test", persist: false,
 * });
 * console.log(r.text);
 * ```
 */
export function ask(
  messages: readonly Message[],
  options: AskOptions = {},
): Promise<AskResult> {
  // what the config layer finds in a file during this ask is told to the caller's warn
  return withWarningSink(options.warn, () => askIn(messages, options));
}

async function askIn(messages: readonly Message[], options: AskOptions): Promise<AskResult> {
  const ctx = askContext(options);
  try {
    requireCompiled(messages);
    const req = await resolveRequest(messages, ctx);
    if (req.agent !== null) return await delegateAsk(req, ctx);
    const prepared = await prepareChat(req, ctx);
    const model = await resolveModel(req, prepared, ctx);
    return await runAsk(req, prepared, model, askCache(req, prepared, model, ctx), ctx);
  } finally {
    await closeAsk(ctx);
    // this ask's cache entries (and its specialists') are on disk when it returns
    if (!options.deferCacheWrites) await settleCacheWrites();
  }
}

/**
 * Stage: the tool loop, through the cache when there is one; a query failure
 * leaves a snapshot of the request under `$SCOUT_HOME/tmp/ask`, named at the
 * end of the error's message (`(snapshot: <path>.chat)`; `.options.json` and
 * `.meta` beside it).
 *
 * @param req the request
 * @param prepared the prepared chat
 * @param model the model side
 * @param cache the cache, or null
 * @param ctx the ask context
 * @returns the result
 */
export async function runAsk(
  req: AskRequest,
  prepared: PreparedChat,
  model: AskModel,
  cache: AskCache | null,
  ctx: AskContext,
): Promise<AskResult> {
  const result = (out: Message[], cached: boolean): AskResult => ({
    messages: out,
    text: finalText(out),
    cached,
    endpoint: req.endpoint,
    backend: model.backendName,
    model: model.settings.model,
  });
  const legacy = await cache?.legacy();
  if (legacy) {
    noteInference("replayed");
    return result(legacy, true);
  }
  const who = { model: model.settings.model, backend: model.backendName, endpoint: req.endpoint };
  // cached: every round replayed, and no specialist asked a provider either (R143-3)
  const tally: InferenceTally = { live: 0, replayed: 0 };
  const loop = () => runLoop({ ...loopInput(prepared, model, cache, ctx), who });
  const out = await tallyInferences(tally, loop).catch(async (e) => {
    // the innermost ask that failed keeps its endpoint, model and snapshot
    if (
      isScoutError(e) && (e.phase === "query" || e.phase === "process_response") &&
      e.snapshotPath === undefined
    ) {
      e.endpoint ??= req.endpoint;
      e.model ??= model.settings.model;
      // named already when the round's failure entry records it (and a replay plays it)
      const name = typeof e.snapshotName === "string" ? e.snapshotName : undefined;
      const path = await snapshot(req, prepared, model, ctx, name);
      if (path !== undefined) {
        e.snapshotPath = path;
        addToMessage(e, ` (snapshot: ${path}.chat)`);
      }
    }
    throw e;
  });
  return result(out, (cache?.allHits() ?? false) && tally.live === 0);
}

function loopInput(
  prepared: PreparedChat,
  model: AskModel,
  cache: AskCache | null,
  ctx: AskContext,
): Parameters<typeof runLoop>[0] {
  const o = ctx.options;
  return {
    messages: prepared.chat,
    backendName: model.backendName,
    backend: model.backend,
    settings: model.settings,
    registry: prepared.registry,
    params: model.params,
    currentMeta: prepared.currentMeta,
    threading: model.threading,
    prepare: model.prepare,
    maxToolRounds: model.maxToolRounds,
    maxReplyToolCalls: model.maxReplyToolCalls,
    logResponse: model.logResponse,
    stream: Boolean(o.stream),
    session: o.session ?? defaultSession,
    // credentials never follow a redirect to another origin (R95-1)
    fetch: sameOriginFetch(o.fetch ?? defaultFetch()),
    now: o.now ?? (() => new Date()),
    newId: o.newId ?? (() => randomUUID()),
    maxContentLength: model.maxContentLength,
    warn: ctx.warn,
    ...(prepared.previousResponseId ? { previousResponseId: prepared.previousResponseId } : {}),
    ...(o.handler ? { handler: o.handler } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.onEvent ? { onEvent: o.onEvent } : {}),
    ...(o.sleep ? { sleep: o.sleep } : {}),
    ...(model.toolConcurrency !== undefined ? { toolConcurrency: model.toolConcurrency } : {}),
    ...(o.runSpecialists ? { runSpecialists: o.runSpecialists } : {}),
    ...(cache ? { rounds: cache } : {}),
  };
}

async function snapshot(
  req: AskRequest,
  prepared: PreparedChat,
  model: AskModel,
  ctx: AskContext,
  name: string | undefined,
): Promise<string | undefined> {
  try {
    return await writeSnapshot(join(ctx.home, "tmp", "ask"), {
      messages: prepared.chat,
      options: {
        ...req.opts,
        backend: model.backendName,
        // whose request it was: an agent's, a specialist's (names only)
        ...(ctx.options.asker ? { asked_by: ctx.options.asker } : {}),
      },
      currentMeta: prepared.currentMeta,
    }, name);
  } catch (se) {
    ctx.warn(`Cannot write the failure snapshot: ${(se as Error).message}`);
    return undefined;
  }
}
