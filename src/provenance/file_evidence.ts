/**
 * Token evidence of one chat file (`provenance.md` §9 steps 1–3): its
 * direct `meta` records and its `agent_meta` receipt entries, read once, and
 * the local (`tokenTotals`) sum of a few files.
 *
 * @module
 */
import type { Message } from "../chat/types.ts";
import { type MetaRecord, parseMeta } from "../chat/meta.ts";
import { lineageIds, type ReceiptAddress } from "../chat/lineage.ts";
import {
  addTokens,
  emptyTokens,
  firstCopies,
  isDirectMeta,
  nonEmpty,
  type TokenTotals,
} from "../chat/trace.ts";
import { agentMetaEvidence, type ReceiptEvidence } from "../chat/receipts.ts";
import type { ReceiptProblem } from "../chat/receipts.ts";
import type { LoadedChat } from "./types.ts";
import { receiptCalls } from "../chat/receipts_scan.ts";
import { isDelegationTool, receiptAgent } from "./delegation_facts.ts";

/** A direct `meta` message as token evidence. */
export interface ChatMetaItem {
  /** Always `chat_meta`. */
  origin: "chat_meta";
  /** Canonical path of the chat. */
  source: string;
  /** Parsed meta record, without `reas`. */
  meta: MetaRecord;
  /** Always null (for symmetry with receipts). */
  callId: null;
  /** Always null. */
  toolName: null;
  /** `[source, index]` of the meta message. */
  metaAddress: [string, number];
}

/** A receipt entry as token evidence. */
export interface ReceiptItem {
  /** Always `agent_meta`. */
  origin: "agent_meta";
  /** Canonical path of the chat holding the output. */
  source: string;
  /** Parsed meta record of the entry, without `reas`. */
  meta: MetaRecord;
  /** Call id of the output. */
  callId: string | null;
  /** Tool name of the call. */
  toolName: string | null;
  /** `[source, outputIndex, "agent_meta", i]`. */
  evidenceAddress: ReceiptAddress;
  /** `[source, outputIndex]`. */
  outputAddress: [string, number];
  /** Position in `agent_meta`. */
  agentMetaIndex: number;
}

/** One piece of token evidence. */
export type EvidenceItem = ChatMetaItem | ReceiptItem;

/** Everything token accounting needs from one chat file, read once. */
export interface FileEvidence {
  /** Canonical path. */
  path: string;
  /** Direct meta records as evidence, in message order. */
  chat: ChatMetaItem[];
  /**
   * The lineage id of each `chat` item that has no `inference_id` (null for
   * the others); null when every item has one (lineage is then not computed).
   */
  lineage: (string | null)[] | null;
  /** Receipt entries that are direct token evidence, in receipt order. */
  receipts: ReceiptItem[];
  /** Receipt problems found in this file. */
  receiptProblems: ReceiptProblem[];
  /**
   * The agent each `receipts` item's call named when its tool's name does
   * not say it (`receiptAgent`: an `ask`'s `agent`), else null; absent when
   * none names one (most files).
   */
  agents?: (string | null)[];
}

/**
 * A meta record as evidence: `reas` (the model's reasoning summary) dropped,
 * and string values that share no memory with the chat text. Values parsed
 * from a message are slices of the whole file's text, and a slice keeps its
 * parent alive: holding one `inference_id` would hold the whole file.
 * Evidence outlives the file. (Copying the few string values costs less
 * memory than parsing a copy of the whole line: that copy, `reas` included,
 * would stay alive behind the values sliced from it.)
 */
function evidenceMeta(meta: MetaRecord, detach: boolean): MetaRecord {
  const out: MetaRecord = {};
  for (const k in meta) {
    if (k === "reas") continue;
    const v = meta[k]!;
    out[k] = detach && typeof v === "string" ? fresh(v) : v;
  }
  return out;
}

/**
 * A copy of a string that does not keep a larger string alive (see
 * {@link detached}). A JSON round trip is the one copy both V8 and
 * JavaScriptCore make for sure (slicing a concatenation is not: an engine may
 * slice the original again).
 *
 * @param s a string, possibly a slice of a big text
 * @returns an equal, independent string
 */
export function fresh<T extends string | null>(s: T): T {
  return (s === null ? s : JSON.parse(JSON.stringify(s))) as T;
}

/**
 * Analyses one chat file for token accounting: its direct metas (with lineage
 * ids only where no `inference_id` identifies them) and its direct receipt
 * entries (reusing the traversal's extraction when it did one).
 *
 * @param chat the file as the traversal loaded it
 * @param o `detach` (default true): copy the strings kept as evidence, so
 *   they do not keep the file's text alive (not needed when the evidence is
 *   serialized anyway)
 * @returns the file's evidence
 */
export function fileEvidence(chat: LoadedChat, o: { detach?: boolean } = {}): FileEvidence {
  const detach = o.detach ?? true;
  const { path, messages } = chat;
  const chatMetas = directMetas(path, messages, detach);
  let lineage: (string | null)[] | null = null;
  let last = -1; // the last meta that needs its lineage id
  for (const item of chatMetas) if (!nonEmpty(item.meta.inference_id)) last = item.metaAddress[1];
  if (last !== -1) {
    const ids = lineageIds(messages, last + 1);
    lineage = chatMetas.map((item) =>
      nonEmpty(item.meta.inference_id) ? null : ids[item.metaAddress[1]]!
    );
  }
  let receipts = chat.receipts;
  let problems = chat.receiptProblems;
  if (receipts === null || problems === null) {
    problems = [];
    receipts = agentMetaEvidence(messages, { source: path, warnings: problems });
  }
  const direct = receipts.filter((r) => isDirectMeta(r.meta));
  const agents = receiptAgents(path, messages, direct);
  return {
    path,
    chat: chatMetas,
    lineage,
    receipts: direct.map((r) => receiptItem(r, detach)),
    receiptProblems: problems,
    ...(agents === null ? {} : { agents }),
  };
}

/**
 * The agent each receipt's call named ({@link receiptAgent}), or null when
 * none names one. Only a file with receipts of a tool other than a hand-off
 * pairs its receipt calls again.
 */
function receiptAgents(
  path: string,
  messages: readonly Message[],
  receipts: readonly ReceiptEvidence[],
): (string | null)[] | null {
  if (!receipts.some((r) => !isDelegationTool(r.toolName) || r.toolName === "ask")) return null;
  const byOutput = new Map<number, string | null>();
  for (const c of receiptCalls(messages, path)) byOutput.set(c.outputIndex!, receiptAgent(c));
  const out = receipts.map((r) => {
    const at = r.outputAddress;
    return byOutput.get(typeof at === "number" ? at : at[1]) ?? null;
  });
  return out.some((a) => a !== null) ? out : null;
}

/**
 * A direct `meta` message as evidence (its keys in the order the JSON
 * document prints them).
 *
 * @param path canonical path of the chat
 * @param index the meta message's index
 * @param meta its record (without `reas`)
 * @returns the evidence item
 */
export function chatMetaItem(path: string, index: number, meta: MetaRecord): ChatMetaItem {
  return {
    origin: "chat_meta",
    source: path,
    meta,
    callId: null,
    toolName: null,
    metaAddress: [path, index],
  };
}

function directMetas(path: string, messages: readonly Message[], detach: boolean): ChatMetaItem[] {
  const out: ChatMetaItem[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role !== "meta" || typeof m.content !== "string") continue;
    const parsed = parseMeta(m.content, "reas");
    if (!isDirectMeta(parsed)) continue;
    out.push(chatMetaItem(path, i, detach ? evidenceMeta(parsed, true) : parsed));
  }
  return out;
}

function receiptItem(r: ReceiptEvidence, detach: boolean): ReceiptItem {
  return {
    origin: "agent_meta",
    source: r.source ?? "",
    meta: evidenceMeta(r.meta, detach),
    callId: detach ? fresh(r.callId) : r.callId,
    toolName: detach ? fresh(r.toolName) : r.toolName,
    evidenceAddress: r.evidenceAddress,
    outputAddress: r.outputAddress as [string, number],
    agentMetaIndex: r.agentMetaIndex,
  };
}

/**
 * Local token totals of some files (`tokenTotals` semantics): direct metas
 * deduplicated by `inference_id`/lineage across the files, first copy wins;
 * receipts are not read.
 *
 * @param files the files, in order
 * @returns all six keys
 */
export function localTokens(files: readonly (FileEvidence | undefined)[]): TokenTotals {
  const t = emptyTokens();
  const first = firstCopies();
  for (const f of files) {
    if (f === undefined) continue;
    const items = f.chat;
    for (let k = 0; k < items.length; k++) {
      const meta = items[k]!.meta;
      if (first(meta, f.lineage?.[k] ?? "")) addTokens(t, meta);
    }
  }
  return t;
}
