/**
 * Tool calls across a provenance walk (`provenance.md` §7): every chat the
 * walk reads is paired with the chat primitive ({@link toolCalls}, call ids
 * scoped to one file), each call gets the common status policy
 * ({@link toolCallStatus}: ok / error / missing output), a duration when its
 * output carries timestamps, and the agent that made it — derived from where
 * the chat lives (a `society/<Agent>/<conversation>.chat` log, else the
 * workflow of the job whose log or result it is). Used by `llm prov --tools`
 * and by ChatAnalyst's `chat_tool_calls`, so both report the same calls.
 *
 * @module
 */
import { basename, dirname } from "node:path";
import {
  type ToolCall,
  toolCalls,
  type ToolCallStatus,
  toolCallStatus,
} from "../chat/tool_calls.ts";
import type { Message } from "../chat/types.ts";
import type {
  JobRef,
  LoadedChat,
  NodeRef,
  ProvenanceError,
  TraversalRecord,
  TraverseOptions,
} from "./types.ts";
import { traverseProvenance } from "./traverse.ts";

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
  /** Milliseconds from the output's `start_timestamp` (the batch start) to its `timestamp`, or null. */
  durationMs: number | null;
}

/** A call of one chat before its agent is known. */
export type ChatToolCall = Omit<ProvenanceToolCall, "job" | "agent">;

interface ChatCalls {
  path: string;
  calls: ChatToolCall[];
}

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
  return text.slice(0, head) + "…" + text.slice(text.length - (keep - head));
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

function callRecord(c: ToolCall, path: string): ChatToolCall {
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
  return toolCalls(messages, path).map((c) => callRecord(c, path));
}

/** The innermost `society/<Agent>/<conversation>.chat` of a path. */
const SOCIETY = /(?:^|\/)society\/([^/]+)\/([^/]+)\.chat$/;

/**
 * The agent a chat belongs to: a society log names it
 * (`…/society/Critic/default.chat` → Critic, conversation default); a job's
 * other logs and its result belong to the job's workflow (`info.workflow`,
 * else the job path's `<Workflow>/<task>/<name>` first part); a chat outside
 * any job belongs to no agent.
 *
 * @param chat canonical chat path
 * @param job the job whose log or result it is, or null
 * @returns the agent evidence
 */
export function chatAgent(chat: string, job: JobRef | null): CallAgent {
  const m = SOCIETY.exec(chat);
  if (m !== null) return { agent: m[1]!, conversation: m[2]!, from: "society_log" };
  if (job === null) return { agent: null, conversation: null, from: "none" };
  const wf = job.info?.workflow;
  const name = typeof wf === "string" && wf !== ""
    ? wf
    : basename(dirname(dirname(job.path))) || null;
  return { agent: name, conversation: null, from: name === null ? "none" : "job" };
}

/**
 * Collects tool calls from the chats a walk reads, and the job each chat
 * belongs to from the walk's records. Plug `onChat` into any walk (a plain
 * traversal or the `prov` report) and feed `onRecord` the records when you
 * have them, or `owners` after the fact.
 *
 * @returns the collector
 */
export function toolCallCollector(): {
  /** Pass as the walk's `onChat`. */
  onChat: (chat: LoadedChat) => void;
  /** Feed every traversal record (first incoming job edge names a chat's job). */
  onRecord: (r: TraversalRecord) => void;
  /** Set a chat's job directly (first one wins). */
  setOwner: (chat: string, job: JobRef) => void;
  /** The calls, in chat read order then call order. */
  calls: () => ProvenanceToolCall[];
} {
  const chats: ChatCalls[] = [];
  const owner = new Map<string, JobRef>();
  const setOwner = (chat: string, job: JobRef) => {
    if (!owner.has(chat)) owner.set(chat, job);
  };
  return {
    onChat: (chat) => {
      const calls = chatToolCalls(chat.messages, chat.path);
      if (calls.length > 0) chats.push({ path: chat.path, calls });
    },
    onRecord: (r) => {
      if (r.kind === "chat" && r.parent?.kind === "job") setOwner(r.node.path, r.parent);
    },
    setOwner,
    calls: () =>
      chats.flatMap(({ path, calls }) => {
        const job = owner.get(path) ?? null;
        const agent = chatAgent(path, job);
        return calls.map((c) => ({ ...c, job: job?.path ?? null, agent }));
      }),
  };
}

/** A problem met while walking (the walk never stops for one). */
export interface ToolCallWarning {
  /** Error code. */
  code: string;
  /** One-line message. */
  message: string;
}

/**
 * Every tool invocation reachable from `root`: one traversal, each chat
 * paired once. Problems become warnings (never an abort).
 *
 * @param root chat path, job path (with `rootType: "job"`) or a JobRef
 * @param o traversal options (`onError` and `onChat` are replaced)
 * @returns calls and warnings
 * @throws ScoutError `root_not_found`, `invalid_follow`
 *
 * @example
 * ```ts ignore
 * import { provenanceToolCalls } from "./tool_calls.ts";
 * const { calls } = provenanceToolCalls("session.chat", { jobRoots: ["var/jobs"] });
 * calls.filter((c) => c.status === "error").map((c) => c.tool);
 * ```
 */
export function provenanceToolCalls(
  root: string | JobRef,
  o: TraverseOptions = {},
): { root: string; calls: ProvenanceToolCall[]; warnings: ToolCallWarning[] } {
  const collector = toolCallCollector();
  const warnings: ToolCallWarning[] = [];
  let rootNode: NodeRef | null = null;
  const walk = traverseProvenance(root, {
    ...o,
    onChat: collector.onChat,
    onError: (e: ProvenanceError) => warnings.push({ code: e.code, message: e.message }),
  });
  for (const r of walk) {
    rootNode ??= r.node;
    collector.onRecord(r);
  }
  return { root: rootNode!.path, calls: collector.calls(), warnings };
}
