/**
 * ChatAnalyst's results as plain JSON: the four analyses (overview, tokens,
 * tool calls, agents) of one walk, and the common head every result
 * carries. Pure functions; no file access.
 *
 * @module
 */
import { basename } from "node:path";
import { provenanceJson, type ProvenanceReport, type ReportEvents } from "../provenance/mod.ts";
import { callOutcomeJson } from "../provenance/render_tool_calls.ts";
import { type ProvenanceToolCall, shortenMiddle } from "../provenance/tool_calls.ts";
import { copyOf, distinctToolCalls } from "../provenance/tool_call_copies.ts";
import { argumentsObject } from "../provenance/delegation_facts.ts";
import { type AnalystWalk, reportWarnings } from "./walk.ts";

/** The schema name of every ChatAnalyst result. */
export const ANALYST_SCHEMA = "scout-ai/chat-analyst";
/**
 * Its version. 2 (R111-4): `chat_tool_calls` counts each call once, however
 * many chats hold a copy, and its calls and `chat_agents`' delegations say
 * which copy is counted (`copyOf`). 3 (R143): `chat_tokens`' `nodes[].hidden`
 * is why the node is hidden (`null`, `"result_chat"`, `"top_level_agent_log"`,
 * as `chat_overview` and `llm prov --json` have it), no longer a boolean; the
 * message tasks' results have `root`, and every warning a `node`. It is part
 * of every task's job identity (`chat_provenance`'s `schema_version`, the
 * message tasks' `result_version` dependency), so a result cached under
 * another version is not read as one of this version.
 */
export const ANALYST_SCHEMA_VERSION = 3;

type Json = Record<string, unknown>;
type Doc = ReturnType<typeof provenanceJson>;
/** `[chat, index]` of a message. */
type Address = [string, number];

/** A tool call as the results carry it (its chat is the group's). */
export interface CallJson {
  /** Tool name. */
  tool: string | null;
  /** Call id (scoped to the chat). */
  callId: string | null;
  /** Index of the call message in the chat. */
  callIndex: number;
  /** Index of the paired output, or null. */
  outputIndex: number | null;
  /** Arguments, compact JSON shortened in the middle to 200 characters. */
  arguments: string;
  /** ok / error / missing_output. */
  status: string;
  /** Which rule decided the status. */
  reason: string;
  /** Exception text (shortened). */
  exception: string | null;
  /** Integer exit status, when the output had one. */
  exitStatus: number | null;
  /** Duration from the batch start to the output, when timestamps exist. */
  durationMs: number | null;
  /** For `ask` / `hand_off_to_*` calls: the delegation's arguments (from the full arguments). */
  delegation?: { target: string | null; conversation: string; prompt: string | null };
  /**
   * What every copy of this call shares (the digest of its call and output
   * messages, `#<k>` for the k-th such call of its chat): a job's log, its
   * result chat and the session its answer went to hold one call three times.
   */
  copyKey: string;
  /**
   * `[chat, callIndex]` of the copy this call is counted as (the first in a
   * chat that names its agent, as `llm prov --tools` shows it), or null for
   * that copy itself: the calls with a null `copyOf` are each call once.
   */
  copyOf: [string, number] | null;
}

/** The calls of one chat, with who made them. */
export interface ChatCallsJson {
  /** Canonical chat path (call addresses are `[chat, callIndex]`). */
  chat: string;
  /** Job whose log or result the chat is, or null. */
  job: string | null;
  /** Agent (from where the chat lives), or null. */
  agent: string | null;
  /** Conversation of a society log, or null. */
  conversation: string | null;
  /** Which evidence named the agent: society_log, job or none. */
  agentFrom: string;
  /** The calls, in order. */
  calls: CallJson[];
}

/** A warning of a result. */
export interface ResultWarning {
  /** Stable code. */
  code: string;
  /** One-line message. */
  message: string;
  /** Id of the node it is about, or null. */
  node: string | null;
}

/** The common head of every result. */
export interface ResultHead {
  /** `scout-ai/chat-analyst`. */
  schema: string;
  /** Schema version. */
  version: number;
  /** Resolved file. */
  file: string;
  /** Root node id, or null when the file could not be walked. */
  root: string | null;
  /** False when some evidence could not be read (or the input was bad). */
  complete: boolean;
  /** What went wrong. */
  warnings: ResultWarning[];
}

/** What one walk yields: the head and the four analyses' bodies. */
export interface WalkParts {
  /** Common head. */
  head: ResultHead;
  /** `chat_overview` body. */
  overview: Json;
  /** `chat_tokens` body. */
  tokens: Json;
  /** `chat_tool_calls` body. */
  tool_calls: Json;
  /** `chat_agents` body. */
  agents: Json;
}

/** The names of the parts (and of the tasks publishing them, with a `chat_` prefix). */
export const PART_NAMES = ["overview", "tokens", "tool_calls", "agents"] as const;

function callJson(c: ProvenanceToolCall, counted: Address | null): CallJson {
  const d = delegationOf(c);
  return {
    tool: c.tool,
    callId: c.callId,
    callIndex: c.callAddress[1],
    outputIndex: c.outputAddress?.[1] ?? null,
    ...callOutcomeJson(c),
    ...(d === null ? {} : { delegation: d }),
    copyKey: c.copyKey,
    copyOf: counted,
  };
}

/**
 * For each of the walk's calls, the address of the copy it is counted as
 * (`distinctToolCalls`' shown copy, R111-4), or null for that copy.
 *
 * @param calls the walk's calls
 * @returns one entry per call
 */
export function countedAs(calls: readonly ProvenanceToolCall[]): (Address | null)[] {
  return copyOf(calls, distinctToolCalls(calls)).map((i) =>
    i === null ? null : calls[i]!.callAddress
  );
}

/**
 * Groups calls by chat (they come chat by chat, in walk order); every copy
 * of a call is listed in its chat.
 *
 * @param calls the walk's calls
 * @param counted their {@link countedAs}
 * @returns one group per chat with calls
 */
export function groupCalls(
  calls: readonly ProvenanceToolCall[],
  counted: readonly (Address | null)[] = countedAs(calls),
): ChatCallsJson[] {
  const out: ChatCallsJson[] = [];
  for (const [i, c] of calls.entries()) {
    let g = out.at(-1);
    if (g === undefined || g.chat !== c.chat) {
      out.push(
        g = {
          chat: c.chat,
          job: c.job,
          agent: c.agent.agent,
          conversation: c.agent.conversation,
          agentFrom: c.agent.from,
          calls: [],
        },
      );
    }
    g.calls.push(callJson(c, counted[i] ?? null));
  }
  return out;
}

/** No events (the analyses map the report's events themselves). */
const NO_EVENTS: ReportEvents = Object.assign([], { hasReceiptEvidence: false, toJSON: () => [] });

/**
 * The four analyses of one walk.
 *
 * @param w the walk
 * @returns head and bodies
 */
export function walkParts(w: AnalystWalk): WalkParts {
  const r: ProvenanceReport | null = w.report;
  // nodes, edges and totals as `prov --json` has them (events: tokensBody maps its own fields)
  const doc = r === null ? null : provenanceJson({ ...r, events: NO_EVENTS });
  const head: ResultHead = {
    schema: ANALYST_SCHEMA,
    version: ANALYST_SCHEMA_VERSION,
    file: w.path,
    root: r?.root ?? null,
    complete: r === null ? false : r.complete,
    warnings: [...w.warnings, ...(r ? reportWarnings(r) : [])],
  };
  const nodes = doc?.nodes ?? [];
  const edges = doc?.edges ?? [];
  const counted = countedAs(w.toolCalls);
  const chats = groupCalls(w.toolCalls, counted);
  return {
    head,
    overview: overviewBody(nodes, edges),
    tokens: tokensBody(r, doc?.totals ?? null),
    tool_calls: toolCallsBody(chats),
    agents: { delegations: delegations(edges, w.toolCalls, counted) },
  };
}

function overviewBody(nodes: Doc["nodes"], edges: Doc["edges"]): Json {
  const count = (k: string) => nodes.filter((n) => (n as Json).kind === k).length;
  return {
    summary: { chats: count("chat"), jobs: count("job"), edges: edges.length },
    nodes,
    edges,
  };
}

function tokensBody(r: ProvenanceReport | null, totals: unknown): Json {
  return {
    scopes: {
      direct: "a node's own meta records (a job: its log chats)",
      subtree: "everything the node reaches, each inference counted once",
      deduplicated_total: "all inferences of the root, each counted once (the cost)",
    },
    totals,
    nodes: Array.from(r?.nodes ?? [], (n) => ({
      id: n.id,
      hidden: n.hidden, // null, or why (as chat_overview and `prov --json` say it)
      direct: n.tokens.direct,
      subtree: n.tokens.subtree,
    })),
    // (identities, tokens and copy addresses: no meta record is rebuilt for this)
    events: r === null ? [] : Array.from(
      r.events.summaries?.() ?? Array.from(r.events, (e) => ({
        identity: e.identity,
        deduplication: e.deduplication,
        tokens: e.tokens,
        conflict: e.conflict,
        sources: e.evidence.map((x) =>
          x.origin === "chat_meta" ? x.metaAddress : x.evidenceAddress
        ),
      })),
      (e) => ({
        identity: e.identity,
        deduplication: e.deduplication,
        tokens: e.tokens,
        conflict: e.conflict,
        sources: e.sources,
      }),
    ),
  };
}

/** The summary counts each call once (its copy with a null `copyOf`); `copies`, every row. */
function toolCallsBody(chats: ChatCallsJson[]): Json {
  const summary = { calls: 0, ok: 0, error: 0, missing_output: 0, copies: 0 };
  for (const g of chats) {
    for (const c of g.calls) {
      summary.copies++;
      if (c.copyOf !== null) continue;
      summary.calls++;
      summary[c.status as "ok"]++;
    }
  }
  return { summary, chats };
}

/**
 * A task's result: the head, its name, and its body.
 *
 * @param head common head
 * @param task task name
 * @param body the body
 * @returns the result
 */
export function result(head: ResultHead, task: string, body: Json): Json {
  const { warnings, ...rest } = head;
  return { ...rest, task, ...body, warnings };
}

/**
 * The delegation a call makes (`ask` with `agent`, `conversation`,
 * `prompt`; `hand_off_to_<Agent>` with `message`), or null for another tool.
 * The conversation of a call that names none is the one its log was found
 * under (`_oneshot-<n>`, the port's one-shot clones), else `default` (the
 * Ruby's reading).
 *
 * @param c the call
 * @returns target, conversation and shortened prompt
 */
export function delegationOf(
  c: ProvenanceToolCall,
): { target: string | null; conversation: string; prompt: string | null } | null {
  const d = c.delegation;
  if (d === null) return null;
  const args = argumentsObject(c.arguments);
  const prompt = c.tool === "ask" ? args.prompt : args.message;
  const logged = d.logs[0] === undefined ? null : basename(d.logs[0], ".chat");
  return {
    target: d.target,
    conversation: d.conversation ?? logged ?? "default",
    prompt: typeof prompt === "string" ? shortenMiddle(prompt, 200) : null,
  };
}

/**
 * Delegation calls (`ask`, `hand_off_to_*`) with how their specialist is
 * known, as the walk linked them (`provenance/delegation.ts`): `structural`
 * (the call's receipt produced an `agent_job` edge: `job` and its `log`),
 * `inferred` (only a society log's path matches — the caller's own
 * `society/`, a one-shot `_oneshot-<n>.chat` for a call without a
 * conversation; `inferred: true`) or `none`. Every copy of a call is listed;
 * `copyOf` names the one counted, as the calls' own.
 *
 * @param edgeList graph edges
 * @param calls the walk's calls
 * @param counted their {@link countedAs}
 * @returns the delegations
 */
function delegations(
  edgeList: Doc["edges"],
  calls: readonly ProvenanceToolCall[],
  counted: readonly (Address | null)[],
): Json[] {
  const edges = edgeList as { from: string; to: string; relation: string }[];
  const logsOf = new Map<string, string[]>();
  for (const e of edges) {
    if (e.relation !== "log") continue;
    (logsOf.get(e.from) ?? logsOf.set(e.from, []).get(e.from)!).push(e.to.slice(5));
  }
  return calls.flatMap((c, i) => {
    const d = c.delegation;
    const args = delegationOf(c);
    if (d === null || args === null) return [];
    const job = d.association === "structural" ? d.jobs[0]! : null;
    const jobLogs = job === null ? [] : logsOf.get(`job:${job}`) ?? [];
    const log = job !== null
      ? jobLogs.find((p) => p.endsWith("/log/agent.chat")) ?? jobLogs[0] ?? null
      : d.logs[0] ?? null;
    return [{
      caller: {
        agent: c.agent.agent,
        conversation: c.agent.conversation,
        chat: c.chat,
        job: c.job,
      },
      tool: c.tool,
      callId: c.callId,
      callAddress: c.callAddress,
      target: args.target,
      conversation: args.conversation,
      prompt: args.prompt,
      status: c.status,
      association: d.association,
      inferred: d.association === "inferred",
      job,
      jobs: d.jobs,
      log,
      copyOf: counted[i] ?? null,
    }];
  });
}
