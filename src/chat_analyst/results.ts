/**
 * ChatAnalyst's results as plain JSON: the one-walk base document
 * (`chat_provenance`) and the projections the other tasks make of it
 * (overview, tokens, tool calls, agents). Pure functions; no file access.
 *
 * @module
 */
import { join } from "node:path";
import { provenanceJson, type ProvenanceReport } from "../provenance/mod.ts";
import { toolCallsJson } from "../provenance/render_tool_calls.ts";
import { shortenMiddle } from "../provenance/tool_calls.ts";
import { type AnalystWalk, reportWarnings } from "./walk.ts";

/** The schema name of every ChatAnalyst result. */
export const ANALYST_SCHEMA = "scout-ai/chat-analyst";
/** Its version. */
export const ANALYST_SCHEMA_VERSION = 1;

type Json = Record<string, unknown>;
type Doc = ReturnType<typeof provenanceJson>;

/** A tool call as the results carry it (the `scout-ai/tool-calls` call shape). */
export interface CallJson {
  /** Tool name. */
  tool: string | null;
  /** Agent that made the call. */
  agent: string | null;
  /** Conversation of a society log. */
  conversation: string | null;
  /** Chat holding the call. */
  chat: string;
  /** Job whose log/result the chat is. */
  job: string | null;
  /** Call id. */
  callId: string | null;
  /** Address of the call. */
  callAddress: [string, number];
  /** Address of the output. */
  outputAddress: [string, number] | null;
  /** Arguments, compact JSON shortened. */
  arguments: string;
  /** ok / error / missing_output. */
  status: string;
  /** Exception text. */
  exception: string | null;
  /** Duration. */
  durationMs: number | null;
  /** For `ask` / `hand_off_to_*` calls: the delegation's arguments (from the full arguments). */
  delegation?: { target: string | null; conversation: string; prompt: string | null };
}

/** The base document: everything the projections need, from one walk. */
export interface ProvenanceBase {
  /** Schema header. */
  schema: string;
  /** Version. */
  version: number;
  /** Resolved file. */
  file: string;
  /** Root node id, or null when the file could not be walked. */
  root: string | null;
  /** False when some evidence could not be read (or the input was bad). */
  complete: boolean;
  /** `prov --json` nodes. */
  nodes: Doc["nodes"];
  /** `prov --json` edges. */
  edges: Doc["edges"];
  /** Compact events. */
  events: Json[];
  /** `prov --json` totals (null when nothing was walked). */
  totals: unknown;
  /** Tool calls. */
  toolCalls: CallJson[];
  /** Warnings: input problems and the report's (code, message, node id). */
  warnings: { code: string; message: string; node: string | null }[];
}

/**
 * Builds the base document of a walk.
 *
 * @param w the walk
 * @returns the document
 */
export function provenanceBase(w: AnalystWalk): ProvenanceBase {
  const r: ProvenanceReport | null = w.report;
  const doc = r === null ? null : provenanceJson(r);
  const calls = toolCallsJson(w.path, w.toolCalls, []).calls as CallJson[];
  w.toolCalls.forEach((c, i) => {
    const d = delegationOf(c.tool, c.arguments);
    if (d !== null) calls[i]!.delegation = d;
  });
  return {
    schema: ANALYST_SCHEMA,
    version: ANALYST_SCHEMA_VERSION,
    file: w.path,
    root: r?.root ?? null,
    complete: r === null ? false : r.complete,
    nodes: doc?.nodes ?? [],
    edges: doc?.edges ?? [],
    events: (r?.events ?? []).map((e) => ({
      inferenceId: e.inferenceId,
      identity: e.identity,
      deduplication: e.deduplication,
      status: e.status,
      tokens: e.tokens,
      conflict: e.conflict,
      sources: e.evidence.map((x) => x.origin === "chat_meta" ? x.metaAddress : x.evidenceAddress),
    })),
    totals: doc?.totals ?? null,
    toolCalls: calls,
    warnings: [...w.warnings.map((x) => ({ ...x, node: null })), ...(r ? reportWarnings(r) : [])],
  };
}

function head(b: ProvenanceBase, task: string): Json {
  return {
    schema: b.schema,
    version: b.version,
    task,
    file: b.file,
    root: b.root,
    complete: b.complete,
  };
}

/**
 * `chat_overview`: nodes and structural edges as `prov --json` has them.
 *
 * @param b base document
 * @returns the result
 */
export function overviewOf(b: ProvenanceBase): Json {
  const count = (k: string) => b.nodes.filter((n) => (n as Json).kind === k).length;
  return {
    ...head(b, "chat_overview"),
    summary: { chats: count("chat"), jobs: count("job"), edges: b.edges.length },
    nodes: b.nodes,
    edges: b.edges,
    warnings: b.warnings,
  };
}

/**
 * `chat_tokens`: per-inference events, totals by scope, and each node's
 * `direct` (its own metas; a job: its logs) and `subtree` (all it reaches,
 * each inference once) tokens.
 *
 * @param b base document
 * @returns the result
 */
export function tokensOf(b: ProvenanceBase): Json {
  return {
    ...head(b, "chat_tokens"),
    scopes: {
      direct: "a node's own meta records (a job: its log chats)",
      subtree: "everything the node reaches, each inference counted once",
      deduplicated_total: "all inferences of the root, each counted once (the cost)",
    },
    totals: b.totals,
    nodes: b.nodes.map((n) => {
      const x = n as Json & { tokens: { direct: unknown; subtree: unknown } };
      return { id: x.id, label: x.label, direct: x.tokens.direct, subtree: x.tokens.subtree };
    }),
    events: b.events,
    warnings: b.warnings,
  };
}

/**
 * `chat_tool_calls`: every call with its status.
 *
 * @param b base document
 * @returns the result
 */
export function toolCallsOf(b: ProvenanceBase): Json {
  const summary = { calls: b.toolCalls.length, ok: 0, error: 0, missing_output: 0 };
  for (const c of b.toolCalls) summary[c.status as "ok"]++;
  return { ...head(b, "chat_tool_calls"), summary, calls: b.toolCalls, warnings: b.warnings };
}

function argObject(args: unknown): Json {
  let v = args;
  if (typeof v === "string") {
    try {
      v = JSON.parse(v);
    } catch {
      return {}; // not JSON: the target comes from the tool name only
    }
  }
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v as Json : {};
}

/**
 * The delegation a call makes (`ask` with `agent`, `conversation`,
 * `prompt`; `hand_off_to_<Agent>`), or null for another tool.
 *
 * @param tool tool name
 * @param raw raw arguments
 * @returns target, conversation (default `default`) and shortened prompt
 */
export function delegationOf(
  tool: string | null,
  raw: unknown,
): { target: string | null; conversation: string; prompt: string | null } | null {
  const t = tool ?? "";
  if (t !== "ask" && !t.startsWith("hand_off_to_")) return null;
  const args = argObject(raw);
  return {
    target: t === "ask"
      ? (typeof args.agent === "string" && args.agent !== "" ? args.agent : null)
      : t.slice("hand_off_to_".length),
    conversation: typeof args.conversation === "string" && args.conversation !== ""
      ? args.conversation
      : "default",
    prompt: typeof args.prompt === "string" ? shortenMiddle(args.prompt, 200) : null,
  };
}

/**
 * `chat_agents`: delegation calls (`ask`, `hand_off_to_*`) with how their
 * specialist is known: `structural` (the call's receipt produced an
 * `agent_job` edge: `job` and its `log`), `inferred` (only a
 * `society/<Agent>/<conversation>.chat` log beside the caller matches;
 * `inferred: true`) or `none`.
 *
 * @param b base document
 * @returns the result
 */
export function agentsOf(b: ProvenanceBase): Json {
  const edges = b.edges as { from: string; to: string; relation: string; detail: Json | null }[];
  const chats = new Set(
    b.nodes.flatMap((n) => (n as Json).kind === "chat" ? [(n as Json).path as string] : []),
  );
  const logsOf = new Map<string, string[]>();
  for (const e of edges) {
    if (e.relation !== "log") continue;
    (logsOf.get(e.from) ?? logsOf.set(e.from, []).get(e.from)!).push(e.to.slice(5));
  }
  const delegations = b.toolCalls.flatMap((c) => {
    if (c.delegation === undefined) return [];
    const { target, conversation, prompt } = c.delegation;
    const edge = edges.find((e) =>
      e.relation === "agent_job" && e.from === `chat:${c.chat}` && e.detail?.callId === c.callId
    );
    let association = "none";
    let job: string | null = null;
    let log: string | null = null;
    if (edge !== undefined) {
      association = "structural";
      job = edge.to.slice(4);
      const logs = logsOf.get(edge.to) ?? [];
      log = logs.find((p) => p.endsWith("/log/agent.chat")) ?? logs[0] ?? null;
    } else if (target !== null) {
      const beside = join(c.chat, "..", "society", target, `${conversation}.chat`);
      const suffix = `/society/${target}/${conversation}.chat`;
      log = chats.has(beside)
        ? beside
        : [...chats].find((p) =>
          c.job !== null && p.startsWith(c.job + ".files/log/") && p.endsWith(suffix)
        ) ?? null;
      if (log !== null) association = "inferred";
    }
    return [{
      caller: { agent: c.agent, conversation: c.conversation, chat: c.chat, job: c.job },
      tool: c.tool,
      callId: c.callId,
      callAddress: c.callAddress,
      target,
      conversation,
      prompt,
      status: c.status,
      association,
      inferred: association === "inferred",
      job,
      log,
    }];
  });
  return { ...head(b, "chat_agents"), delegations, warnings: b.warnings };
}
