/**
 * What one chat says about its delegation calls (`provenance.md` §7,
 * "Delegation evidence"), before any walk: whom each `ask` /
 * `hand_off_to_<name>` call named, which conversation (read by the same
 * rules the `ask` tool runs calls with, `chat/ask_call.ts`), which log name
 * the delegate's conversation got, and what its `agent_meta` receipt says;
 * any other tool's call is one when its output records the log of the
 * specialist it ran (`"agent"`, `"conversation"`).
 * `delegation.ts` links these to what a walk found.
 *
 * @module
 */
import { argumentsObject, askArguments, askedAgent, MAX_ASK_NAME } from "../chat/ask_call.ts";
import { agentMetaEvidence } from "../chat/receipts.ts";
import type { ReceiptEvidence, ReceiptProblem } from "../chat/receipts_types.ts";
import { type ToolCall, toolCalls } from "../chat/tool_calls.ts";
import type { Message } from "../chat/types.ts";

/** The prefix of the `delegate` tools' names (agents.md §3.5). */
export const HAND_OFF_PREFIX = "hand_off_to_";

/** What a call's `agent_meta` receipt says, or null when its output has none. */
export interface CallReceipt {
  /** Valid entries. */
  entries: number;
  /** Their `job=` references, in receipt order. */
  jobs: string[];
  /** Their `inference_id`s, in receipt order. */
  inferenceIds: string[];
  /** Entries (or a whole `agent_meta`) that are not valid receipts (§8.3). */
  problems: number;
}

/** One chat's facts about a delegation call, before any walk. */
export interface DelegationFacts {
  /** The agent delegated to (`ask`'s `agent`, the `hand_off_to_` suffix), or null. */
  target: string | null;
  /** The conversation the call named (`conversation`, or the legacy `chat`), else null. */
  conversation: string | null;
  /**
   * The file name the delegate's conversation is logged under in its
   * society: `<conversation>.chat`; for an `ask` without a conversation,
   * the one-shot conversation its output records (`conversation`, written by
   * the port), else `_oneshot-<n>.chat` for the n-th such `ask` of that agent
   * in this chat (agents.md §7.1); `default.chat` for a hand-off
   * (§7.9), or the `_default-<n>.chat` its output records (a conversation
   * started by `new_conversation`); null when the call's arguments are not a valid call (the tool
   * rejects them, so no delegate ran).
   */
  logName: string | null;
  /** The receipt, or null when the output carries no `agent_meta`. */
  receipt: CallReceipt | null;
}

/**
 * Whether a tool name is delegation evidence (`ask`, `hand_off_to_<name>`).
 *
 * @param name tool name
 * @returns true for delegation calls
 */
export function isDelegationTool(name: string | null): name is string {
  return name === "ask" || (name !== null && name.startsWith(HAND_OFF_PREFIX) &&
    name.length > HAND_OFF_PREFIX.length);
}

export { argumentsObject };

/**
 * The log a call's output records for a specialist a tool other than `ask`
 * and the hand-offs returned (`"agent"`, `"conversation"`; agents.md §3.2
 * "any tool returning an agent"): its arguments do not name it.
 */
function recordedLog(
  info: Record<string, unknown> | null,
): { agent: string; conversation: string } | null {
  const agent = info?.agent;
  const conversation = info?.conversation;
  if (typeof agent !== "string" || typeof conversation !== "string") return null;
  const name = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
  if (!name.test(agent) || !name.test(conversation) || agent === "..") return null;
  return { agent, conversation };
}

/**
 * The agent a call's receipt came from, when its tool's name does not say
 * it: the agent an `ask` call's arguments name ({@link askedAgent}), the
 * specialist another tool's output records (`"agent"`); null for a
 * hand-off (its name is its tool's) and for a call that names no agent the
 * tool would run (`llm prov --by agent` then says `unknown`, R101-3).
 *
 * @param call a paired tool call
 * @returns the agent name, or null
 */
export function receiptAgent(
  call: Pick<ToolCall, "name" | "arguments" | "outputInfo">,
): string | null {
  if (call.name === "ask") return askedAgent(call.arguments);
  if (isDelegationTool(call.name)) return null;
  const agent = recordedLog(call.outputInfo)?.agent ?? null;
  return agent !== null && agent.length <= MAX_ASK_NAME ? agent : null;
}

/** Whether a call is delegation evidence: by its name, or by the log its output records. */
function isDelegation(c: ToolCall): boolean {
  return isDelegationTool(c.name) || recordedLog(c.outputInfo) !== null;
}

function nonEmpty(v: unknown): string | null {
  return typeof v === "string" && v !== "" ? v : null;
}

/** Target, conversation and log name of one call; `oneShots` counts this chat's one-shot asks by agent. */
function callTarget(
  tool: string,
  args: unknown,
  oneShots: Map<string, number>,
  recorded: unknown,
): Omit<DelegationFacts, "receipt"> {
  if (tool !== "ask") {
    // after a `new_conversation`, the port records the one the hand-off ran in on its output
    const restarted = typeof recorded === "string" && /^_default-\d+$/.test(recorded);
    return {
      target: tool.slice(HAND_OFF_PREFIX.length),
      conversation: null,
      logName: restarted ? `${recorded}.chat` : "default.chat",
    };
  }
  const raw = argumentsObject(args);
  const call = askArguments(raw);
  if (Array.isArray(call)) {
    return { target: nonEmpty(raw.agent), conversation: null, logName: null };
  }
  if (call.conversation !== null) {
    return {
      target: call.agent,
      conversation: call.conversation,
      logName: `${call.conversation}.chat`,
    };
  }
  const n = (oneShots.get(call.agent) ?? 0) + 1;
  oneShots.set(call.agent, n);
  // the port records a one-shot's conversation on its output: exact in any chat showing the call
  const logName = typeof recorded === "string" && /^_oneshot-\d+$/.test(recorded)
    ? `${recorded}.chat`
    : `_oneshot-${n}.chat`;
  return { target: call.agent, conversation: null, logName };
}

function receiptOf(mine: readonly ReceiptEvidence[], problems: number): CallReceipt {
  const field = (e: ReceiptEvidence, k: string) =>
    nonEmpty(e.meta[k] === undefined ? "" : String(e.meta[k])) ?? [];
  return {
    entries: mine.length,
    jobs: mine.flatMap((e) => field(e, "job")),
    inferenceIds: mine.flatMap((e) => field(e, "inference_id")),
    problems,
  };
}

/**
 * The delegation facts of one chat's calls, keyed by call index: target,
 * conversation, log name and receipt summary (receipt problems are counted,
 * never reinterpreted).
 *
 * @param messages the chat
 * @param source its canonical path
 * @param calls its paired calls (default: paired here)
 * @returns facts by call message index (only delegation calls)
 */
export function delegationFacts(
  messages: readonly Message[],
  source: string,
  calls: readonly ToolCall[] = toolCalls(messages, source),
): Map<number, DelegationFacts> {
  const out = new Map<number, DelegationFacts>();
  const delegations = calls.filter(isDelegation);
  if (delegations.length === 0) return out;
  const problems: ReceiptProblem[] = [];
  const evidence = agentMetaEvidence(messages, { source, calls: delegations, warnings: problems });
  // receipts carry the very address object of the call they came from
  const byOutput = new Map<unknown, ReceiptEvidence[]>();
  for (const e of evidence) {
    const list = byOutput.get(e.outputAddress);
    if (list === undefined) byOutput.set(e.outputAddress, [e]);
    else list.push(e);
  }
  const problemCount = new Map<unknown, number>();
  for (const p of problems) {
    problemCount.set(p.outputAddress, (problemCount.get(p.outputAddress) ?? 0) + 1);
  }
  const oneShots = new Map<string, number>();
  for (const c of delegations) {
    const at = c.outputAddress;
    const hasReceipt = c.outputInfo !== null && Object.hasOwn(c.outputInfo, "agent_meta");
    const tool = recordedLog(isDelegationTool(c.name) ? null : c.outputInfo);
    out.set(c.callIndex, {
      ...(tool !== null
        ? { target: tool.agent, conversation: null, logName: `${tool.conversation}.chat` }
        : callTarget(c.name!, c.arguments, oneShots, c.outputInfo?.conversation)),
      receipt: hasReceipt ? receiptOf(byOutput.get(at) ?? [], problemCount.get(at) ?? 0) : null,
    });
  }
  return out;
}
