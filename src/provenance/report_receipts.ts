/**
 * Receipt summaries of the `prov` report (`provenance.md` §10.3): per chat,
 * the root events with `agent_meta` evidence there; a job shows those of its
 * hidden chats (its top-level `agent.chat`, its result).
 *
 * @module
 */
import type { ReceiptSummary } from "./report_types.ts";
import { sortDistinct } from "./typed.ts";

/** Receipt events and tool names found in one chat. */
export interface ReceiptsOfChat {
  /** Distinct events (by number) with receipt evidence in the chat. */
  events: Int32Array;
  /** Distinct tool names of that evidence. */
  tools: readonly string[];
}

/** The receipt copies of the events: each copy's event, chat and tool. */
export type ReceiptCopies = (
  visit: (event: number, chat: string, toolName: string | null) => void,
) => void;

/** The distinct numbers of a list, ascending, in a typed array (~240,000 events at 2 GB: no Set each). */
function distinct(list: readonly number[]): Int32Array {
  const a = Int32Array.from(list);
  const n = sortDistinct(a);
  return n === a.length ? a : a.slice(0, n);
}

/**
 * The receipt evidence of the events, by chat.
 *
 * @param forEachCopy visits every `agent_meta` copy of the root's events
 * @returns canonical chat path → its receipt events and tools
 */
export function receiptSummaries(forEachCopy: ReceiptCopies): Map<string, ReceiptsOfChat> {
  const events = new Map<string, number[]>();
  const tools = new Map<string, string[]>();
  forEachCopy((e, source, toolName) => {
    const list = events.get(source);
    if (list === undefined) events.set(source, [e]);
    else list.push(e);
    if (toolName === null) return;
    const names = tools.get(source);
    if (names === undefined) tools.set(source, [toolName]);
    else if (!names.includes(toolName)) names.push(toolName);
  });
  const out = new Map<string, ReceiptsOfChat>();
  for (const [source, list] of events) {
    out.set(source, { events: distinct(list), tools: tools.get(source) ?? [] });
  }
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
  if (s === undefined || s.events.length === 0) return null;
  let sum = 0;
  for (const e of s.events) sum += tt(e);
  return { events: s.events.length, tt: sum, tools: [...s.tools].sort() };
}

/**
 * Each node's receipt summary: a chat's own; a job's, the receipts of its
 * hidden chats (its result, its top-level agent log).
 *
 * @param nodes per node index: its kind, its path, and the job that owns it when hidden (else -1)
 * @param bySource receipt evidence by chat path
 * @param tt the canonical `tt` of an event
 * @returns the summaries by node index (nodes without receipt evidence absent)
 */
export function nodeReceipts(
  nodes: { kinds: readonly string[]; paths: readonly string[]; hiddenOwner: (i: number) => number },
  bySource: ReadonlyMap<string, ReceiptsOfChat>,
  tt: (event: number) => number,
): Map<number, ReceiptSummary> {
  const out = new Map<number, ReceiptSummary>();
  // a job's hidden chats' events and tools, repeats allowed (made distinct once, at the end)
  const hiddenOf = new Map<number, { events: number[]; tools: Set<string> }>();
  nodes.paths.forEach((path, i) => {
    const r = bySource.get(path);
    if (r === undefined || nodes.kinds[i] !== "chat") return;
    const own = summarize(r, tt);
    if (own !== null) out.set(i, own);
    const owner = nodes.hiddenOwner(i);
    if (owner === -1) return;
    let acc = hiddenOf.get(owner);
    if (acc === undefined) hiddenOf.set(owner, acc = { events: [], tools: new Set() });
    for (const e of r.events) acc.events.push(e);
    for (const t of r.tools) acc.tools.add(t);
  });
  for (const [job, acc] of hiddenOf) {
    if (nodes.kinds[job] !== "job") continue;
    const s = summarize({ events: distinct(acc.events), tools: [...acc.tools] }, tt);
    if (s !== null) out.set(job, s);
  }
  return out;
}
