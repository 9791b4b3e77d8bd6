/**
 * Delegation calls (`provenance.md` §7, "Delegation evidence"): the `ask` and
 * `hand_off_to_<name>` calls of a chat (`delegation_facts.ts`) with how each
 * links to what the delegate left behind — `structural` (its receipt
 * produced an `agent_job` edge), `inferred` (only a society log path
 * `society/<Agent>/<conversation | default>.chat` matches, in the calling
 * chat's own society; the n-th one-shot `ask` of an agent matches
 * `_oneshot-<n>.chat`, agents.md §7.1) or `none`. Inferred links are
 * reported, never drawn as edges. Pure: the links a walk found are passed in.
 *
 * @module
 */
import { dirname, join } from "node:path";
import type { Message } from "../chat/types.ts";
import { toolCalls } from "../chat/tool_calls.ts";
import { societyLog } from "./labels.ts";
import { type DelegationFacts, delegationFacts } from "./delegation_facts.ts";

export {
  argumentsObject,
  delegationFacts,
  HAND_OFF_PREFIX,
  isDelegationTool,
} from "./delegation_facts.ts";
export type { CallReceipt, DelegationFacts } from "./delegation_facts.ts";

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
  agentJobs?: ReadonlyMap<number, Iterable<string>>;
  /** Chat paths known to exist (the walk's chats). */
  chats?: Iterable<string>;
  /** Jobs this chat is the result of or refers to (`meta job=`): their `log/society/` counts. */
  jobs?: readonly string[];
}

/**
 * Where the logs of a chat's delegates live: a society log's own society
 * (`…/society/A/c.chat` → `…/society/A/c/society/`), an `agent.chat`'s
 * sibling `society/`, and for any other chat the `log/society/` of the jobs
 * it is the result of or refers to.
 *
 * @param chat canonical chat path
 * @param jobs related job paths (used for chats that are not logs)
 * @returns directory prefixes, each ending in `society/`
 */
export function societyDirs(chat: string, jobs: readonly string[] = []): string[] {
  if (societyLog(chat) !== null) return [chat.slice(0, -".chat".length) + "/society/"];
  if (chat === "agent.chat" || chat.endsWith("/agent.chat")) {
    return [join(dirname(chat), "society") + "/"];
  }
  return [...new Set(jobs.map((j) => `${j}.files/log/society/`))];
}

/** Society logs by `<Agent>/<file name>`: the society directories (`…/society/`) holding one. */
export type SocietyLogIndex = ReadonlyMap<string, ReadonlySet<string>>;

/**
 * Indexes the chat paths that are society logs (`labels.ts`'s reading of
 * the layout) by agent and file name, so matching a call is a lookup.
 *
 * @param chats chat paths
 * @returns the index
 */
export function societyLogIndex(chats: Iterable<string>): SocietyLogIndex {
  const out = new Map<string, Set<string>>();
  for (const p of chats) {
    const log = societyLog(p);
    if (log === null) continue;
    const key = `${log.agent}/${log.conversation}.chat`;
    const dir = p.slice(0, p.length - key.length);
    const dirs = out.get(key);
    if (dirs === undefined) out.set(key, new Set([dir]));
    else dirs.add(dir);
  }
  return out;
}

const FALLBACK = "default.chat";

function matchingLogs(
  facts: DelegationFacts,
  dirs: ReadonlySet<string>,
  index: SocietyLogIndex,
): string[] {
  const { target, logName } = facts;
  if (target === null || logName === null || target.includes("/")) return [];
  if (target === "." || target === "..") return [];
  const inDirs = (name: string) => {
    const holders = index.get(`${target}/${name}`);
    if (holders === undefined) return [];
    // the smaller side is walked (a session may refer to thousands of jobs)
    const [few, many] = holders.size < dirs.size ? [holders, dirs] : [dirs, holders];
    const hits = [...few].filter((d) => many.has(d));
    return hits.map((d) => `${d}${target}/${name}`);
  };
  const found = inDirs(logName);
  // a one-shot call in a chat the Ruby wrote: its `default` conversation
  return found.length > 0 || !logName.startsWith("_oneshot-") ? found : inDirs(FALLBACK);
}

/**
 * How one delegation call links: the jobs its receipt's `agent_job` edges
 * reached (then `structural`), else the society logs matching it (then
 * `inferred`), else `none`.
 *
 * @param f the call's facts
 * @param outputIndex its output's message index (null: no output)
 * @param dirs {@link societyDirs} of its chat, as a set
 * @param index the walk's society logs ({@link societyLogIndex})
 * @param agentJobs job paths by output index (the chat's `agent_job` edges)
 * @returns association, jobs and logs
 */
export function linkDelegation(
  f: DelegationFacts,
  outputIndex: number | null,
  dirs: ReadonlySet<string>,
  index: SocietyLogIndex,
  agentJobs?: ReadonlyMap<number, Iterable<string>>,
): { association: DelegationAssociation; jobs: string[]; logs: string[] } {
  const jobs = outputIndex === null ? [] : [...(agentJobs?.get(outputIndex) ?? [])];
  const logs = matchingLogs(f, dirs, index);
  const association = jobs.length > 0 ? "structural" : logs.length > 0 ? "inferred" : "none";
  return { association, jobs, logs };
}

/**
 * The delegation calls of a chat with their links (`delegationCalls(chat,
 * source)` of provenance.md §7). Without `links` nothing is known to exist,
 * so every call is `none`: pass what a walk found (`llm prov --tools` and
 * ChatAnalyst do, through `provenanceToolCalls`'s collector).
 *
 * @param messages the chat
 * @param source its canonical path
 * @param links what a walk found (default: nothing)
 * @returns one record per `ask` / `hand_off_to_*` call, in call order
 *
 * @example
 * ```ts
 * import { delegationCalls } from "./delegation.ts";
 * const chat = [
 *   { role: "function_call", content: '{"name":"ask","arguments":{"agent":"Critic","prompt":"ok?"},"id":"c1"}' },
 *   { role: "function_call_output", content: '{"name":"ask","content":"yes","id":"c1"}' },
 * ];
 * const [call] = delegationCalls(chat, "/w/log/agent.chat", {
 *   chats: ["/w/log/society/Critic/_oneshot-1.chat"],
 * });
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
  const dirs = new Set(societyDirs(source, links.jobs));
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
