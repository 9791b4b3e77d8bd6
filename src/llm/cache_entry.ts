/**
 * What an inference-cache entry is: the two formats the cache reads
 * ({@link CachedRound}, format 2, one per round of the tool loop — or
 * {@link CachedFailure}, a round whose query failed for good — and
 * {@link CachedAsk}, format 1, one per ask) and their schemas, written from
 * what the store side puts in an entry (`ask_cache.ts`'s store of a played
 * round's `record`: the reply's {@link ReplyItem}s, the meta message
 * `serializeMeta` wrote, the `[start, end]` stamps of the tool outputs). An
 * entry that does not match is corrupt, or of another format: a miss
 * (`cache.ts`). The schemas check types and shapes only, never the contents
 * of strings (entries are read on every hit; a text may be long).
 *
 * @module
 */
import { z } from "zod";
import type { Message } from "../chat/types.ts";
import { parseMeta, TOKEN_KEYS } from "../chat/meta.ts";
import { CACHE_VERSION, type CacheKeyParts, ROUND_CACHE_VERSION } from "./cache_key.ts";
import type { RecordedError, RetryNote } from "./ask_loop_types.ts";
import type { ReplyItem } from "./types.ts";

/** A stored ask result. */
export interface CachedAsk {
  /** Format version. */
  v: number;
  /** When it was stored. */
  created: string;
  /** Endpoint it was produced with (`""` for none). */
  endpoint: string;
  /** Backend it was produced with. */
  backend: string;
  /** Model it was produced with. */
  model: string;
  /** The produced messages (metas with their original inference ids). */
  messages: Message[];
}

/** What every round entry, a reply or a failure, starts with. */
export interface CachedEntryHead {
  /** Format version ({@link ROUND_CACHE_VERSION}). */
  v: number;
  /** When it was stored. */
  created: string;
  /** Endpoint it was produced with (`""` for none). */
  endpoint: string;
  /** Backend it was produced with. */
  backend: string;
  /** Model it was produced with. */
  model: string;
  /** Which round of its ask it was (information only). */
  round: number;
}

/** A stored round of the tool loop: what replays it. */
export interface CachedRound extends CachedEntryHead {
  /** The reply's items (texts, tool calls with their ids and thinking blocks, messages). */
  items: ReplyItem[];
  /** The provider's response id (threading), when there was one. */
  id?: string;
  /** The round's meta message, or null (meta records off). */
  meta: Message | null;
  /** The `incomplete=true` meta messages of its retried attempts that reported usage. */
  retried?: Message[];
  /** `[start_timestamp, timestamp]` of each tool output of the round, in order. */
  stamps: ([string, string] | null)[];
  /** The retries its query met (absent: none, or written before they were recorded). */
  retries?: RetryNote[];
  /**
   * Digests of the parts of its key (messages, tools, params, currentMeta):
   * what an offline miss compares to say why it missed. Absent in entries
   * written before them; never read on a hit.
   */
  parts?: CacheKeyParts;
}

/**
 * A round whose query failed for good (its retries used up, or not
 * retryable): replayed by an offline replay only (it fails alike); online it
 * is a miss, asked again, and an answer replaces it. It has no `items`, so a
 * scout-ai of before failure entries reads it as corrupt: a miss, never a
 * reply.
 */
export interface CachedFailure extends CachedEntryHead {
  /** The error, as the run saw it. */
  failure: RecordedError;
  /** What the failed round added to its ask's messages (billed attempts' records, a partial answer). */
  messages: Message[];
  /** The retries its query met before it failed. */
  retries?: RetryNote[];
  /** Digests of the parts of its key (as {@link CachedRound}'s). */
  parts?: CacheKeyParts;
}

/** A message as the loop made it: a role and a content (any JSON), extra fields kept. */
const message = z.looseObject({ role: z.string(), content: z.unknown() });

/** A tool call's name, arguments (any JSON, present) and the provider's call id. */
const call = { name: z.string(), arguments: z.unknown(), id: z.string() };

/** A `ThinkingBlock` (`types.ts`): what a request sends back, its other fields kept. */
const thinkingBlock = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("thinking"), thinking: z.string(), signature: z.string() }),
  z.looseObject({ type: z.literal("redacted_thinking"), data: z.string() }),
]);

/** The thinking blocks a text or a call carries (`thinking.ts`), if any. */
const thinking = { thinking: z.array(thinkingBlock).optional() };

/** One {@link ReplyItem}. */
const replyItem = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string(), ...thinking }),
  z.object({ type: z.literal("call"), ...call, ...thinking }),
  z.object({ type: z.literal("hosted_call"), ...call, output: z.string() }),
  z.object({ type: z.literal("message"), message }),
]);

/** Where an entry was produced (information only, always written). */
const origin = {
  created: z.string(),
  endpoint: z.string(),
  backend: z.string(),
  model: z.string(),
};

/** The digests of a key's parts ({@link CacheKeyParts}). */
const parts = z.object({
  messages: z.string(),
  tools: z.string(),
  params: z.string(),
  currentMeta: z.string(),
});

/** The retries a round's query met ({@link RetryNote}). */
const retries = z.array(
  z.object({ attempt: z.number().int().min(1), delayMs: z.number(), error: z.string() }),
).optional();

/** Every token count and total a meta record carries: per response, the session's and the chat's. */
const TOKEN_COUNT_KEYS = TOKEN_KEYS.flatMap((k) => [k, `${k}_s`, `${k}_c`]);

/**
 * Whether a parsed meta value is an integer as `nextMeta` writes one:
 * `String(n)` of a finite integer — a safe one parses as a number; a larger
 * one stays the text `String` gave it (`100000000000000000000`, `1e+21`).
 * Any sign: the writer keeps what a provider reported (a negative count) and
 * carries on a chat's edited totals (R144-2, R144-3).
 */
function writtenInteger(v: unknown): boolean {
  if (typeof v === "number") return Number.isInteger(v);
  if (typeof v !== "string") return false;
  const n = Number(v);
  return Number.isInteger(n) && String(n) === v;
}

/**
 * What is wrong with a meta record's token counts (R142-4): each is an
 * integer as `nextMeta` writes it ({@link writtenInteger}) — never `abc`,
 * `Infinity`, `NaN`, `1.5` or `1e308` (`String` writes `1e+308`), which an
 * edited entry replayed into the chat as they were.
 *
 * @param content the record's text
 * @returns the problem, or null
 */
export function metaTokenProblem(content: string): string | null {
  const m = parseMeta(content);
  for (const k of TOKEN_COUNT_KEYS) {
    const v = m[k];
    if (v !== undefined && !writtenInteger(v)) {
      return `token count ${k}="${String(v)}" is not an integer`;
    }
  }
  return null;
}

/** A meta message as `liveMeta` writes it: a meta record, serialized, its token counts integers. */
const metaMessage = z.object({
  role: z.literal("meta"),
  content: z.string().superRefine((content, ctx) => {
    const problem = metaTokenProblem(content);
    if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
  }),
});

/**
 * A round entry (format 2). Not strict: a field it does not name is accepted
 * (and kept, `cache.ts` returns the entry as read) — how an older scout-ai
 * reads an entry written with `parts`, and this one an entry of a later one.
 */
export const ROUND_ENTRY: z.ZodType<CachedRound> = z.object({
  // what a replay uses first: a warning names these problems before the rest
  v: z.literal(ROUND_CACHE_VERSION),
  items: z.array(replyItem),
  id: z.string().optional(),
  meta: metaMessage.nullable(),
  retried: z.array(metaMessage).optional(),
  stamps: z.array(z.tuple([z.string(), z.string()]).nullable()),
  ...origin,
  round: z.number().int().min(1),
  parts: parts.optional(),
  retries,
});

/**
 * A failure entry (format 2, {@link CachedFailure}); its snapshot's name is
 * a plain file name (a stamp and hex digits), never a path.
 */
export const FAILURE_ENTRY: z.ZodType<CachedFailure> = z.object({
  v: z.literal(ROUND_CACHE_VERSION),
  failure: z.object({
    code: z.string(),
    message: z.string(),
    fields: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
    snapshot: z.string().regex(/^[\w-]+$/).optional(),
  }),
  messages: z.array(message),
  retries,
  ...origin,
  round: z.number().int().min(1),
  parts: parts.optional(),
});

/**
 * Whether a round entry is a failure entry.
 *
 * @param entry the entry
 * @returns true for a {@link CachedFailure}
 */
export function isFailureEntry(entry: CachedRound | CachedFailure): entry is CachedFailure {
  return "failure" in entry;
}

/**
 * The schema a parsed round entry is checked against: {@link FAILURE_ENTRY}
 * when it has a `failure`, else {@link ROUND_ENTRY} (whose warnings name
 * the reply's problems).
 *
 * @param data the parsed JSON
 * @returns the schema
 */
export function roundEntrySchema(data: unknown): z.ZodType<CachedRound | CachedFailure> {
  const failure = typeof data === "object" && data !== null && "failure" in data;
  return failure ? FAILURE_ENTRY : ROUND_ENTRY;
}

/** A whole-ask entry (format 1). */
export const ASK_ENTRY: z.ZodType<CachedAsk> = z.object({
  v: z.literal(CACHE_VERSION),
  messages: z.array(message),
  ...origin,
});

/**
 * What is wrong with a parsed entry, for the warning of a miss: the first
 * problem the schema finds, with where it is (`items.0.name: …`), and how
 * many more there are.
 *
 * @param schema {@link ROUND_ENTRY} or {@link ASK_ENTRY}
 * @param data the parsed JSON
 * @returns the problem, or null when the entry is one
 *
 * @example
 * ```ts
 * import { entryProblem, ROUND_ENTRY } from "./cache_entry.ts";
 * entryProblem(ROUND_ENTRY, { v: 2, items: [null] }); // "items.0: Invalid input: … (and 7 more)"
 * ```
 */
export function entryProblem(schema: z.ZodType, data: unknown): string | null {
  const checked = schema.safeParse(data);
  if (checked.success) return null;
  const issue = checked.error.issues[0];
  if (!issue) return "unexpected shape";
  const where = issue.path.length ? issue.path.join(".") : "entry";
  const more = checked.error.issues.length - 1;
  return `${where}: ${issue.message}${more ? ` (and ${more} more)` : ""}`;
}
