/**
 * Delegation calls (`provenance.md` §7, "Delegation evidence"): the `ask` and
 * `hand_off_to_<name>` calls of a chat, whom each delegated to, in which
 * conversation, what its receipt says, and how it links to what the
 * delegate left behind — `structural` (its receipt produced an `agent_job`
 * edge), `inferred` (only a society log path `society/<Agent>/<conversation
 * | default>.chat` matches; a call without a conversation also matches the
 * port's one-shot logs `_oneshot-<n>.chat`, agents.md §7.1) or `none`.
 * Inferred links are reported, never drawn as edges. Pure: the links found
 * by a walk are passed in.
 *
 * @module
 */
import { basename, dirname } from "node:path";
import { agentMetaEvidence } from "../chat/receipts.ts";
import type { ReceiptProblem } from "../chat/receipts_types.ts";
import { type ToolCall, toolCalls } from "../chat/tool_calls.ts";
import type { Message } from "../chat/types.ts";
import { societyLog } from "./labels.ts";

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
  /** `ask`'s `conversation` argument, or null (one-shot, or a hand-off). */
  conversation: string | null;
  /** The receipt, or null when the output carries no `agent_meta`. */
  receipt: CallReceipt | null;
}

/** How a delegation call links to what the delegate left. */
export type DelegationAssociation = "structural" | "inferred" | "none";

/** A delegation call with its links. */
export interface DelegationCall extends DelegationFacts {
  /** Canonical path of the chat holding the call. */
  chat: string;
  /** Tool name (`ask`, `hand_off_to_<name>`). */
  tool: string;
  /** Call id as found. */
  callId: string | null;
  /** `[chat, index]` of the call. */
  callAddress: [string, number];
  /** `[chat, index]` of its output, or null when it has none. */
  outputAddress: [string, number] | null;
  /** `structural`, `inferred` or `none`. */
  association: DelegationAssociation;
  /** Jobs its receipt's `agent_job` edges reached (structural). */
  jobs: string[];
  /** Society logs whose path matches the call (the inferred link; listed even when structural). */
  logs: string[];
}

/** What a walk found that a chat's delegation calls may link to. */
export interface DelegationLinks {
  /** Job paths reached by `agent_job` edges from this chat, by output message index. */
  agentJobs?: ReadonlyMap<number, readonly string[]>;
  /** Chat paths known to exist (the walk's chats). */
  chats?: Iterable<string>;
  /** Jobs this chat is the result of or refers to (`meta job=`): their `log/society/` counts. */
  jobs?: readonly string[];
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

/**
 * A call's arguments as an object: parsed when JSON text, `{}` when not an
 * object (the target then comes from the tool name only).
 *
 * @param args raw arguments
 * @returns the object
 */
export function argumentsObject(args: unknown): Record<string, unknown> {
  if (typeof args === "string") {
    try {
      args = JSON.parse(args);
    } catch {
      return {};
    }
  }
  return args !== null && typeof args === "object" && !Array.isArray(args)
    ? args as Record<string, unknown>
    : {};
}

function nonEmpty(v: unknown): string | null {
  return typeof v === "string" && v !== "" ? v : null;
}

function targetOf(tool: string, args: unknown): Pick<DelegationFacts, "target" | "conversation"> {
  if (tool !== "ask") return { target: tool.slice(HAND_OFF_PREFIX.length), conversation: null };
  const a = argumentsObject(args);
  return { target: nonEmpty(a.agent), conversation: nonEmpty(a.conversation) };
}

/**
 * The delegation facts of one chat's calls, keyed by call index: target,
 * conversation and receipt summary (receipt problems are counted, never
 * reinterpreted).
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
  const delegations = calls.filter((c) => isDelegationTool(c.name));
  if (delegations.length === 0) return out;
  const problems: ReceiptProblem[] = [];
  const evidence = agentMetaEvidence(messages, { source, calls: delegations, warnings: problems });
  for (const c of delegations) {
    // receipts carry the very address object of the call they came from
    const at = c.outputAddress;
    const hasReceipt = c.outputInfo !== null && Object.hasOwn(c.outputInfo, "agent_meta");
    const mine = evidence.filter((e) => e.outputAddress === at);
    const receipt = !hasReceipt ? null : {
      entries: mine.length,
      jobs: mine.flatMap((e) => nonEmpty(e.meta.job === undefined ? "" : String(e.meta.job)) ?? []),
      inferenceIds: mine.flatMap((e) =>
        nonEmpty(e.meta.inference_id === undefined ? "" : String(e.meta.inference_id)) ?? []
      ),
      problems: problems.filter((p) => p.outputAddress === at).length,
    };
    out.set(c.callIndex, { ...targetOf(c.name!, c.arguments), receipt });
  }
  return out;
}

/**
 * Where the logs of a chat's delegates live: a society log's own society
 * (`…/society/A/c.chat` → `…/society/A/c/society/`), an `agent.chat`'s
 * sibling `society/`, and for any other chat the `log/society/` of the jobs
 * it is the result of or refers to.
 *
 * @param chat canonical chat path
 * @param jobs related job paths (used for chats that are not logs)
 * @returns directory prefixes, each ending in `/society/`
 */
export function societyDirs(chat: string, jobs: readonly string[] = []): string[] {
  if (societyLog(chat) !== null) return [chat.slice(0, -".chat".length) + "/society/"];
  if (basename(chat) === "agent.chat") return [dirname(chat) + "/society/"];
  return [...new Set(jobs.map((j) => `${j}.files/log/society/`))];
}

const ONESHOT = /^_oneshot-\d+\.chat$/;
const SOCIETY_ENTRY = /^(.*\/society\/[^/]+\/)([^/]+\.chat)$/;

/** Society logs by their agent's directory (`…/society/<Agent>/`): file names, in walk order. */
export type SocietyLogIndex = ReadonlyMap<string, readonly string[]>;

/**
 * Indexes chat paths that are society logs by their agent's directory, so
 * matching a call costs a lookup per society directory, not a scan of the
 * walk's chats.
 *
 * @param chats chat paths
 * @returns the index
 */
export function societyLogIndex(chats: Iterable<string>): SocietyLogIndex {
  const out = new Map<string, string[]>();
  for (const p of chats) {
    const m = SOCIETY_ENTRY.exec(p);
    if (m === null) continue;
    const names = out.get(m[1]!);
    if (names === undefined) out.set(m[1]!, [m[2]!]);
    else if (!names.includes(m[2]!)) names.push(m[2]!);
  }
  return out;
}

function matchingLogs(
  facts: DelegationFacts,
  dirs: readonly string[],
  index: SocietyLogIndex,
): string[] {
  const target = facts.target;
  if (target === null || target.includes("/") || target === "." || target === "..") return [];
  const wanted = (name: string) =>
    facts.conversation !== null
      ? name === `${facts.conversation}.chat`
      : name === "default.chat" || ONESHOT.test(name);
  return dirs.flatMap((d) => {
    const agentDir = d + target + "/";
    return (index.get(agentDir) ?? []).filter(wanted).map((name) => agentDir + name);
  });
}

/**
 * The delegation calls of a chat with their links (`delegationCalls(chat,
 * source)` of provenance.md §7).
 *
 * @param messages the chat
 * @param source its canonical path
 * @param links what a walk found (default: nothing, so every call is `none`)
 * @returns one record per `ask` / `hand_off_to_*` call, in call order
 *
 * @example
 * ```ts
 * import { delegationCalls } from "./delegation.ts";
 * const chat = [
 *   { role: "function_call", content: '{"name":"ask","arguments":{"agent":"Critic","prompt":"ok?"},"id":"c1"}' },
 *   { role: "function_call_output", content: '{"name":"ask","content":"yes","id":"c1"}' },
 * ];
 * const [call] = delegationCalls(chat, "/w/log/agent.chat", { chats: ["/w/log/society/Critic/default.chat"] });
 * call!.association; // "inferred"
 * ```
 */
export function delegationCalls(
  messages: readonly Message[],
  source: string,
  links: DelegationLinks = {},
): DelegationCall[] {
  const calls = toolCalls(messages, source);
  const facts = delegationFacts(messages, source, calls);
  const dirs = societyDirs(source, links.jobs);
  const index = societyLogIndex(links.chats ?? []);
  return calls.flatMap((c) => {
    const f = facts.get(c.callIndex);
    if (f === undefined) return [];
    return [{
      chat: source,
      tool: c.name!,
      callId: c.callId,
      callAddress: [source, c.callIndex] as [string, number],
      outputAddress: c.outputIndex === null ? null : [source, c.outputIndex] as [string, number],
      ...f,
      ...linkDelegation(f, c.outputIndex, dirs, index, links.agentJobs),
    }];
  });
}

/**
 * How one delegation call links: the jobs its receipt's `agent_job` edges
 * reached (then `structural`), else the society logs matching it (then
 * `inferred`), else `none`.
 *
 * @param f the call's facts
 * @param outputIndex its output's message index (null: no output)
 * @param dirs {@link societyDirs} of its chat
 * @param index the walk's society logs ({@link societyLogIndex})
 * @param agentJobs job paths by output index (the chat's `agent_job` edges)
 * @returns association, jobs and logs
 */
export function linkDelegation(
  f: DelegationFacts,
  outputIndex: number | null,
  dirs: readonly string[],
  index: SocietyLogIndex,
  agentJobs?: ReadonlyMap<number, readonly string[]>,
): { association: DelegationAssociation; jobs: string[]; logs: string[] } {
  const jobs = outputIndex === null ? [] : [...(agentJobs?.get(outputIndex) ?? [])];
  const logs = matchingLogs(f, dirs, index);
  const association = jobs.length > 0 ? "structural" : logs.length > 0 ? "inferred" : "none";
  return { association, jobs, logs };
}
