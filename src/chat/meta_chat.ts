/**
 * Meta records inside a chat (`chat.md` §8/§9.4, `inference.md` §4.3): the
 * current meta (token checkpoint), adding a key, and the `job=` projection
 * markers.
 *
 * @module
 */
import type { Chat, Message } from "./types.ts";
import type { MetaRecord } from "./meta.ts";
import { parseMeta, serializeMeta } from "./meta.ts";

const CUMULATIVE_KEYS = ["pt_c", "ct_c", "tt_c", "cct_c", "cwt_c", "rt_c"] as const;

function metaText(m: Message): string {
  return typeof m.content === "string" ? m.content : "";
}

function metas(chat: readonly Message[]): MetaRecord[] {
  return chat.filter((m) => String(m.role) === "meta").map((m) => parseMeta(metaText(m)));
}

/** The index of the last `meta` message at or before `from`, or -1. */
function lastMetaAt(chat: readonly Message[], from: number): number {
  let i = from;
  while (i >= 0 && String(chat[i]!.role) !== "meta") i--;
  return i;
}

/**
 * The current meta of a chat (`inference.md` §4.3): the last `meta` record,
 * with its cumulative `_c` keys taken from the last meta that has any of them
 * (a trailing `meta: job=…` does not reset the chat's token totals).
 *
 * @param chat messages
 * @returns the record, `{}` when the chat has no meta
 *
 * @example
 * ```ts
 * import { currentMeta } from "./meta_chat.ts";
 * currentMeta([
 *   { role: "meta", content: "pt=2 pt_c=2" },
 *   { role: "assistant", content: "a" },
 *   { role: "meta", content: "job=Wf/task/x" },
 * ]); // { job: "Wf/task/x", pt_c: 2 }
 * ```
 */
export function currentMeta(chat: readonly Message[]): MetaRecord {
  // From the end: a chat holds a meta per inference, and only the last ones
  // decide (parsing every one made each ask of a long chat linear in it).
  let i = lastMetaAt(chat, chat.length - 1);
  if (i < 0) return {};
  const out = parseMeta(metaText(chat[i]!)); // a new record: ours to add to
  for (let m = out; !CUMULATIVE_KEYS.some((k) => k in m);) {
    i = lastMetaAt(chat, i - 1);
    if (i < 0) break;
    m = parseMeta(metaText(chat[i]!));
    for (const k of CUMULATIVE_KEYS) if (k in m) out[k] = m[k]!;
  }
  return out;
}

/**
 * The Ruby DSL name of {@link currentMeta} (`chat.meta`).
 *
 * @param chat messages
 * @returns the current meta record, `{}` when there is none
 *
 * @example
 * ```ts
 * import { meta } from "./meta_chat.ts";
 * meta([{ role: "meta", content: "pt=1 ct=2" }]); // { pt: 1, ct: 2 }
 * ```
 */
export function meta(chat: readonly Message[]): MetaRecord {
  return currentMeta(chat);
}

/**
 * Sets `key` in the last `meta` message (replacing that message object with a
 * copy), or appends a new `meta` message. Mutates `chat`.
 *
 * @param chat messages (modified)
 * @param key meta key
 * @param value its value (strings are kept on one line, see `serializeMeta`)
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { addMeta } from "./meta_chat.ts";
 * const chat = [{ role: "user", content: "q" }];
 * addMeta(chat, "job", "Wf/task/x"); // appends { role: "meta", content: "job=Wf/task/x" }
 * ```
 */
export function addMeta(chat: Message[], key: string, value: unknown): Chat {
  for (let i = chat.length - 1; i >= 0; i--) {
    const m = chat[i]!;
    if (String(m.role) !== "meta") continue;
    const record: Record<string, unknown> = parseMeta(metaText(m));
    record[key] = value;
    chat[i] = { ...m, content: serializeMeta(record) };
    return chat;
  }
  chat.push({ role: "meta", content: serializeMeta({ [key]: value }) });
  return chat;
}

/**
 * The distinct non-empty `job` values of all `meta` messages, in order (the
 * jobs whose projections the chat contains).
 *
 * @param chat messages
 * @returns job short paths or paths
 *
 * @example
 * ```ts
 * import { jobPaths } from "./meta_chat.ts";
 * jobPaths([{ role: "meta", content: "job=A/t/1" }, { role: "meta", content: "job=A/t/1" }]); // ["A/t/1"]
 * ```
 */
export function jobPaths(chat: readonly Message[]): string[] {
  const seen = new Set<string>();
  for (const m of metas(chat)) {
    const job = m.job;
    if (job !== undefined && String(job) !== "") seen.add(String(job));
  }
  return [...seen];
}

/**
 * The `job` of the last `meta` message.
 *
 * @param chat messages
 * @returns the job, or null when the last meta has none (or there is no meta)
 *
 * @example
 * ```ts
 * import { lastJob } from "./meta_chat.ts";
 * lastJob([{ role: "meta", content: "job=A/t/1" }, { role: "meta", content: "pt=3" }]); // null
 * ```
 */
export function lastJob(chat: readonly Message[]): string | null {
  const i = lastMetaAt(chat, chat.length - 1);
  const job = i < 0 ? undefined : parseMeta(metaText(chat[i]!)).job;
  return job === undefined || String(job) === "" ? null : String(job);
}
