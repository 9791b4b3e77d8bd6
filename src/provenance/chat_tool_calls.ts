/**
 * The tool calls of one chat (`provenance.md` §7): the chat pairing primitive
 * (`chat/tool_calls.ts`) plus the common status policy and durations — per
 * chat, with no walk, so the walk's helper thread can run it
 * (`chat_facts.ts`); `tool_calls.ts` adds agents and jobs across a walk.
 *
 * @module
 */
import {
  type ToolCall,
  toolCalls,
  type ToolCallStatus,
  toolCallStatus,
} from "../chat/tool_calls.ts";
import type { Message } from "../chat/types.ts";
import { sha256hex } from "../util/hash.ts";
import type { DelegationAssociation } from "./delegation.ts";
import { type DelegationFacts, delegationFacts } from "./delegation_facts.ts";
import { clipMiddle } from "../util/clip.ts";

/** How a tool call ended: `ok`, `error` (exception or non-zero exit status), or no output. */
export type ToolCallOutcome = "ok" | "error" | "missing_output";

/** Who made a call: the agent a chat belongs to, from where the chat lives. */
export interface CallAgent {
  /** Agent name, or null for a chat outside any job (the root session). */
  agent: string | null;
  /** Conversation of a society log (`default`…), else null. */
  conversation: string | null;
  /** Which evidence named it: a society log path, the owning job's workflow, or none. */
  from: "society_log" | "job" | "none";
}

/** One tool invocation found in a chat of the walk. */
export interface ProvenanceToolCall {
  /** Tool name (`name ?? function.name`), or null. */
  tool: string | null;
  /** Call id as found (scoped to its chat). */
  callId: string | null;
  /** Canonical path of the chat holding the call. */
  chat: string;
  /** Path of the job whose log or result the chat is, or null. */
  job: string | null;
  /** Who made the call. */
  agent: CallAgent;
  /** `[chat, index]` of the call message. */
  callAddress: [string, number];
  /** `[chat, index]` of the paired output, or null. */
  outputAddress: [string, number] | null;
  /** The raw arguments (`arguments ?? function.arguments`). */
  arguments: unknown;
  /** Outcome by the common policy. */
  status: ToolCallOutcome;
  /** Which rule decided (`missing_output`, `exception`, `exit_status`, `output`). */
  reason: string;
  /** The exception text (shortened to 300 characters), or null. */
  exception: string | null;
  /** The integer exit status when the output had one, else null. */
  exitStatus: number | null;
  /** Milliseconds from the output's `start_timestamp` (the call's start: a specialist's run, after its queue) to its `timestamp` (its end), or null. */
  durationMs: number | null;
  /** For `ask` / `hand_off_to_*` calls: whom, which conversation, the receipt and the link. */
  delegation: DelegationLink | null;
  /**
   * What every copy of this call shares: {@link callDigest}, then `#<k>` for
   * the k-th call of its chat with that digest. A chat projecting a job's
   * answer, the job's result chat and its log hold one call three times
   * (R111-4).
   */
  copyKey: string;
}

/** A delegation call's facts and how the walk links it (`delegation.ts`). */
export interface DelegationLink extends DelegationFacts {
  /** `structural` (an `agent_job` edge), `inferred` (a society log path) or `none`. */
  association: DelegationAssociation;
  /** Jobs reached by its receipt's `agent_job` edges. */
  jobs: string[];
  /** Society logs whose path matches it. */
  logs: string[];
}

/** A call of one chat before its agent (and its delegation's links) are known. */
export type ChatToolCall = Omit<ProvenanceToolCall, "job" | "agent" | "delegation"> & {
  /** For delegation calls, the chat's own facts. */
  delegation: DelegationFacts | null;
};

/**
 * Shortens text in the middle (`head…tail`), never cutting the end.
 *
 * @param text any text
 * @param max maximum length (at least 5)
 * @returns the text, or its head and tail around `…`
 */
export function shortenMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const keep = Math.max(4, max - 1);
  const head = Math.ceil(keep / 2);
  return clipMiddle(text, head, keep - head);
}

function stamp(v: unknown): number | null {
  if (typeof v !== "string" || v === "") return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : t;
}

function exceptionText(v: unknown): string {
  const s = typeof v === "string" ? v : JSON.stringify(v) ?? String(v);
  return shortenMiddle(s, 300);
}

/** Plain-text outputs cannot hold `exception`/`exit_status`: skip the status policy's JSON parse. */
const PLAIN_OK: ToolCallStatus = { success: true, reason: "output" };

/**
 * The digest of a call's and its output's messages as written (their
 * role and content; no output: none). A copy of a call (a job's answer
 * projected into the asking chat, the job's result chat, a log, the
 * history a continued chat resends) holds both messages as they were
 * written; a call run again answers with an output of its own (its
 * `start_timestamp`/`timestamp` at least).
 *
 * @param messages the chat
 * @param c one of its paired calls
 * @returns 64 hex digits
 */
export function callDigest(messages: readonly Message[], c: ToolCall): string {
  const text = (i: number | null) => {
    const content = i === null ? null : messages[i]!.content;
    return typeof content === "string" ? content : JSON.stringify(content ?? null);
  };
  return sha256hex(JSON.stringify([c.role, text(c.callIndex), text(c.outputIndex)]));
}

function callRecord(
  c: ToolCall,
  path: string,
  delegation: DelegationFacts | null,
  copyKey: string,
): ChatToolCall {
  const plain = c.outputInfo !== null && typeof c.output === "string" &&
    !c.output.trimStart().startsWith("{");
  const s = plain ? PLAIN_OK : toolCallStatus(c);
  const start = stamp(c.outputInfo?.start_timestamp);
  const end = stamp(c.outputInfo?.timestamp);
  return {
    tool: c.name,
    callId: c.callId,
    chat: path,
    callAddress: [path, c.callIndex],
    outputAddress: c.outputIndex === null ? null : [path, c.outputIndex],
    arguments: c.arguments ?? null,
    status: s.success === null ? "missing_output" : s.success ? "ok" : "error",
    reason: s.reason,
    exception: s.exception === undefined ? null : exceptionText(s.exception),
    exitStatus: s.exitStatus ?? null,
    durationMs: start !== null && end !== null && end >= start ? end - start : null,
    delegation,
    copyKey,
  };
}

/**
 * The tool calls of one chat with their status and duration (no agent yet):
 * the chat pairing primitive plus the common status policy.
 *
 * @param messages the chat
 * @param path its canonical path
 * @returns one record per call, in call order
 */
export function chatToolCalls(
  messages: readonly Message[],
  path: string,
): ChatToolCall[] {
  const calls = toolCalls(messages, path);
  const delegations = delegationFacts(messages, path, calls);
  // calls alike within one chat are as many calls: the k-th is a copy of another chat's k-th
  const seen = new Map<string, number>();
  return calls.map((c) => {
    const digest = callDigest(messages, c);
    const k = seen.get(digest) ?? 0;
    seen.set(digest, k + 1);
    return callRecord(c, path, delegations.get(c.callIndex) ?? null, `${digest}#${k}`);
  });
}
