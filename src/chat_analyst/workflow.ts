/**
 * The ChatAnalyst workflow: provenance analyses of a chat (or job) as
 * workflow tasks, so they are cached as jobs, compose as dependencies and
 * can be handed to a model (`tool: ChatAnalyst`). Tasks are thin: each makes
 * at most one walk through a helper and returns plain JSON. The walk behind
 * overview, tokens, tool calls and agents is one task, `chat_provenance`,
 * that they depend on; `chat_report` depends on those four.
 *
 * @module
 */
import { input, type TaskSpec, type Workflow, workflow } from "../workflow/define.ts";
import type { JobContext } from "../workflow/job_types.ts";
import { chatWalk, provenanceWalk } from "./walk.ts";
import { copyFileSync, existsSync, linkSync, readFileSync, statSync } from "node:fs";
import { writeFileAtomic } from "../util/fs.ts";
import { jobFile } from "../workflow/files.ts";
import { PART_NAMES, result, type ResultHead, walkParts } from "./results.ts";
import {
  renderReport,
  REPORT_FACTS_VERSION,
  type ReportFacts,
  reportFacts,
  type ReportInputs,
} from "./report.ts";
import { messageContentResult, messageIndexResult } from "./messages.ts";

/** The workflow's name. */
export const CHAT_ANALYST = "ChatAnalyst";

const FILE = input.file({
  required: true,
  description:
    "chat file, or job path (detected by its .info or .files), whose provenance to analyse",
});
const JOBS_DIR = input.array({
  default: [],
  description: "extra job roots to resolve job references under (searched first)",
});
const COMMON = { file: FILE, jobs_dir: JOBS_DIR };

/** A JSON task's result: the common head, its own `fields`, the warnings; then when it is incomplete. */
function resultDoc(fields: string): string {
  return "JSON {schema: scout-ai/chat-analyst, version: 1, task, file, root, complete, " +
    `${fields}, warnings: [{code, message, node}]}; complete is false and warnings say why ` +
    "when the file is missing, a directory, or some evidence (a receipt, a log, a job) could " +
    "not be read";
}

/** What `chat_provenance` returns: the common head and where each analysis was saved. */
type BaseResult = ResultHead & { task: string; parts: Record<string, string> };

const ENCODER = new TextEncoder();

/** Where `chat_provenance` saves what the report shows of its analyses (see {@link reportTask}). */
const FACTS_FILE = "report_facts.json";

/**
 * The walk, once: each analysis saved whole (head included) in the job's
 * files, and what the report shows of them ({@link reportFacts}, a few KB).
 * Each text goes to the writer (temp file, fsync, rename on the I/O threads)
 * as soon as it is made, so the next analysis is serialised while the last
 * one is written.
 */
async function provenanceTask(
  walk: ReturnType<typeof provenanceWalk>,
  job: JobContext,
): Promise<BaseResult> {
  const parts = walkParts(walk);
  const files: Record<string, string> = {};
  const results: Record<string, Record<string, unknown>> = {};
  const writes: Promise<void>[] = [];
  for (const name of PART_NAMES) {
    files[name] = job.file(`${name}.json`);
    results[`chat_${name}`] = result(parts.head, `chat_${name}`, parts[name]);
    // as bytes: the I/O threads then only write (Bun encodes a string there slowly)
    const bytes = ENCODER.encode(JSON.stringify(results[`chat_${name}`]));
    writes.push(writeFileAtomic(files[name], bytes));
  }
  const facts = reportFacts(results as unknown as ReportInputs);
  writes.push(writeFileAtomic(job.file(FACTS_FILE), JSON.stringify(facts)));
  const failed = (await Promise.allSettled(writes)).find((w) => w.status === "rejected");
  if (failed !== undefined) throw failed.reason; // every write has ended: none left behind
  return { ...parts.head, task: "chat_provenance", parts: files };
}

function sameFile(a: string, b: string): boolean {
  try {
    const x = statSync(a);
    const y = statSync(b);
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

/**
 * The report facts `chat_provenance` saved, when they are the facts of this
 * report's four dependency results: each result file is the saved analysis
 * itself (the hard link {@link partTask} made), so the facts were taken from
 * exactly that content. Else null (a copied result, a cache written before
 * the facts were saved, facts of another version, a dependency not done).
 */
async function savedFacts(job: JobContext): Promise<ReportFacts | null> {
  const base = job.step("chat_provenance");
  if (base === undefined || !existsSync(base.path)) return null;
  try {
    const { parts } = await job.load(base) as Partial<BaseResult>;
    for (const name of PART_NAMES) {
      const dep = job.step(`chat_${name}`);
      const file = parts?.[name];
      if (dep === undefined || typeof file !== "string" || !sameFile(dep.path, file)) return null;
    }
    const facts = JSON.parse(readFileSync(jobFile(base.path, FACTS_FILE), "utf8")) as ReportFacts;
    return facts.version === REPORT_FACTS_VERSION ? facts : null;
  } catch {
    return null; // not saved (an older cache) or unreadable: the results are loaded instead
  }
}

/**
 * `chat_report`: the report of its four dependencies' results. Their facts
 * are read from where `chat_provenance` saved them when they belong to those
 * very results; otherwise the four results are loaded (tens of MB of JSON on
 * a big store) and the facts taken from them — the same report either way.
 */
async function reportTask(_inputs: unknown, job: JobContext): Promise<string> {
  const saved = await savedFacts(job);
  if (saved !== null) return renderReport(saved);
  const load = async (t: string) => await job.load(t) as Record<string, unknown>;
  return renderReport(reportFacts({
    chat_overview: await load("chat_overview"),
    chat_tokens: await load("chat_tokens"),
    chat_tool_calls: await load("chat_tool_calls"),
    chat_agents: await load("chat_agents"),
  }));
}

/**
 * A task publishing one analysis of the walk: the saved result becomes its
 * result file as is (the runner takes a task's `tmpPath` when the body
 * returns nothing), so tens of megabytes are not parsed and printed again.
 */
function partTask(part: (typeof PART_NAMES)[number]) {
  return async (_inputs: unknown, job: JobContext): Promise<undefined> => {
    const { parts } = await job.load("chat_provenance") as BaseResult;
    try {
      linkSync(parts[part]!, job.tmpPath); // both files are written once and never changed
    } catch {
      copyFileSync(parts[part]!, job.tmpPath); // another file system, or no hard links
    }
    return undefined;
  };
}

const DOC = {
  chat_provenance:
    "The one provenance walk the other analyses share (internal: not exported as a tool). " +
    "Walks FILE once, as `llm prov` does, pairing every chat's tool calls as it is read, and " +
    "saves the four analyses (overview, tokens, tool_calls, agents) in its job files for the " +
    "tasks that publish them.",
  message_index:
    "Every message of every chat in FILE's provenance, as {address: [path, index], role, lineage_id}. " +
    "Addresses say where a message is saved; lineage ids say which conversational content it is " +
    "(copied history shares them). Use addresses with message_content.",
  message_content:
    "The messages at ADDRESSES (a JSON array of [path, index], as message_index gives them): " +
    "role, lineage_id and content (over 20,000 characters shortened in the middle). Only chats in " +
    "FILE's provenance can be read; other addresses are warnings.",
  chat_overview:
    "The provenance graph of FILE: nodes (chats and jobs: id, kind, path, label, hidden, owner, " +
    "job facts, tokens) and structural edges (from, to, relation: job, agent_job, dependency, log, " +
    "result), exactly as `llm prov --json` has them, plus counts.",
  chat_tool_calls:
    "Every tool invocation in FILE's provenance, each call paired with its output by call id " +
    "within its chat, grouped by chat: the chat, its job and agent (from where the chat lives), " +
    "and per call the tool, call id, call and output indices, arguments (compact JSON, " +
    "shortened), status ok / error / missing_output, exception, exitStatus, and durationMs " +
    "(when the output has timestamps).",
  chat_tokens:
    "Token use of FILE: totals by scope (deduplicated_total is the cost; chat_evidence, " +
    "receipt_evidence, receipt_only describe coverage and overlap), each node's direct tokens " +
    "(its own meta records; a job: its logs) and subtree tokens (all it reaches, each inference " +
    "once), and the per-inference events (identity, deduplication rule, tokens, source addresses).",
  chat_agents:
    "Delegations in FILE's provenance (`ask` and `hand_off_to_*` calls): caller, target agent, " +
    "conversation, prompt (shortened), status, and the specialist's job (jobs: every job its " +
    "receipt named) and log. association is " +
    "structural (the call's agent_meta receipt names the job), inferred (only a " +
    "society/<Agent>/<conversation>.chat log in the caller's own society matches, a one-shot " +
    "_oneshot-<n>.chat for a call without a conversation; inferred: true) or none.",
  chat_report:
    "A Markdown report of FILE: graph size, token totals by scope and the largest spenders, tool " +
    "calls by tool with the failed ones, delegations, warnings. Composed from chat_overview, " +
    "chat_tokens, chat_tool_calls and chat_agents (its dependencies: cached jobs, shared with " +
    "direct calls of those tasks).",
};

/** `chat_provenance`: the one walk, its analyses saved in the job's files. */
function chatProvenanceSpec(): TaskSpec {
  return {
    type: "json",
    description: DOC.chat_provenance,
    returns: resultDoc(
      "parts {overview, tokens, tool_calls, agents} (the files its analyses are saved in)",
    ),
    inputs: COMMON,
    run: ({ file, jobs_dir }, job) =>
      provenanceTask(
        job.helpers.provenance_walk!(file, jobs_dir) as ReturnType<typeof provenanceWalk>,
        job,
      ),
  };
}

/** `message_index`: every message's address, role and lineage id. */
function messageIndexSpec(): TaskSpec {
  return {
    type: "json",
    description: DOC.message_index,
    returns: resultDoc("chats (count), messages"),
    inputs: COMMON,
    run: ({ file, jobs_dir }) => messageIndexResult(file, jobs_dir),
  };
}

/** `message_content`: the messages at the given addresses. */
function messageContentSpec(): TaskSpec {
  return {
    type: "json",
    description: DOC.message_content,
    returns: resultDoc("messages [{address, role, lineage_id, content}]"),
    inputs: {
      ...COMMON,
      addresses: input.text({
        required: true,
        description: 'JSON array of [path, index] addresses, e.g. [["/w/session.chat", 3]]',
        noload: true,
      }),
    },
    run: ({ file, jobs_dir, addresses }) => messageContentResult(file, jobs_dir, addresses),
  };
}

/** A task publishing one analysis `chat_provenance` saved (see {@link partTask}). */
function publishedPartSpec(part: (typeof PART_NAMES)[number], returns: string): TaskSpec {
  return {
    type: "json",
    description: DOC[`chat_${part}`],
    returns: resultDoc(returns),
    inputs: COMMON,
    deps: ["chat_provenance"],
    run: partTask(part),
  };
}

/** `chat_overview`: the provenance graph. */
function chatOverviewSpec(): TaskSpec {
  return publishedPartSpec("overview", "summary {chats, jobs, edges}, nodes, edges");
}

/** `chat_tool_calls`: every tool invocation, paired with its output. */
function chatToolCallsSpec(): TaskSpec {
  return publishedPartSpec(
    "tool_calls",
    "summary {calls, ok, error, missing_output}, chats: " +
      "[{chat, job, agent, conversation, agentFrom, calls: [{tool, callId, callIndex, " +
      "outputIndex, arguments, status, reason, exception, exitStatus, durationMs}]}]",
  );
}

/** `chat_tokens`: token use by scope, node and inference. */
function chatTokensSpec(): TaskSpec {
  return publishedPartSpec(
    "tokens",
    "scopes, totals, nodes [{id, hidden, direct, subtree}], events",
  );
}

/** `chat_agents`: the delegations. */
function chatAgentsSpec(): TaskSpec {
  return publishedPartSpec("agents", "delegations");
}

/** `chat_report`: the Markdown report composed from the four analyses. */
function chatReportSpec(): TaskSpec {
  return {
    type: "text",
    extension: "md",
    description: DOC.chat_report,
    returns: "Markdown text",
    inputs: COMMON,
    deps: ["chat_overview", "chat_tokens", "chat_tool_calls", "chat_agents"],
    run: reportTask,
  };
}

function define(): Workflow {
  return workflow(CHAT_ANALYST, {
    title: "ChatAnalyst: how a chat or job was produced",
    description:
      "Provenance analyses of a chat file or a job as cached workflow tasks: the graph " +
      "of chats and jobs, token use, tool calls and delegations, and a Markdown report. " +
      "Nothing is executed: the tasks only read the chats and jobs they find. Results are cached " +
      "by the file's content and path: use --recompute after the chats or jobs it reaches change.",
    helpers: {
      provenance_walk: (_job, file: string, dirs: string[]) => provenanceWalk(file, dirs),
      chat_walk: (_job, file: string, dirs: string[], onChat) => chatWalk(file, dirs, onChat),
    },
    tasks: {
      chat_provenance: chatProvenanceSpec(),
      message_index: messageIndexSpec(),
      message_content: messageContentSpec(),
      chat_overview: chatOverviewSpec(),
      chat_tool_calls: chatToolCallsSpec(),
      chat_tokens: chatTokensSpec(),
      chat_agents: chatAgentsSpec(),
      chat_report: chatReportSpec(),
    },
    exports: {
      synchronous: [
        "chat_report",
        "chat_overview",
        "chat_tokens",
        "chat_tool_calls",
        "chat_agents",
        "message_index",
        "message_content",
      ],
    },
  });
}

let built: Workflow | null = null;

/**
 * The ChatAnalyst workflow (built on first use, then the same object).
 *
 * @returns the workflow
 *
 * @example
 * ```ts ignore
 * import { createJob, runJob } from "../workflow/mod.ts";
 * import { chatAnalystWorkflow } from "./workflow.ts";
 * const job = createJob(chatAnalystWorkflow(), "chat_tokens", { inputs: { file: "session.chat" } });
 * const tokens = await runJob(job);
 * ```
 */
export function chatAnalystWorkflow(): Workflow {
  return built ??= define();
}
