/**
 * The cache stage of an ask (`inference.md` §6, offline replay): the
 * inference cache as the loop's round source. Every round is looked up by the
 * key of its own request; a hit replays the recorded reply (tools run again,
 * outputs restamped), a miss queries the provider under the key's lock and
 * stores the round — or, offline, fails with `not_cached`. A whole-ask entry
 * of the earlier format still answers an ask as it did.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Message } from "../chat/types.ts";
import { isScoutError } from "../errors.ts";
import { providerDefinitions } from "../tools/registry.ts";
import type { AskModel } from "./ask_backend.ts";
import type { AskContext, AskRequest } from "./ask_options.ts";
import type {
  PlayedRound,
  PlayRound,
  RecordedFailure,
  RecordedRound,
  RoundSource,
  RoundState,
} from "./ask_loop_types.ts";
import {
  type CachedFailure,
  cacheDir,
  type CachedRound,
  type CacheKeyInput,
  type CacheKeyParts,
  cacheKeyParts,
  cacheRead,
  cacheReadEntry,
  isFailureEntry,
  ROUND_CACHE_VERSION,
  roundCacheKey,
  roundCacheKeys,
  withCacheLock,
} from "./cache.ts";
import type { PreparedChat } from "./ask_tools.ts";
import { indexEntryBehind } from "./cache_index.ts";
import { missHint } from "./cache_miss_hint.ts";
import {
  type KeyAlias,
  keyAliases,
  keyMessages,
  replayedRound,
  storedRound,
} from "./key_aliases.ts";
import { sha256hex } from "../util/hash.ts";
import { missNote, notCached } from "./replay_miss.ts";
import { failedRoundOf } from "./round_failure.ts";
import { snapshotName } from "./snapshot.ts";

export { isReplayMiss, notCached } from "./replay_miss.ts";

/** Plays a round: the recorded one, or (null) a live query (its reply handed over once in). */
type Play = PlayRound;

/**
 * The round keys in progress along the calling chain: an ask run by a
 * round's tools (a specialist, a workflow tool's chat) sees its callers'.
 */
const roundsInProgress = new AsyncLocalStorage<ReadonlySet<string>>();

/**
 * The key of a round whose request is byte for byte one its callers have in
 * progress (an agent handing its own question to a copy of itself): the
 * caller holds that key's lock until its tools — this ask — are done, so
 * waiting on it would never end, and one entry cannot hold both replies. The
 * nested round gets a key of its own, derived from the caller's, the same
 * when it is recorded and when it is replayed.
 *
 * @param key the round's key
 * @param callers the keys in progress along the calling chain
 * @returns `key`, or the first derived key no caller has
 */
export function nestedRoundKey(key: string, callers: ReadonlySet<string> | undefined): string {
  let k = key;
  while (callers?.has(k)) k = sha256hex(`${k}\nnested`);
  return k;
}

/** `warn`, saying each message once. */
function onceEach(warn: (message: string) => void): (message: string) => void {
  const told = new Set<string>();
  return (m) => {
    if (told.size < told.add(m).size) warn(m);
  };
}

/** Cache directories this process found it cannot use: later asks skip their locks. */
const unusableDirs = new Set<string>();

/** The inference cache of one ask. */
export interface AskCache extends RoundSource {
  /** The whole-ask entry of the earlier format, if one answers this ask. */
  legacy(): Promise<Message[] | null>;
  /** True when every round so far came from the cache (and there was one). */
  allHits(): boolean;
}

function recordedOf(entry: CachedRound): RecordedRound {
  return {
    items: entry.items,
    ...(entry.id ? { id: entry.id } : {}),
    meta: entry.meta,
    ...(entry.retried ? { retried: entry.retried } : {}),
    stamps: entry.stamps,
    ...(entry.retries ? { retries: entry.retries } : {}),
  };
}

function failureOf(entry: CachedFailure): RecordedFailure {
  return {
    failure: entry.failure,
    messages: entry.messages,
    ...(entry.retries ? { retries: entry.retries } : {}),
  };
}

/**
 * What every key of one ask shares: its endpoint, model, parameters and tools;
 * under a rerun's key aliases (`key_aliases.ts`), its messages as the first
 * run's.
 */
function keyMaker(
  req: AskRequest,
  prepared: PreparedChat,
  model: AskModel,
  aliases: readonly KeyAlias[] | undefined,
) {
  const tools = providerDefinitions(prepared.registry);
  const keyed = aliases ? keyMessages(aliases) : (messages: Message[]) => messages;
  // what shapes what is sent: the ask's own strategy settings, and those the config or the
  // environment gives that differ from the defaults (R140-1); none: keys unchanged
  const promptSettings = { ...model.promptFromConfig, ...model.promptOptions };
  return (
    params: Record<string, unknown>,
    prevId: string | undefined,
    messages: Message[],
    currentMeta: unknown,
  ): CacheKeyInput => ({
    endpoint: req.endpoint ?? "",
    backend: model.backendName,
    model: model.settings.model,
    params: {
      ...model.params,
      params,
      previousResponseId: prevId ?? null,
      prompt: req.opts.prompt_strategies ?? null,
      promptSettings: Object.keys(promptSettings).length ? promptSettings : undefined,
    },
    tools,
    messages: keyed(messages),
    currentMeta,
  });
}

/**
 * A live round under the key's lock: re-check, else play it and store what
 * it recorded (behind) — or the failure that ended it. A failure entry is no
 * answer online (the round is asked again, and its store replaces the
 * entry); a failure again keeps its snapshot's name.
 */
function liveRound(
  dir: string,
  key: string,
  state: RoundState,
  parts: () => CacheKeyParts,
  play: Play,
  on: {
    hit: (entry: CachedRound) => Promise<PlayedRound>;
    miss: () => void;
    warn: AskContext["warn"];
    /** The ask's signal: it ends a wait on another process's lock (R142-1). */
    signal?: AbortSignal | undefined;
  },
  origin: { endpoint: string; backend: string; model: string },
): Promise<PlayedRound> {
  return withCacheLock(dir, key, async (store, keep) => {
    const again = await cacheReadEntry(dir, key, on.warn);
    if (again && !isFailureEntry(again)) return await on.hit(again);
    on.miss();
    // of the request as sent: before the round, whose messages follow it
    const keyParts = parts();
    const entry = (record: RecordedRound | RecordedFailure) => ({
      v: ROUND_CACHE_VERSION,
      created: new Date().toISOString(),
      ...origin,
      round: state.round,
      ...record,
      parts: keyParts,
    });
    // written behind (the key locked until then): the ask settles it, or its caller
    const behind = (record: RecordedRound | RecordedFailure) => {
      store(entry(record)).catch((e) =>
        on.warn(`Cannot store the answer in the cache: ${(e as Error).message}`)
      );
      // what an offline miss's hint reads first (cache_index.ts): written behind too
      indexEntryBehind(dir, key, keyParts.messages).catch((e) => on.warn((e as Error).message));
    };
    // an answer in before the round returns is kept: a process exiting meanwhile stores it
    const played = await play(null, (record) => keep(() => entry(record))).catch((e) => {
      const failed = failedRoundOf(e, state);
      if (failed) {
        // its snapshot is named now, so that the entry names it too
        const name = again?.failure.snapshot ?? snapshotName();
        (e as { snapshotName?: string }).snapshotName = name;
        behind({ ...failed, failure: { ...failed.failure, snapshot: name } });
      }
      throw e;
    });
    behind(played.record);
    return played;
  }, { warn: on.warn, signal: on.signal });
}

/**
 * A round the cache does not hold: played under its key's lock and stored —
 * or, when the file system refuses the cache directory, played without the
 * cache (told once per process).
 */
async function missedRound(
  r: {
    dir: string;
    key: string;
    state: RoundState;
    parts: () => CacheKeyParts;
    play: Play;
    origin: { endpoint: string; backend: string; model: string };
  },
  on: Parameters<typeof liveRound>[5],
  ctx: AskContext,
): Promise<PlayedRound> {
  const uncached = () => {
    on.miss();
    return r.play(null);
  };
  if (unusableDirs.has(r.dir)) return await uncached();
  try {
    const told = { ...on, signal: ctx.options.signal };
    return await liveRound(r.dir, r.key, r.state, r.parts, r.play, told, r.origin);
  } catch (e) {
    if (!isScoutError(e, "cache_unavailable")) throw e;
    // a read-only or foreign home: the cache is optional, the ask is not; a miss cannot be
    // stored, while hits are still read (offline replay works): say so (R166-4)
    unusableDirs.add(r.dir);
    ctx.warn(`${e.message}: new answers are not stored (--no-cache skips the cache)`);
    return await uncached();
  }
}

/** `play`, its record in the first run's terms under key aliases (as its key is), else as is. */
function storedAs(play: Play, aliases: readonly KeyAlias[] | undefined): Play {
  if (!aliases) return play;
  return async (recorded, inHand) => {
    const played = await play(recorded, inHand && ((r) => inHand(storedRound(r, aliases))));
    return { ...played, record: storedRound(played.record, aliases) };
  };
}

/**
 * The keys of an ask's rounds, and the parts of a round's key (for its
 * entry): the first round's request is the ask's, so its round key comes with
 * the whole-ask key ({@link roundCacheKeys}) and is not computed again.
 */
function askKeys(
  req: AskRequest,
  prepared: PreparedChat,
  model: AskModel,
  aliases: readonly KeyAlias[] | undefined,
) {
  const keyInput = keyMaker(req, prepared, model, aliases);
  const { chat, currentMeta, previousResponseId } = prepared;
  let first: string | undefined;
  let tools: string | undefined;
  const input = (state: RoundState) =>
    keyInput(state.params, state.previousResponseId, state.history, state.meta);
  return {
    /** The whole-ask key (the first round's key remembered). */
    legacy() {
      const keys = roundCacheKeys(
        keyInput(model.params.params, previousResponseId, chat, currentMeta),
      );
      first = keys.round;
      return keys.legacy;
    },
    round: (state: RoundState) =>
      first !== undefined && state.history === chat && state.meta === currentMeta &&
        state.params === model.params.params && state.previousResponseId === previousResponseId
        ? first
        : roundCacheKey(input(state)),
    /** The parts of a round's key (the tools', the same every round, computed once). */
    parts(state: RoundState) {
      const parts = cacheKeyParts(input(state), { tools });
      tools = parts.tools;
      return parts;
    },
  };
}

/**
 * Stage: the ask's cache (null when the cache is off).
 *
 * @param req the request
 * @param prepared the prepared chat
 * @param model the model side
 * @param ctx the ask context
 * @returns the cache, or null
 */
export function askCache(
  req: AskRequest,
  prepared: PreparedChat,
  model: AskModel,
  ctx: AskContext,
): AskCache | null {
  if (!model.useCache) return null;
  const dir = cacheDir(ctx.home);
  const origin = {
    endpoint: req.endpoint ?? "",
    backend: model.backendName,
    model: model.settings.model,
  };
  const aliases = keyAliases();
  const keys = askKeys(req, prepared, model, aliases);
  let hits = 0;
  let misses = 0;
  const event = (hit: boolean, key: string) => ctx.options.onEvent?.({ type: "cache", hit, key });
  return {
    async legacy() {
      const key = keys.legacy();
      const hit = await cacheRead(dir, key, ctx.warn);
      if (hit) event(true, key);
      return hit?.messages ?? null;
    },
    allHits: () => hits > 0 && misses === 0,
    async round(state: RoundState, playRound) {
      const callers = roundsInProgress.getStore();
      const key = nestedRoundKey(keys.round(state), callers);
      // the round's tools run with this key in progress along their chain
      const inProgress = new Set(callers).add(key);
      const play: Play = (recorded, inHand) =>
        roundsInProgress.run(inProgress, () => playRound(recorded, inHand));
      const replay = (entry: CachedRound) => {
        hits++;
        event(true, key);
        return play(aliases ? replayedRound(recordedOf(entry), aliases) : recordedOf(entry));
      };
      // a bad entry read at the probe is read again under the lock: told once
      const warn = onceEach(ctx.warn);
      const hit = await cacheReadEntry(dir, key, warn);
      if (hit && !isFailureEntry(hit)) return await replay(hit);
      const parts = () => keys.parts(state);
      if (model.offline) {
        // a recorded failure fails alike, offline only (online it is asked again)
        if (hit) return await play(failureOf(hit));
        // the error path only: why it missed, from the entries' parts, or what its
        // text suggests (line endings, the places it names)
        const hint = missHint(dir, { ...origin, parts: parts() }) ??
          missNote(state.history, ctx.home);
        throw notCached(origin.endpoint, origin.backend, origin.model, key, hint);
      }
      const miss = () => {
        misses++;
        event(false, key);
      };
      const r = { dir, key, state, parts, play: storedAs(play, aliases), origin };
      return await missedRound(r, { hit: replay, miss, warn }, ctx);
    },
  };
}
