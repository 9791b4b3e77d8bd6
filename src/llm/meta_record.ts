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
