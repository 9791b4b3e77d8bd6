/**
 * `agent_meta` receipts (`provenance.md` §8): a tool that runs an agent copies
 * the child's `meta` records into its `function_call_output` envelope. They
 * are evidence attached to that output — never `meta` messages of the parent
 * chat. Malformed entries are reported as {@link ReceiptProblem}s and skipped;
 * raw output text is never scanned.
 *
 * @module
 */
import type { Message } from "./types.ts";
import { type MetaRecord, parseMeta } from "./meta.ts";
import {
  type MessageAddress,
  messageAddress,
  type ReceiptAddress,
  receiptAddress,
} from "./lineage.ts";
import { nonEmpty } from "./trace.ts";
import { callIdOf, contentObject, pairToolCalls, type ToolCall } from "./tool_calls.ts";

/** Why a receipt (entry) was rejected. */
export type ReceiptReason =
  | "not_an_array"
  | "not_a_hash"
  | "invalid_role"
  | "invalid_content"
  | "unparseable_meta"
  | "unresolved_job_reference";

/** A rejected receipt or receipt entry (`provenance.md` §8.3). */
export interface ReceiptProblem {
  /** What was wrong. */
  reason: ReceiptReason;
  /** Canonical path of the chat, or null. */
  source: string | null;
  /** Address of the output message carrying the receipt. */
  outputAddress: MessageAddress | null;
  /** Address of the entry (null for `not_an_array`). */
  evidenceAddress: ReceiptAddress | null;
  /** Call id of the output. */
  callId: string | null;
  /** Tool name of the call. */
  toolName: string | null;
  /** Position of the entry in `agent_meta` (null for `not_an_array`). */
  agentMetaIndex: number | null;
  /** The offending value (the whole `agent_meta` value for `not_an_array`). */
  rawEntry: unknown;
  /** The job reference, for `unresolved_job_reference`. */
  reference: string | null;
  /** One line naming the reason, chat, output address, call, tool and reference. */
  message: string;
  /** What exactly was wrong, in words. */
  detail: string;
}

/** A valid receipt entry. */
export interface ReceiptEvidence {
  /** Always `agent_meta`. */
  origin: "agent_meta";
  /** Parsed meta record of the entry. */
  meta: MetaRecord;
  /** Canonical path of the chat holding the output, or null. */
  source: string | null;
  /** Address of the output message. */
  outputAddress: MessageAddress;
  /** Address of the entry: `[...outputAddress, "agent_meta", i]`. */
  evidenceAddress: ReceiptAddress;
  /** Call id of the output. */
  callId: string | null;
  /** Tool name of the call. */
  toolName: string | null;
  /** Position of the entry in `agent_meta`. */
  agentMetaIndex: number;
  /** The entry as written. */
  rawMessage: { role: string; content: string };
}

/** A receipt entry that names a job (`job=` in its meta). */
export interface ReceiptJobReference extends ReceiptEvidence {
  /** The raw job reference (`String(meta.job)`). */
  job: string;
}

/** A local `meta` message as evidence. */
export interface ChatMetaEvidence {
  /** Always `chat_meta`. */
  origin: "chat_meta";
  /** Parsed meta record (lenient: may be `{}`). */
  meta: MetaRecord;
  /** Canonical path of the chat, or null. */
  source: string | null;
  /** Address of the meta message. */
  metaAddress: MessageAddress;
}

/** Options of the receipt extractors. */
export interface ReceiptOptions {
  /** Canonical path of the chat (addresses include it). */
  source?: string | null;
  /** When given, every problem is appended here (once). */
  warnings?: ReceiptProblem[];
  /** Pre-computed {@link toolCalls} of the same messages (avoids pairing twice). */
  calls?: readonly ToolCall[];
}

function isEmptyRecord(r: Record<string, unknown>): boolean {
  for (const _ in r) return false;
  return true;
}

function typeName(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "an array" : `a ${typeof v}`;
}

/**
 * The reference a receipt problem names, as the text its messages end with
 * (` reference <ref>`): the job reference when there is one, else the raw
 * entry (for `not_an_array` the whole `agent_meta` value), as Ruby's
 * `reference || raw_entry`. Strings are printed as they are, other scalars as
 * text, objects and arrays as JSON (Ruby prints `inspect`); `null`, `false`
 * and an absent entry add nothing.
 *
 * @param p the problem
 * @returns ` reference <ref>` or the empty string
 *
 * @example
 * ```ts
 * import { receiptReferenceSuffix } from "./receipts.ts";
 * receiptReferenceSuffix({ reference: null, rawEntry: "oops" }); // " reference oops"
 * ```
 */
export function receiptReferenceSuffix(
  p: Pick<ReceiptProblem, "reference" | "rawEntry">,
): string {
  const ref: unknown = p.reference ?? p.rawEntry;
  if (ref === null || ref === undefined || ref === false) return "";
  const text = typeof ref === "string"
    ? ref
    : typeof ref === "object"
    ? JSON.stringify(ref)
    : String(ref);
  return ` reference ${text}`;
}

/**
 * The one-line message of a receipt problem:
 * `agent_meta receipt <reason> in chat <path> at output <address> (call <id>, tool <name>)[ reference <ref>]`,
 * where `<ref>` is the job reference or else the raw entry ({@link receiptReferenceSuffix}).
 *
 * @param p the problem (message fields ignored)
 * @returns the message
 */
export function receiptProblemMessage(
  p: Omit<ReceiptProblem, "message" | "detail">,
): string {
  return `agent_meta receipt ${p.reason} in chat ${p.source ?? "(unsaved)"} at output ${
    JSON.stringify(p.outputAddress)
  } (call ${p.callId ?? "?"}, tool ${p.toolName ?? "?"})${receiptReferenceSuffix(p)}`;
}

/**
 * Builds a {@link ReceiptProblem} with its message.
 *
 * @param fields everything but `message`
 * @returns the problem
 */
export function receiptProblem(fields: Omit<ReceiptProblem, "message">): ReceiptProblem {
  return { ...fields, message: receiptProblemMessage(fields) };
}

/**
 * Could this output carry `agent_meta`? A JSON key can only be `agent_meta`
 * if the text says so or uses `\u` escapes. (Literal searches beat one
 * `/agent_meta|\\u/` test: the engines search a literal much faster than
 * an alternation, and this runs over every tool output of a store.)
 */
function mayCarryReceipt(m: Message): boolean {
  const c = m.content;
  if (typeof c === "string") return mentionsAgentMeta(c) || c.indexOf("\\u") !== -1;
  return c !== null && typeof c === "object";
}

/**
 * `text.includes("agent_meta")`, searching for `_meta` first: the engines
 * skip to a rare first character much faster than to a common one (twice as
 * fast over a store's outputs, in Bun).
 */
function mentionsAgentMeta(text: string): boolean {
  for (let k = text.indexOf("_meta"); k !== -1; k = text.indexOf("_meta", k + 5)) {
    if (k >= 5 && text.startsWith("agent", k - 5)) return true;
  }
  return false;
}

const PLAIN_ID = /^[A-Za-z0-9_.:-]+$/;

/**
 * The paired calls whose output has the key `agent_meta` — what
 * `toolCalls(messages).filter(...)` gives, without parsing every call and
 * output of the chat: only the calls and outputs that can share an id with a
 * receipt-carrying output take part in the pairing (pairing never crosses
 * ids), and a message whose text does not contain such an id cannot have it.
 * The receipt-carrying outputs are parsed once.
 */
function receiptCalls(messages: readonly Message[], source: string | null): ToolCall[] {
  const ids = new Set<string>();
  const parsed = new Map<number, Record<string, unknown>>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role !== "function_call_output" || !mayCarryReceipt(m)) continue;
    const obj = contentObject(m.content);
    if (obj === null || !Object.hasOwn(obj, "agent_meta")) continue;
    parsed.set(i, obj);
    const id = callIdOf(obj);
    if (id !== null) ids.add(id);
  }
  if (ids.size === 0) return [];
  const needles = [...ids];
  const exact = needles.every((id) => PLAIN_ID.test(id));
  const contentOf = (m: Message, i: number) => {
    const known = parsed.get(i);
    if (known !== undefined) return known;
    const c = m.content;
    if (
      typeof c === "string" && exact && c.indexOf("\\u") === -1 &&
      !needles.some((id) => c.includes(id))
    ) {
      return null;
    }
    return contentObject(c);
  };
  return pairToolCalls(messages, source, contentOf).filter((call) =>
    call.outputInfo !== null && Object.hasOwn(call.outputInfo, "agent_meta")
  );
}

/**
 * Extracts `agent_meta` receipts from the paired tool calls of a chat, in call
 * order (`provenance.md` §8.2). A receipt exists when the output envelope has
 * the key `agent_meta`; bad entries become problems and are skipped.
 *
 * @param messages the chat
 * @param opts source path, a `warnings` array to collect problems
 * @returns the valid entries
 *
 * @example
 * ```ts
 * import { agentMetaEvidence } from "./receipts.ts";
 * const out = JSON.stringify({ name: "ask", content: "ok", id: "c1",
 *   agent_meta: [{ role: "meta", content: "pt=10 tt=12 inference_id=w1" }] });
 * const ev = agentMetaEvidence([
 *   { role: "function_call", content: '{"name":"ask","arguments":{},"id":"c1"}' },
 *   { role: "function_call_output", content: out },
 * ], { source: "/w/p.chat" });
 * ev[0]!.evidenceAddress; // ["/w/p.chat", 1, "agent_meta", 0]
 * ```
 */
export function agentMetaEvidence(
  messages: readonly Message[],
  opts: ReceiptOptions = {},
): ReceiptEvidence[] {
  const source = opts.source ?? null;
  const calls = opts.calls ?? receiptCalls(messages, source);
  const out: ReceiptEvidence[] = [];
  for (const call of calls) {
    const info = call.outputInfo;
    if (info === null || !Object.hasOwn(info, "agent_meta")) continue;
    const outputAddress = call.outputAddress!;
    const base = {
      source,
      outputAddress,
      callId: call.callId,
      toolName: call.name,
      reference: null,
    };
    const report = (p: Omit<ReceiptProblem, "message">) => opts.warnings?.push(receiptProblem(p));
    const value = info.agent_meta;
    if (!Array.isArray(value)) {
      report({
        ...base,
        reason: "not_an_array",
        evidenceAddress: null,
        agentMetaIndex: null,
        rawEntry: value,
        detail: `agent_meta is ${typeName(value)}, not an array`,
      });
      continue;
    }
    // The problem fields of entry i (built only when there is a problem).
    const at = (i: number) => ({
      ...base,
      evidenceAddress: receiptAddress(outputAddress, i),
      agentMetaIndex: i,
    });
    for (let i = 0; i < value.length; i++) {
      const entry: unknown = value[i];
      if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
        report({
          ...at(i),
          reason: "not_a_hash",
          rawEntry: entry,
          detail: `entry ${i} is ${typeName(entry)}, not an object`,
        });
        continue;
      }
      const e = entry as Record<string, unknown>;
      if (String(e.role) !== "meta") {
        report({
          ...at(i),
          reason: "invalid_role",
          rawEntry: entry,
          detail: `entry ${i} has role ${JSON.stringify(String(e.role))}, not "meta"`,
        });
        continue;
      }
      if (typeof e.content !== "string") {
        report({
          ...at(i),
          reason: "invalid_content",
          rawEntry: entry,
          detail: `entry ${i} has ${typeName(e.content)} content, not a string`,
        });
        continue;
      }
      const meta = parseMeta(e.content);
      if (isEmptyRecord(meta)) {
        report({
          ...at(i),
          reason: "unparseable_meta",
          rawEntry: entry,
          detail: `entry ${i} has no key=value pairs: ${JSON.stringify(e.content)}`,
        });
        continue;
      }
      out.push({
        origin: "agent_meta",
        meta,
        source,
        outputAddress,
        evidenceAddress: receiptAddress(outputAddress, i),
        callId: call.callId,
        toolName: call.name,
        agentMetaIndex: i,
        rawMessage: { role: "meta", content: e.content },
      });
    }
  }
  return out;
}

/**
 * The valid receipt entries that name a job (non-empty `job=`), with the raw
 * reference as `job`: the `detail` of the traversal's `agent_job` edges.
 *
 * @param messages the chat
 * @param opts as for {@link agentMetaEvidence}
 * @returns the job references, in receipt order (not deduplicated)
 */
export function agentMetaJobReferences(
  messages: readonly Message[],
  opts: ReceiptOptions = {},
): ReceiptJobReference[] {
  return jobReferencesOf(agentMetaEvidence(messages, opts));
}

/**
 * The job references among already extracted receipt entries.
 *
 * @param evidence receipt entries
 * @returns those with a non-empty `job`, with `job` set
 */
export function jobReferencesOf(evidence: readonly ReceiptEvidence[]): ReceiptJobReference[] {
  const out: ReceiptJobReference[] = [];
  for (const e of evidence) {
    if (nonEmpty(e.meta.job)) out.push({ ...e, job: String(e.meta.job) });
  }
  return out;
}

/**
 * All meta evidence of a chat: its own `meta` messages (parsed leniently,
 * `{}` included) followed by its receipt entries.
 *
 * @param messages the chat
 * @param opts as for {@link agentMetaEvidence}
 * @returns chat metas first, then receipts
 */
export function metaEvidence(
  messages: readonly Message[],
  opts: ReceiptOptions = {},
): (ChatMetaEvidence | ReceiptEvidence)[] {
  const source = opts.source ?? null;
  const out: (ChatMetaEvidence | ReceiptEvidence)[] = [];
  messages.forEach((m, i) => {
    if (m.role !== "meta") return;
    out.push({
      origin: "chat_meta",
      meta: typeof m.content === "string" ? parseMeta(m.content) : {},
      source,
      metaAddress: messageAddress(source, i),
    });
  });
  return [...out, ...agentMetaEvidence(messages, opts)];
}
