/**
 * Meta records of inference (`inference.md` §4): one per provider response,
 * with the response's token counts, session (`_s`) and chat (`_c`) running
 * totals, a fresh `inference_id`, the provider's response id, reasoning and a
 * millisecond timestamp — built in the order that makes `serializeMeta`
 * produce the Ruby layout.
 *
 * @module
 */
import type { MetaRecord, TokenKey } from "../chat/meta.ts";
import { normalizeUsage, toInt, TOKEN_KEYS } from "../chat/meta.ts";

/** Session running totals (`_s`): one per process by default. */
export interface Session {
  /** Totals per token key. */
  totals: Partial<Record<TokenKey, number>>;
}

/**
 * A new, empty session.
 *
 * @returns `{totals: {}}`
 */
export function newSession(): Session {
  return { totals: {} };
}

/** The process-wide default session. */
export const defaultSession: Session = newSession();

/** The session (`_s`) and chat (`_c`) total keys of each token key, made once. */
const TOTAL_KEYS = TOKEN_KEYS.map((k) => [k, `${k}_s`, `${k}_c`] as const);

/** Inputs of {@link nextMeta}. */
export interface NextMetaInput {
  /** The provider's usage block. */
  usage: unknown;
  /** The previous meta (current meta of the chat, or the previous round's). */
  previous: MetaRecord;
  /** Session totals, updated in place. */
  session: Session;
  /** The new inference id. */
  inferenceId: string;
  /** Provider response id, if any. */
  providerResponseId?: string;
  /** Reasoning text, if any. */
  reasoning?: string;
  /** When the response arrived. */
  timestamp: Date;
  /** Who answered: model, backend and endpoint name (written as `model=`, `backend=`, `endpoint=`). */
  who?: MetaWho;
}

/**
 * Who answered an inference. These keys are extra to Ruby's record: its
 * reader keeps and ignores them, and records without them still read
 * (provenance groups them as `unknown`).
 */
export interface MetaWho {
  /** Model name as sent. */
  model?: string;
  /** Backend name. */
  backend?: string;
  /** Endpoint name, when the ask used one. */
  endpoint?: string | null;
}

/**
 * Builds the meta record of one response.
 *
 * @param i usage, previous meta, session, ids, reasoning and time
 * @returns the record, keys in build order (tokens, inference_id,
 *   provider_response_id, `_s`, `_c`, reas, timestamp, model, backend, endpoint)
 *
 * @example
 * ```ts
 * import { newSession, nextMeta } from "./meta_record.ts";
 * const m = nextMeta({ usage: { prompt_tokens: 7, total_tokens: 7 }, previous: { pt_c: 2, ct_c: 3, tt_c: 5 },
 *   session: newSession(), inferenceId: "id1", timestamp: new Date(0) });
 * // m.pt === 7, m.pt_c === 9, m.ct_c === 3, m.tt_c === 12
 * ```
 */
export function nextMeta(i: NextMetaInput): MetaRecord {
  const tokens = normalizeUsage(i.usage);
  const out: MetaRecord = {};
  for (const k of TOKEN_KEYS) if (tokens[k] !== undefined) out[k] = tokens[k]!;
  out.inference_id = i.inferenceId;
  if (i.providerResponseId) out.provider_response_id = i.providerResponseId;
  for (const [k, s] of TOTAL_KEYS) {
    if (tokens[k] === undefined) continue;
    i.session.totals[k] = (i.session.totals[k] ?? 0) + tokens[k]!;
    out[s] = i.session.totals[k]!;
  }
  for (const [k, , c] of TOTAL_KEYS) out[c] = toInt(i.previous[c]) + (tokens[k] ?? 0);
  if (i.reasoning) out.reas = i.reasoning.replace(/\r\n|\r|\n/g, " ");
  out.timestamp = i.timestamp.toISOString();
  if (i.who?.model) out.model = i.who.model;
  if (i.who?.backend) out.backend = i.who.backend;
  if (i.who?.endpoint) out.endpoint = i.who.endpoint;
  return out;
}

/** Chat totals per token key (`<k>_c`). */
export type ChatTotals = Record<TokenKey, number>;

/**
 * The chat totals a record was built on (§4.3: each `<k>_c` less the
 * record's own `<k>`), or null when it has no `_c` key.
 *
 * @param m a meta record
 * @returns the totals before it, or null
 *
 * @example
 * ```ts
 * import { chatTotalsBase } from "./meta_record.ts";
 * chatTotalsBase({ pt: 7, tt: 7, pt_c: 9, ct_c: 3, tt_c: 12 })!.tt; // 5
 * ```
 */
export function chatTotalsBase(m: MetaRecord): ChatTotals | null {
  if (!TOTAL_KEYS.some(([, , c]) => c in m)) return null;
  const out = {} as ChatTotals;
  for (const [k, , c] of TOTAL_KEYS) out[k] = toInt(m[c]) - toInt(m[k]);
  return out;
}

/**
 * The chat totals of a record: each `<k>_c` (0 when absent).
 *
 * @param m a meta record (a chat's current meta, §4.3)
 * @returns the totals
 */
export function chatTotalsOf(m: MetaRecord): ChatTotals {
  const out = {} as ChatTotals;
  for (const [k, , c] of TOTAL_KEYS) out[k] = toInt(m[c]);
  return out;
}

/** A `<k>_c=<integer>` word of a serialized record. */
const TOTAL_WORD = /(^| )(pt|ct|tt|cct|cwt|rt)_c=(-?\d+)(?= |$)/g;

/**
 * A serialized record (`serializeMeta`) with each `<k>_c` moved by
 * `delta[k]`, the rest of its text kept byte for byte (its layout is
 * Ruby's). Only the words before a quoted value are read: a `reas="… pt_c=1"`
 * is text, and numbers are written before every string value.
 *
 * @param content the record's text
 * @param delta what to add to each total
 * @returns the text
 *
 * @example
 * ```ts
 * import { shiftChatTotals } from "./meta_record.ts";
 * shiftChatTotals("pt=2 pt_c=2 ct_c=0 tt_c=2", { pt: 5, ct: 0, tt: 5, cct: 0, cwt: 0, rt: 0 });
 * // "pt=2 pt_c=7 ct_c=0 tt_c=7"
 * ```
 */
export function shiftChatTotals(content: string, delta: ChatTotals): string {
  const quote = content.indexOf('"');
  const end = quote === -1 ? content.length : content.lastIndexOf(" ", quote) + 1;
  const head = content.slice(0, end).replace(
    TOTAL_WORD,
    (_, space: string, k: TokenKey, v: string) => `${space}${k}_c=${Number(v) + delta[k]}`,
  );
  return head + content.slice(end);
}
