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
import { ScoutError } from "../errors.ts";
import { jobFile } from "../workflow/files.ts";
import {
  ANALYST_SCHEMA_VERSION,
  PART_NAMES,
  result,
  type ResultHead,
  walkParts,
} from "./results.ts";
import {
  renderReport,
  REPORT_FACTS_VERSION,
  type ReportFacts,
  reportFacts,
  type ReportInputs,
} from "./report.ts";
import { messageContentResult, messageIndexResult } from "./messages.ts";
import { DOC, resultDoc } from "./task_docs.ts";
import { jsonText } from "../util/json_text.ts";

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

/**
 * `chat_provenance`'s schema version: part of its job identity (an input's
 * value is digested into the job's name, its default too), so every task
 * depending on the walk is another job when {@link ANALYST_SCHEMA_VERSION}
 * changes, and a result cached under an earlier version — `chat_tool_calls`
 * counting each copy of a call, before R111-4 — is never read as one of
 * this version. The tasks depending on it fix it (it is no input of theirs).
 */
const SCHEMA_VERSION = {
  schema_version: input.integer({
    default: ANALYST_SCHEMA_VERSION,
    description: "internal: the version of the results the walk saves (part of its job identity)",
  }),
};

/** The dependency on the walk, at this schema version. */
const WALK = { task: "chat_provenance", inputs: { schema_version: ANALYST_SCHEMA_VERSION } };

/** The job named for this schema version (see {@link resultVersionSpec}). */
const VERSION_JOB = `v${ANALYST_SCHEMA_VERSION}`;

/**
 * The message tasks' dependency on the schema version: they do not walk
 * with `chat_provenance`, so the version enters their job identity through
 * this job's name (a dependency's path is digested into its dependent's
 * name), and a message result cached under another version is not read as
 * one of this version (R143: version 3 added their `root`).
 */
const VERSION = { task: "result_version", jobname: VERSION_JOB };

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
    const bytes = ENCODER.encode(jsonText(results[`chat_${name}`]));
    writes.push(writeFileAtomic(files[name], bytes));
  }
  const facts = reportFacts(results as unknown as ReportInputs);
  writes.push(writeFileAtomic(job.file(FACTS_FILE), jsonText(facts)));
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

/** `chat_provenance`: the one walk, its analyses saved in the job's files. */
function chatProvenanceSpec(): TaskSpec {
  return {
    type: "json",
    description: DOC.chat_provenance,
    returns: resultDoc(
      "parts {overview, tokens, tool_calls, agents} (the files its analyses are saved in)",
    ),
    inputs: { ...COMMON, ...SCHEMA_VERSION },
    run: ({ file, jobs_dir, schema_version }, job) => {
      // a job named for another version must not hold results of this one
      if (schema_version !== ANALYST_SCHEMA_VERSION) {
        throw new ScoutError(
          "parameter",
          `ChatAnalyst/chat_provenance makes results of schema version ${ANALYST_SCHEMA_VERSION}, not "${schema_version}"`,
          { input: "schema_version" },
        );
      }
      return provenanceTask(
        job.helpers.provenance_walk!(file, jobs_dir) as ReturnType<typeof provenanceWalk>,
        job,
      );
    },
  };
}

/** `result_version`: the schema version, in a job named for it (see {@link VERSION}). */
function resultVersionSpec(): TaskSpec {
  return {
    type: "integer",
    description: "The version of the results the message tasks make (internal: their " +
      "dependency, which puts the version into their job identity).",
    returns: `${ANALYST_SCHEMA_VERSION}, in the job named ${VERSION_JOB}`,
    run: (_inputs, job) => {
      // a job named for another version must not say it is this one
      if (job.name !== VERSION_JOB) {
        throw new ScoutError(
          "parameter",
          `ChatAnalyst/result_version is job "${VERSION_JOB}", not "${job.name}"`,
          { input: "jobname" },
        );
      }
      return ANALYST_SCHEMA_VERSION;
    },
  };
}

/** `message_index`: every message's address, role and lineage id. */
function messageIndexSpec(): TaskSpec {
  return {
    type: "json",
    description: DOC.message_index,
    returns: resultDoc("chats (count), messages"),
    inputs: COMMON,
    deps: [VERSION],
    run: ({ file, jobs_dir }) => messageIndexResult(file, jobs_dir),
  };
}

/** `message_content`: the messages at the given addresses. */
function messageContentSpec(): TaskSpec {
  return {
    type: "json",
    description: DOC.message_content,
    returns: resultDoc(
      "messages [{address, role, lineage_id, content}]",
      "",
      "invalid_addresses (node null: ADDRESSES is no JSON array of [path, index]), " +
        "address_not_found (node the chat's id when the walk reached it and it has no such " +
        "message, null when the chat is not in FILE's provenance)",
    ),
    inputs: {
      ...COMMON,
      addresses: input.text({
        required: true,
        description: 'JSON array of [path, index] addresses, e.g. [["/w/session.chat", 3]]',
        noload: true,
      }),
    },
    deps: [VERSION],
    run: ({ file, jobs_dir, addresses }) => messageContentResult(file, jobs_dir, addresses),
  };
}

/** A task publishing one analysis `chat_provenance` saved (see {@link partTask}). */
function publishedPartSpec(
  part: (typeof PART_NAMES)[number],
  returns: string,
  note = "",
): TaskSpec {
  return {
    type: "json",
    description: DOC[`chat_${part}`],
    returns: resultDoc(returns, note),
    inputs: COMMON,
    deps: [WALK],
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
    "summary {calls, ok, error, missing_output, copies}, chats: " +
      "[{chat, job, agent, conversation, agentFrom, calls: [{tool, callId, callIndex, " +
      "outputIndex, arguments, status, reason, exception, exitStatus, durationMs, copyKey, " +
      "copyOf}]}]",
    "a call is listed in every chat holding a copy (a chat-task job's log, its result, the " +
      "chat its answer went to: the same copyKey) and counted once: copyOf is null for the copy " +
      "counted, else that copy's [chat, callIndex]; summary counts calls, copies every one listed",
  );
}

/** `chat_tokens`: token use by scope, node and inference. */
function chatTokensSpec(): TaskSpec {
  return publishedPartSpec(
    "tokens",
    "scopes, totals, nodes [{id, hidden, direct, subtree}], events",
    "hidden is null, result_chat or top_level_agent_log, as chat_overview's nodes have it; " +
      "totals is null and nodes and events are empty when root is null",
  );
}

/** `chat_agents`: the delegations. */
function chatAgentsSpec(): TaskSpec {
  return publishedPartSpec(
    "agents",
    "delegations [{caller, tool, callId, callAddress, target, conversation, prompt, status, " +
      "association, inferred, job, jobs, log, copyOf}]",
    "a delegation is listed once per copy of its call; copyOf is null for the copy counted (as " +
      "chat_tool_calls counts it), else that copy's [chat, callIndex]",
  );
}

/** `chat_report`: the Markdown report composed from the four analyses. */
function chatReportSpec(): TaskSpec {
  return {
    type: "text",
    extension: "md",
    description: DOC.chat_report,
    returns: "Markdown text (tool calls, failures and delegations each counted once)",
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
      result_version: resultVersionSpec(),
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
