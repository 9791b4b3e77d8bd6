/**
 * The `ask`-task route (`agents.md` §1.4 step 2, §4.5): an agent whose
 * workflow has a task `ask` runs each inference as a job of that task, the
 * agent and call options appended as `sticky_option` lines so they override
 * the chat's own; the caller's runtime, credentials and tools (handlers)
 * reach the agents the job's body creates in memory instead. Same chat ⇒
 * same job ⇒ the cached answer. Under `--no-cache` a job an earlier run
 * left is never cleaned (its receipts in saved chats name its files): the
 * run takes the first free `rerun-<n>` job of the same inputs instead
 * ([TS-FIX]). While such a job is being produced, an `ask` of an agent with
 * the same workflow inside its body takes the direct route, so the route
 * cannot recurse without bound
 * ([TS-FIX] §7.18).
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { print } from "../chat/print.ts";
import { mergeOptionLines } from "../chat/written_at.ts";
import { project } from "../chat/project.ts";
import type { Message } from "../chat/types.ts";
import { ScoutError } from "../errors.ts";
import { requestOptions } from "../llm/ask_options.ts";
import { withKeyAliases } from "../llm/key_aliases.ts";
import { attachMessages } from "../llm/loop.ts";
import { allReplayed, type InferenceTally, tallyInferences } from "../llm/inference_tally.ts";
import { isDone } from "../workflow/context.ts";
import { createJob } from "../workflow/job.ts";
import type { Job } from "../workflow/job_types.ts";
import { loadJobResult, produceJob } from "../workflow/run.ts";
import type { ToolRegistry } from "../tools/types.ts";
import { isSecretName, redactUrlsIn } from "../util/secrets.ts";
import { ownTools } from "./own_tools.ts";
import { keepInFlight, settled, withPaidListener } from "./in_flight.ts";
import {
  cachedJob,
  hold,
  type MakeJob,
  rerunKeyAliases,
  runName,
  toolsName,
  uncachedJob,
} from "./ask_jobs.ts";
import type { Agent, AgentCallOptions, AgentReply, AgentRuntime } from "./types.ts";

/** What a task-route ask passes down to the job it produces. */
interface RouteScope {
  /** Workflows whose `ask` job is being produced in this async context. */
  workflows: ReadonlySet<string>;
  /** The caller's runtime, for the agents the job's body creates. */
  runtime: AgentRuntime;
  /** The caller's credential options (`-O key=…`): passed in memory, never in the job's chat. */
  secrets: Record<string, unknown>;
  /** The tools the caller was given, for the agent of the job it produces (not of others). */
  given: CallerTools & {
    job: string;
    /** The messages the job's input chat was printed from (their lines' marks, for errors). */
    chat: readonly Message[];
  };
}

/** The tools a task-route ask was given (call ∪ agent `tools`), and by whom. */
export interface CallerTools {
  /** Call tools ∪ the caller's `tools` option (handlers included). */
  tools: ToolRegistry;
  /** The agent that asked: tools bound to it are rebuilt for the job's agent. */
  caller: Agent;
}

const active = new AsyncLocalStorage<RouteScope>();

/** Runtime keys an agent created inside the route's job inherits from its caller. */
const INHERITED_RUNTIME = [
  "env",
  "cwd",
  "config",
  "fetch",
  "signal",
  "warn",
  "cache",
  "offline",
  // the token session: the job's agent is this agent's conversation (a specialist's own
  // session, §3.3), not the process's default that a CLI-loaded caller counts into
  "session",
  // the run's resolver of tool lines: one MCP client per server for the whole run
  "toolResolver",
] as const;

/**
 * The runtime of the task-route ask whose job is being produced around this
 * call (`--offline`, `--no-cache`, env, cwd… of `agent ask`), or undefined
 * outside one. The chat-task helper `agent()` uses it when not given one.
 *
 * @returns the caller's runtime hooks
 */
export function routeRuntime(): AgentRuntime | undefined {
  return active.getStore()?.runtime;
}

/**
 * The credential options of the task-route ask around this call (kept out
 * of the job's chat, so out of its `.info` and name), or `{}`.
 *
 * @returns option key → value
 */
export function routeSecrets(): Record<string, unknown> {
  return { ...active.getStore()?.secrets };
}

/**
 * The tools the task-route ask producing `job` was given — its call's
 * `tools` and its agent's `tools` option (`socialize`, `delegate`, what the
 * application set): they are options of that ask (§1.4 step 2) but hold
 * handlers, so they travel in memory, never in the job's chat. Undefined
 * for any other job (a chat task the job's agent runs as a tool).
 *
 * @param job path of the job asking
 * @returns the tools and the agent that asked, or undefined
 */
export function routeTools(job: string): CallerTools | undefined {
  const given = active.getStore()?.given;
  return given?.job === job ? { tools: given.tools, caller: given.caller } : undefined;
}

/**
 * The messages the input chat of `job` was printed from, by the task-route
 * ask producing it: they carry where each line was written (`written_at.ts`),
 * which the job's parse of its input gives back, so that a bad `tool:`,
 * `introduce:` or `endpoint:` line fails naming its file and line as well as
 * the job. Undefined for any other job. (Two identical asks at once share one
 * run of the job: its errors name the lines of the ask that started it.)
 *
 * @param job path of the job
 * @returns the messages, or undefined
 */
export function routeChat(job: string): readonly Message[] | undefined {
  const given = active.getStore()?.given;
  return given?.job === job ? given.chat : undefined;
}

/**
 * The credential options of an ask (call over agent): those of a secret name
 * (`key`, `session_token`…) and those whose text holds a url with
 * credentials (`url http://user:pw@…`). They reach the job in memory.
 */
function secretOptions(agent: Agent, options: AgentCallOptions): Record<string, unknown> {
  const all = { ...requestOptions(agent.options), ...requestOptions(options) };
  return Object.fromEntries(
    Object.entries(all).filter(([k, v]) => isSecretName(k) || shownValue(v) !== stickyValue(v)),
  );
}

function stickyValue(v: unknown): string {
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

/** An option's value as the job's chat may hold it: urls without their credentials. */
function shownValue(v: unknown): string {
  return redactUrlsIn(stickyValue(v));
}

function inheritedRuntime(agent: Agent, options: AgentCallOptions): AgentRuntime {
  const out: Record<string, unknown> = {};
  for (const k of INHERITED_RUNTIME) {
    const v = options[k] ?? agent.runtime[k];
    if (v !== undefined) out[k] = v;
  }
  // where option lines were written (an error names its line): the call's over the start chat's
  const lines = mergeOptionLines(agent.runtime.optionLines, options.optionLines);
  if (lines) out.optionLines = lines;
  return out as AgentRuntime;
}

function isOn(v: unknown): boolean {
  return v !== undefined && v !== null && v !== false &&
    !(typeof v === "string" && /^(false|no|nil|none|0|)$/i.test(v.trim()));
}

/**
 * Whether an ask of this agent takes the task route: its workflow has an
 * `ask` task, `no_ask_override` is not set, and no `ask` job of that workflow
 * is being produced around this call (§4.5).
 *
 * @param agent the agent
 * @returns true for the task route
 */
export function useTaskRoute(agent: Agent): boolean {
  const wf = agent.workflow;
  if (!wf || wf.tasks.ask === undefined || isOn(agent.options.no_ask_override)) return false;
  return !(active.getStore()?.workflows.has(wf.name) ?? false);
}

/**
 * The sticky options the task route appends: one per agent option, then one
 * per call option (`return_messages`, tools, runtime hooks and credentials
 * excepted: a `-O key=…` or `-O session_token=…` never lands in the job's
 * `.info`, and a url keeps only its host and path there, its password and
 * secret parameters masked; tools and credentials, the url as given among
 * them, reach the job's agent in memory, {@link routeTools}).
 *
 * @param agent the agent
 * @param options call options
 * @returns `sticky_option` messages
 */
export function stickyOptions(agent: Agent, options: AgentCallOptions): Message[] {
  const out: Message[] = [];
  for (const source of [agent.options, options]) {
    for (const [k, v] of Object.entries(requestOptions(source))) {
      if (k === "return_messages" || typeof v === "function" || isSecretName(k)) continue;
      out.push({ role: "sticky_option", content: `${k} ${shownValue(v)}` });
    }
  }
  return out;
}

/**
 * Runs one inference as a job of the agent's workflow task `ask` (§1.4 step
 * 2): input `chat` = the printed messages plus the sticky options; uncached
 * (`SCOUT_NO_ASK_CACHE=true`, `--no-cache`) it runs as a job no earlier run
 * left ({@link uncachedJob}); a cached one that runs as a rerun keys its
 * inferences as the first run's ({@link rerunKeyAliases}: what that run paid
 * for replays). The result is the projection of the job's messages
 * (`meta job=…` first). Sets `agent.job`. Once the job paid for something,
 * its marker is what the ask has in flight (`in_flight.ts`): the caller's
 * logs written as the run goes link the job before it ends (R111-1).
 *
 * @param agent the agent (its workflow has an `ask` task)
 * @param messages the messages
 * @param options call options
 * @returns the answer and the projected messages
 */
export async function askTaskRoute(
  agent: Agent,
  messages: Message[],
  options: AgentCallOptions,
): Promise<AgentReply> {
  const wf = agent.workflow!;
  const env = options.env ?? agent.runtime.env ?? process.env;
  const cwd = options.cwd ?? agent.runtime.cwd;
  const chat = [...messages, ...stickyOptions(agent, options)];
  const runtime = inheritedRuntime(agent, options);
  const tools = ownTools(agent, options.tools);
  const base = toolsName(tools);
  const make: MakeJob = (n, named) => {
    const jobname = runName(base, n);
    return createJob(wf, "ask", {
      inputs: { chat: print(chat) },
      env,
      ...(cwd !== undefined ? { cwd } : {}),
      // a rerun's or a toolset's name is this job's alone unless its dependencies need their own
      ...(jobname !== undefined ? { jobname, nameDependencies: named } : {}),
    });
  };
  // --no-cache asks again: the job's answer is a cache too, but not one to throw away
  const uncached = env.SCOUT_NO_ASK_CACHE === "true" || runtime.cache === false;
  // chosen and held with nothing awaited in between: a concurrent uncached ask sees it
  const job = uncached ? uncachedJob(make, env) : cachedJob(make, env);
  const release = hold(job.path);
  try {
    const aliases = uncached ? [] : rerunKeyAliases(job, make);
    return await withKeyAliases(
      aliases,
      () => runAskJob(agent, job, { options, runtime, tools, env, wf, chat }),
    );
  } finally {
    release();
  }
}

/** The rest of {@link askTaskRoute}: produce the chosen job, read its answer. */
async function runAskJob(
  agent: Agent,
  job: Job,
  { options, runtime, tools, env, wf, chat }: {
    options: AgentCallOptions;
    chat: readonly Message[];
    runtime: AgentRuntime;
    tools: ToolRegistry;
    env: Record<string, string | undefined>;
    wf: NonNullable<Agent["workflow"]>;
  },
): Promise<AgentReply> {
  agent.job = job;
  const done = isDone(job);
  const tally: InferenceTally = { live: 0, replayed: 0 };
  const workflows = new Set([...active.getStore()?.workflows ?? [], wf.name]);
  const secrets = secretOptions(agent, options);
  const given = { job: job.path, tools, caller: agent, chat };
  const marker = `job=${job.shortPath}`;
  // the caller's logs written as the run goes link the job once it paid for something (its
  // chat task's checkpoint written first): a SIGKILL keeps the link (R111-1)
  const produce = () =>
    withPaidListener(
      () => keepInFlight(agent, [{ role: "meta", content: marker }]),
      () => produceJob(job, { env }),
    );
  try {
    await active.run({ workflows, runtime, secrets, given }, () => tallyInferences(tally, produce));
  } catch (e) {
    // what a failed ask produced is the job's marker: the job keeps its partial logs
    throw attachMessages(e, [{ role: "meta", content: marker }]);
  } finally {
    settled(agent);
  }
  const result = await loadJobResult(job);
  if (!Array.isArray(result)) {
    throw new ScoutError(
      "invalid_input",
      `The ask task of "${wf.name}" must return messages (job "${job.shortPath}")`,
      { file: job.path },
    );
  }
  // (the loader drops the parser's leading empty `user`: `chatResultMessages`)
  const projected = project(job.shortPath, result as Message[]);
  const last = [...projected].reverse().find((m) => m.role !== "previous_response_id");
  const text = last?.role === "assistant" && typeof last.content === "string" ? last.content : "";
  // cached as `llm ask`'s (R143-3): the job was done already, or its run asked no provider
  return { text, messages: projected, job, cached: done || allReplayed(tally) };
}
