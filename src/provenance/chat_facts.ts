/**
 * What the provenance walk and its token accounting need from one chat file
 * (`provenance.md` §1.2, §8, §9), extracted in one place: its projection
 * markers, the receipt entries that name jobs, and its token evidence
 * (receipt problems included). Plain data that a structured clone copies
 * faithfully, so a helper thread can extract it (`facts_pool.ts`) and the
 * walk never holds a file's messages longer than one call.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import type { Message } from "../chat/types.ts";
import { loadRawSync } from "../chat/load.ts";
import { parseWithLines } from "../chat/parse.ts";
import { parseMeta } from "../chat/meta.ts";
import { nonEmpty } from "../chat/trace.ts";
import {
  agentMetaEvidence,
  jobReferencesOf,
  type ReceiptEvidence,
  type ReceiptJobReference,
  type ReceiptProblem,
} from "../chat/receipts.ts";
import type { MetaRecord } from "../chat/meta.ts";
import { chatMetaItem, type FileEvidence, fileEvidence } from "./evidence.ts";
import type { ChatMetaItem, ReceiptItem } from "./file_evidence.ts";
import { type ChatToolCall, chatToolCalls } from "./chat_tool_calls.ts";
import { type ChatFailure, chatFailure } from "./chat_failure.ts";

/** One chat file as the walk sees it. */
export interface ChatFacts {
  /** Canonical path. */
  path: string;
  /** Its `job` markers ({@link chatJobReferences}). */
  jobReferences: string[];
  /** Its valid receipt entries that name a job, in receipt order (`agent_job` edges). */
  receiptJobs: ReceiptJobReference[];
  /** Its token evidence; `receiptProblems` are the problems of all its receipts. */
  evidence: FileEvidence;
  /** Its tool calls, when the walk asked for them (`TraverseOptions.toolCalls`). */
  toolCalls?: ChatToolCall[];
  /** Its control lines that run or include jobs ({@link controlJobsOf}), when it has any. */
  controlJobs?: ControlJobs;
  /** Its last inference failed for good ({@link chatFailure}, R127-2), when it did. */
  failure?: ChatFailure;
}

/**
 * A chat's control lines that ran or reused jobs when it was compiled (an
 * `llm ask -c` of it): their roles and 1-based lines, in file order. The walk
 * reads them as literal text (`provenance.md` §1.3): those jobs are not
 * followed, and the report warns (R93-3).
 */
export interface ControlJobs {
  /** The line each starts on. */
  lines: number[];
  /** Its role. */
  roles: string[];
}

/** The roles whose lines run (`task`…) or include (`job`, `inline_job`) jobs at compile. */
const JOB_CONTROL_ROLES: ReadonlySet<string> = new Set([
  "task",
  "inline_task",
  "exec_task",
  "job",
  "inline_job",
]);

/**
 * The control lines of a chat that run or include jobs, or undefined when
 * it has none (most chats: nothing more is read). Their lines come from a
 * second read of the file, with line numbers (0 when it cannot be read again).
 *
 * @param path the chat's path
 * @param messages its messages, as parsed
 * @returns roles and lines, or undefined
 */
export function controlJobsOf(path: string, messages: readonly Message[]): ControlJobs | undefined {
  if (!messages.some((m) => JOB_CONTROL_ROLES.has(m.role))) return undefined;
  let chat: readonly Message[] = messages;
  let lines: number[] = [];
  try {
    ({ chat, lines } = parseWithLines(readFileSync(path, "utf8")));
  } catch { /* gone meanwhile: the roles without their lines */ }
  const out: ControlJobs = { lines: [], roles: [] };
  chat.forEach((m, i) => {
    if (!JOB_CONTROL_ROLES.has(m.role)) return;
    out.lines.push(lines[i] ?? 0);
    out.roles.push(m.role);
  });
  return out;
}

/**
 * The projection markers of a chat (`provenance.md` §1.2): non-empty `job`
 * values of its `meta` messages, message order, duplicates removed. Same
 * result as `jobPaths` of `src/chat/`, but only metas mentioning `job=` are
 * parsed: this runs on every chat of a store, whose metas are mostly token
 * records.
 *
 * @param messages the chat
 * @returns raw job references
 */
export function chatJobReferences(messages: readonly Message[]): string[] {
  const out = new Set<string>();
  for (const m of messages) {
    if (m.role !== "meta" || typeof m.content !== "string" || !m.content.includes("job=")) continue;
    const job = parseMeta(m.content).job;
    if (nonEmpty(job)) out.add(String(job));
  }
  return [...out];
}

/**
 * The facts of a parsed chat, given its receipt entries and their problems
 * (what `agentMetaEvidence` found).
 *
 * @param chat path, messages, receipts and receipt problems
 * @param o `detach` (default true): see `fileEvidence`
 * @returns the facts
 */
export function chatFactsOf(
  chat: {
    path: string;
    messages: Message[];
    receipts: ReceiptEvidence[];
    receiptProblems: ReceiptProblem[];
  },
  o: { detach?: boolean; toolCalls?: boolean } = {},
): ChatFacts {
  const facts: ChatFacts = {
    path: chat.path,
    jobReferences: chatJobReferences(chat.messages),
    receiptJobs: jobReferencesOf(chat.receipts),
    evidence: fileEvidence(chat, o),
  };
  if (o.toolCalls) facts.toolCalls = chatToolCalls(chat.messages, chat.path);
  const controlJobs = controlJobsOf(chat.path, chat.messages);
  if (controlJobs) facts.controlJobs = controlJobs;
  const failure = chatFailure(chat.messages);
  if (failure !== null) facts.failure = failure;
  return facts;
}

/**
 * Reads a chat file (`loadRawSync`: nothing compiled) and extracts its facts.
 *
 * @param path canonical path
 * @param o `detach` (default true): see `fileEvidence`; `toolCalls`: pair its tool calls too
 * @returns the facts
 * @throws ScoutError `not_found` / `io` naming the path
 */
export function readChatFacts(
  path: string,
  o: { detach?: boolean; toolCalls?: boolean } = {},
): ChatFacts {
  const messages = loadRawSync(path);
  const problems: ReceiptProblem[] = [];
  const receipts = agentMetaEvidence(messages, { source: path, warnings: problems });
  return chatFactsOf({ path, messages, receipts, receiptProblems: problems }, o);
}

/**
 * Facts as text, for the walk's helper threads (`facts_pool.ts`) and the
 * report's store (`chat_store.ts`): a JSON header line, then one line per
 * direct meta (its record's JSON) and one per receipt item (the item's
 * JSON). A chat's direct metas are most of a store's facts, and each names
 * its file twice (`source`, `metaAddress`): the lines carry only the
 * record, the header their message indices, and {@link factsFromText} puts
 * the path back — a shorter text to write and read, one path string per
 * file on the walk's side. One line per item lets the `--json` document be
 * written from the text without parsing it again ({@link evidenceTexts}).
 *
 * @param facts the facts of one chat
 * @returns text that {@link factsFromText} reads back
 */
export function factsToText(facts: ChatFacts): string {
  const e = facts.evidence;
  // the optional fields last, the trailing absent ones left out (most chats have none)
  const optional = [
    facts.toolCalls ?? null,
    facts.controlJobs ?? null,
    e.agents ?? null,
    facts.failure ?? null,
  ];
  while (optional.at(-1) === null) optional.pop();
  const header = JSON.stringify([
    facts.jobReferences,
    facts.receiptJobs,
    e.chat.map((item) => item.metaAddress[1]),
    e.lineage,
    e.receiptProblems,
    ...optional,
  ]);
  let text = header;
  for (const item of e.chat) text += "\n" + JSON.stringify(item.meta);
  for (const item of e.receipts) text += "\n" + JSON.stringify(item);
  return text;
}

/**
 * The facts {@link factsToText} wrote (deep-equal to them: JSON text
 * carries plain data exactly, `-0` aside, which prints as `0` anyway).
 *
 * @param path the chat's canonical path
 * @param text what {@link factsToText} returned
 * @returns the facts
 */
export function factsFromText(path: string, text: string): ChatFacts {
  const lines = text.split("\n");
  const [
    jobReferences,
    receiptJobs,
    indices,
    lineage,
    receiptProblems,
    toolCalls,
    controlJobs,
    agents,
    failure,
  ] = JSON.parse(lines[0]!);
  const n = (indices as number[]).length;
  const chat: ChatMetaItem[] = new Array(n);
  for (let k = 0; k < n; k++) {
    chat[k] = chatMetaItem(path, indices[k], JSON.parse(lines[k + 1]!) as MetaRecord);
  }
  const receipts: ReceiptItem[] = [];
  for (let k = n + 1; k < lines.length; k++) receipts.push(JSON.parse(lines[k]!));
  return {
    path,
    jobReferences,
    receiptJobs,
    evidence: { path, chat, lineage, receipts, receiptProblems, ...(agents ? { agents } : {}) },
    ...(toolCalls ? { toolCalls } : {}),
    ...(controlJobs ? { controlJobs } : {}),
    ...(failure ? { failure } : {}),
  };
}

/** The evidence of one chat as JSON texts, from its facts text (nothing parsed but the header). */
export interface EvidenceTexts {
  /** Each direct meta as the `--json` document prints its evidence item. */
  chat: string[];
  /** Each direct meta's record, as JSON. */
  chatMeta: string[];
  /** Each receipt item, as JSON. */
  receipts: string[];
  /** Lineage ids of the direct metas (see `FileEvidence.lineage`). */
  lineage: (string | null)[] | null;
}

/** A chat's facts text cut in lines, only its header parsed. */
export interface FactsLines {
  /** Message index of each direct meta. */
  indices: number[];
  /** Lineage ids of the direct metas (see `FileEvidence.lineage`). */
  lineage: (string | null)[] | null;
  /** Each direct meta's record, as JSON. */
  chatMeta: string[];
  /** Each receipt item, as JSON. */
  receipts: string[];
  /** The agent each receipt's call named (see `FileEvidence.agents`), or null when none does. */
  agents: (string | null)[] | null;
}

/**
 * A chat's facts text in lines (see {@link factsToText}).
 *
 * @param text what {@link factsToText} returned
 * @returns the lines
 */
export function factsLines(text: string): FactsLines {
  const lines = text.split("\n");
  const header = JSON.parse(lines[0]!) as unknown[];
  const indices = header[2] as number[];
  const lineage = header[3] as (string | null)[] | null;
  const agents = (header[7] ?? null) as (string | null)[] | null;
  const n = indices.length;
  return {
    indices,
    lineage,
    chatMeta: lines.slice(1, n + 1),
    receipts: lines.slice(n + 1),
    agents,
  };
}

/**
 * The evidence items of a chat as the JSON document prints them
 * (`JSON.stringify` of each item), cut from its facts text.
 *
 * @param path the chat's canonical path
 * @param text what {@link factsToText} returned
 * @returns the texts
 */
export function evidenceTexts(path: string, text: string): EvidenceTexts {
  const f = factsLines(text);
  const p = JSON.stringify(path);
  const chat = f.chatMeta.map((meta, k) =>
    `{"origin":"chat_meta","source":${p},"meta":${meta},"callId":null,"toolName":null,"metaAddress":[${p},${
      f.indices[k]
    }]}`
  );
  return { chat, chatMeta: f.chatMeta, receipts: f.receipts, lineage: f.lineage };
}
