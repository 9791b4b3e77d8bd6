/**
 * Receipt summaries of the `prov` report (`provenance.md` §10.3): per chat,
 * the root events with `agent_meta` evidence there; a job shows those of its
 * hidden chats (its top-level `agent.chat`, its result).
 *
 * @module
 */
import type { ReceiptSummary, ReportNode } from "./report_types.ts";

/** Receipt events and tool names found in one chat. */
export interface ReceiptsOfChat {
  /** Events (by number) with receipt evidence in the chat. */
  events: Set<number>;
  /** Tool names of that evidence. */
  tools: Set<string>;
}

/** The receipt copies of the events: each copy's event, chat and tool. */
export type ReceiptCopies = (
  visit: (event: number, chat: string, toolName: string | null) => void,
) => void;

/**
 * The receipt evidence of the events, by chat.
 *
 * @param forEachCopy visits every `agent_meta` copy of the root's events
 * @returns canonical chat path → its receipt events and tools
 */
export function receiptSummaries(forEachCopy: ReceiptCopies): Map<string, ReceiptsOfChat> {
  const out = new Map<string, ReceiptsOfChat>();
  forEachCopy((e, source, toolName) => {
    let s = out.get(source);
    if (s === undefined) out.set(source, s = { events: new Set(), tools: new Set() });
    s.events.add(e);
    if (toolName !== null) s.tools.add(toolName);
  });
  return out;
}

/**
 * A summary of some receipt evidence: count, summed canonical `tt`, sorted tools.
 *
 * @param s receipt events and tools (or undefined)
 * @param tt the canonical `tt` of an event
 * @returns the summary, or null when there is none
 */
export function summarize(
  s: ReceiptsOfChat | undefined,
  tt: (event: number) => number,
): ReceiptSummary | null {
  if (s === undefined || s.events.size === 0) return null;
  let sum = 0;
  for (const e of s.events) sum += tt(e);
  return { events: s.events.size, tt: sum, tools: [...s.tools].sort() };
}

/**
 * Gives each job the receipts of its hidden chats (in place).
 *
 * @param nodes report nodes (chats already summarized)
 * @param bySource receipt evidence by chat path
 * @param tt the canonical `tt` of an event
 */
export function addJobReceipts(
  nodes: readonly ReportNode[],
  bySource: ReadonlyMap<string, ReceiptsOfChat>,
  tt: (event: number) => number,
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
    if (n.kind === "job" && acc !== undefined) n.receipts = summarize(acc, tt);
  }
}
