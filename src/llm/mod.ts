/**
 * Inference: `ask(messages, options)` runs the ask pipeline — options, the
 * endpoint, tools, the tool loop with meta records, retries and the inference
 * cache — over pluggable backends (`registerBackend`); `endpoints()` lists the
 * configured endpoints.
 *
 * @example
 * ```ts ignore
 * import { ask } from "./mod.ts";
 * const { text } = await ask([{ role: "user", content: "Hi" }], { endpoint: "nano" });
 * ```
 *
 * @module
 */
export { ask } from "./ask.ts";
export type { Asker, AskOptions, AskResult, AskRuntime } from "./ask.ts";
export type { AskEvent } from "./loop.ts";
export { failureMessages, finalText } from "./loop.ts";
export { endpoints } from "./endpoints.ts";
export type { EndpointSummary } from "./endpoints.ts";
export { backendNames, getBackend, registerBackend, unregisterBackend } from "./registry.ts";
export type {
  Backend,
  BackendDefaults,
  BackendReply,
  BackendRequest,
  ClientSettings,
  ExtraSetting,
  QueryContext,
  ReplyItem,
  ThinkingBlock,
  Truncation,
} from "./types.ts";
export { defaultSession, newSession, nextMeta } from "./meta_record.ts";
export type { MetaWho, NextMetaInput, Session } from "./meta_record.ts";
export { cacheKey, canonicalJson } from "./cache.ts";
export type { CachedAsk, CacheKeyInput } from "./cache.ts";
export { settleCacheWrites } from "./write_behind.ts";
export { formatToText, PIPELINE_KEYS, providerParams } from "./params.ts";
export type { ProviderParams } from "./params.ts";
export { DEFAULT_BACKEND, resolveSettings } from "./settings.ts";
export type { ResolveSettingsOptions } from "./settings.ts";
export { retryDelay, withRetries } from "./retry.ts";
export type { RetryOptions } from "./retry.ts";
