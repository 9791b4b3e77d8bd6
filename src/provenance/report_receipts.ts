/**
 * Receipt summaries of the `prov` report (`provenance.md` §10.3): per chat,
 * the root events with `agent_meta` evidence there; a job shows those of its
 * hidden chats (its top-level `agent.chat`, its result).
 *
 * @module
 */
import type { TokenEvent } from "./evidence.ts";
import type { ReceiptSummary, ReportNode } from "./report_types.ts";

/** Receipt events and tool names found in one chat. */
export interface ReceiptsOfChat {
  /** Events with receipt evidence in the chat. */
  events: Set<TokenEvent>;
  /** Tool names of that evidence. */
  tools: Set<string>;
}

/**
 * The receipt evidence of the events, by chat.
 *
 * @param events the root's events
 * @returns canonical chat path → its receipt events and tools
 */
export function receiptSummaries(events: readonly TokenEvent[]): Map<string, ReceiptsOfChat> {
  const out = new Map<string, ReceiptsOfChat>();
  for (const e of events) {
    for (const x of e.evidence) {
      if (x.origin !== "agent_meta") continue;
      let s = out.get(x.source);
      if (s === undefined) out.set(x.source, s = { events: new Set(), tools: new Set() });
      s.events.add(e);
      if (x.toolName !== null) s.tools.add(x.toolName);
    }
  }
  return out;
}

/**
 * A summary of some receipt evidence: count, summed canonical `tt`, sorted tools.
 *
 * @param s receipt events and tools (or undefined)
 * @returns the summary, or null when there is none
 */
export function summarize(s: ReceiptsOfChat | undefined): ReceiptSummary | null {
  if (s === undefined || s.events.size === 0) return null;
  let tt = 0;
  for (const e of s.events) tt += e.tokens.tt;
  return { events: s.events.size, tt, tools: [...s.tools].sort() };
}

/**
 * Gives each job the receipts of its hidden chats (in place).
 *
 * @param nodes report nodes (chats already summarized)
 * @param bySource receipt evidence by chat path
 */
export function addJobReceipts(
  nodes: readonly ReportNode[],
  bySource: ReadonlyMap<string, ReceiptsOfChat>,
): void {
  const hiddenOf = new Map<string, ReceiptsOfChat>();
  for (const n of nodes) {
    if (n.hidden === null || n.owner === null) continue;
    const r = bySource.get(n.path);
    if (r === undefined) continue;
    let acc = hiddenOf.get(n.owner);
    if (acc === undefined) hiddenOf.set(n.owner, acc = { events: new Set(), tools: new Set() });
    for (const e of r.events) acc.events.add(e);
    for (const t of r.tools) acc.tools.add(t);
  }
  for (const n of nodes) {
    const acc = hiddenOf.get(n.id);
    if (n.kind === "job" && acc !== undefined) n.receipts = summarize(acc);
  }
}
