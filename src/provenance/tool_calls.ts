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
  type CallAgent,
  type ChatToolCall,
  chatToolCalls,
  type ProvenanceToolCall,
} from "./chat_tool_calls.ts";
import type {
  JobRef,
  LoadedChat,
  NodeRef,
  ProvenanceError,
  ProvenanceRoots,
  TraversalRecord,
  TraverseOptions,
} from "./types.ts";
import { traverseProvenance } from "./traverse.ts";
import { societyLog } from "./labels.ts";
import { linkDelegation, societyDirs, societyLogIndex } from "./delegation.ts";

export { chatToolCalls, shortenMiddle } from "./chat_tool_calls.ts";
export type {
  CallAgent,
  ChatToolCall,
  DelegationLink,
  ProvenanceToolCall,
  ToolCallOutcome,
} from "./chat_tool_calls.ts";

interface ChatCalls {
  path: string;
  calls: ChatToolCall[];
}

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
  const society = societyLog(chat);
  if (society !== null) return { ...society, from: "society_log" };
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
  /** Or pass as the report's `onChatFacts`, with `toolCalls: true` (keeps the helper thread). */
  onFacts: (facts: { path: string; toolCalls?: ChatToolCall[] }) => void;
  /** Feed every traversal record (first incoming job edge names a chat's job). */
  onRecord: (r: TraversalRecord) => void;
  /** Or feed the walk's edges (for the delegation links; owners through `setOwner`). */
  onEdge: (e: WalkEdge) => void;
  /** Set a chat's job directly (first one wins). */
  setOwner: (chat: string, job: JobRef) => void;
  /** The calls, in chat read order then call order. */
  calls: () => ProvenanceToolCall[];
} {
  const chats: ChatCalls[] = [];
  const owner = new Map<string, JobRef>();
  const links = walkLinks();
  const setOwner = (chat: string, job: JobRef) => {
    if (!owner.has(chat)) owner.set(chat, job);
  };
  return {
    onChat: (chat) => {
      const calls = chatToolCalls(chat.messages, chat.path);
      if (calls.length > 0) chats.push({ path: chat.path, calls });
    },
    onFacts: (facts) => {
      if (facts.toolCalls && facts.toolCalls.length > 0) {
        chats.push({ path: facts.path, calls: facts.toolCalls });
      }
    },
    onRecord: (r) => {
      if (r.parent === null || r.relation === null) return;
      if (r.kind === "chat" && r.parent.kind === "job") setOwner(r.node.path, r.parent);
      links.onEdge({ from: r.parent, to: r.node, relation: r.relation, detail: r.detail });
    },
    onEdge: links.onEdge,
    setOwner,
    calls: () => {
      const known = societyLogIndex(links.chats);
      return chats.flatMap(({ path, calls }) => {
        const job = owner.get(path) ?? null;
        const agent = chatAgent(path, job);
        const dirs = new Set(
          societyDirs(path, [...(job ? [job.path] : []), ...links.jobsOf(path)]),
        );
        return calls.map((c) => ({
          ...c,
          job: job?.path ?? null,
          agent,
          delegation: c.delegation === null ? null : {
            ...c.delegation,
            ...linkDelegation(
              c.delegation,
              c.outputAddress?.[1] ?? null,
              dirs,
              known,
              links.agentJobs.get(path),
            ),
          },
        }));
      });
    },
  };
}

/** One edge of a walk, as {@link toolCallCollector}'s `onEdge` takes it. */
export interface WalkEdge {
  /** Parent node: kind and canonical path. */
  from: { kind: "chat" | "job"; path: string };
  /** Child node. */
  to: { kind: "chat" | "job"; path: string };
  /** Relation from parent to child. */
  relation: string;
  /** For `agent_job`, the receipt entry (its `outputAddress` is `[chat, index]`). */
  detail: { outputAddress: unknown } | null;
}

/** What delegation calls link to, gathered from a walk's edges. */
function walkLinks() {
  const chats = new Set<string>();
  const agentJobs = new Map<string, Map<number, Set<string>>>();
  const referred = new Map<string, Set<string>>();
  const add = <K>(m: Map<K, Set<string>>, k: K, v: string) => {
    const set = m.get(k);
    if (set === undefined) m.set(k, new Set([v]));
    else set.add(v);
  };
  return {
    chats,
    agentJobs,
    jobsOf: (chat: string): string[] => [...(referred.get(chat) ?? [])],
    onEdge: ({ from, to, relation, detail }: WalkEdge) => {
      if (to.kind === "chat") chats.add(to.path);
      if (to.kind !== "job" || from.kind !== "chat") return;
      if (relation === "job") add(referred, from.path, to.path);
      const at = relation === "agent_job" ? detail?.outputAddress : undefined;
      if (Array.isArray(at) && typeof at[1] === "number") {
        let byOutput = agentJobs.get(from.path);
        if (byOutput === undefined) agentJobs.set(from.path, byOutput = new Map());
        add(byOutput, at[1], to.path);
      }
    },
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
 * @param root chat path, job path (with `rootType: "job"`) or a JobRef; or
 *   several, walked together (each chat paired once however many reach it)
 * @param o traversal options (`onError` and `onChat` are replaced)
 * @returns calls and warnings, the (first) root's path and every root's
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
  root: ProvenanceRoots,
  o: TraverseOptions = {},
): { root: string; roots: string[]; calls: ProvenanceToolCall[]; warnings: ToolCallWarning[] } {
  const collector = toolCallCollector();
  const warnings: ToolCallWarning[] = [];
  const roots: NodeRef[] = [];
  const walk = traverseProvenance(root, {
    ...o,
    onChat: collector.onChat,
    onError: (e: ProvenanceError) => warnings.push({ code: e.code, message: e.message }),
  });
  for (const r of walk) {
    if (r.parent === null) roots.push(r.node);
    collector.onRecord(r);
  }
  const paths = roots.map((n) => n.path);
  return { root: paths[0]!, roots: paths, calls: collector.calls(), warnings };
}
