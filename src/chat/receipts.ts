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
import { parseMeta } from "./meta.ts";
import { wellFormed } from "../util/code_points.ts";
import { messageAddress, receiptAddress } from "./lineage.ts";
import { nonEmpty } from "./trace.ts";
import { receiptCalls } from "./receipts_scan.ts";
import { checkReceiptEntry, receiptProblem } from "./receipts_problem.ts";
import { typeName } from "./type_name.ts";
import type {
  ChatMetaEvidence,
  ReceiptEvidence,
  ReceiptJobReference,
  ReceiptOptions,
  ReceiptProblem,
} from "./receipts_types.ts";

export type {
  ChatMetaEvidence,
  ReceiptEvidence,
  ReceiptJobReference,
  ReceiptOptions,
  ReceiptProblem,
  ReceiptReason,
} from "./receipts_types.ts";
export {
  receiptProblem,
  receiptProblemMessage,
  receiptReferenceSuffix,
} from "./receipts_problem.ts";

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
    // from the call's JSON: a lone "\ud800" would spoil a report's JSON for jq (R99-2)
    const callId = call.callId === null ? null : wellFormed(call.callId);
    const toolName = call.name === null ? null : wellFormed(call.name);
    const base = { source, outputAddress, callId, toolName, reference: null };
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
      const c = checkReceiptEntry(entry, i);
      if (!c.ok) {
        report({ ...at(i), reason: c.reason, rawEntry: entry, detail: c.detail });
        continue;
      }
      out.push({
        origin: "agent_meta",
        meta: c.meta,
        source,
        outputAddress,
        evidenceAddress: receiptAddress(outputAddress, i),
        callId,
        toolName,
        agentMetaIndex: i,
        rawMessage: { role: "meta", content: c.content },
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
