/**
 * The helpers a chat-task body gets (`agents.md` §4.1): the job's `chat`
 * input, its options and tooling (both removed from the chat), and
 * `agent(name?, …)`, which loads an agent and seeds its start chat with the
 * tooling, a system message about the job (with the effective tool-output
 * limits, §7.13), the job's dependencies, jobs referenced by the chat, files
 * and the chat itself. The agent functions come from the layer above through
 * {@link ChatTaskAgentOps}, so this file holds only the chat-task logic.
 *
 * @module
 */
import process from "node:process";
import { isAbsolute } from "node:path";
import { parse } from "../chat/parse.ts";
import { keepWrittenAtParsed, mergeOptionLines, type OptionLine } from "../chat/written_at.ts";
import { extractOptions } from "../chat/options.ts";
import { compile } from "../chat/compile.ts";
import { parseMeta } from "../chat/meta.ts";
import type { Message } from "../chat/types.ts";
import { resolvePromptSettings } from "../prompt/settings.ts";
import { processConfig } from "../config/process_config.ts";
import { jobFile } from "../workflow/files.ts";
import { jobRoleResolver } from "../workflow/chat_roles.ts";
import { dependenciesDepthFirst } from "../workflow/dep_walk.ts";
import type { JobContext } from "../workflow/job_types.ts";
import { isFile } from "../util/fs.ts";
import { setOwn } from "../util/own_record.ts";
import { markSeededConversation } from "./since_start.ts";
import { routeChat, routeRuntime, routeSecrets } from "./task_route.ts";
import type { Agent, AgentRuntime } from "./types.ts";

/** The agent functions a chat task needs (supplied by the agent layer). */
export interface ChatTaskAgentOps {
  /**
   * Loads an agent by name (`agents.md` §2.2); the option lines of its
   * start chat yield to `options` ([TS-FIX] §7.5).
   * @param name agent name
   * @param options agent options
   * @param runtime runtime hooks (env, cwd…; also drive the search)
   */
  loadAgent(
    name: string,
    options: Record<string, unknown>,
    runtime?: AgentRuntime,
  ): Promise<Agent>;
  /**
   * A bare agent with these options.
   * @param options agent options
   * @param runtime runtime hooks (env, cwd…)
   */
  newAgent(options: Record<string, unknown>, runtime?: AgentRuntime): Agent;
  /**
   * Runs the agent's `chat` with `return_messages` and returns the new messages.
   * @param agent the agent
   */
  chatMessages(agent: Agent): Promise<Message[]>;
  /**
   * Gives an agent working for `job` the tools of the task-route ask
   * producing that job, if one is (its call's and its agent's `tools`:
   * options of that ask, kept in memory, §1.4 step 2).
   * @param agent the agent
   * @param job the running job
   */
  callerTools?(agent: Agent, job: JobContext): void;
}

/** Options of the `agent()` helper (§4.1); other keys fill missing agent options. */
export interface TaskAgentOptions {
  /** Chat appended to the start chat (default: none; `chat()` to pass the job's). */
  chat?: Message[] | null;
  /**
   * Agent options (default `options()`, with the tools the task-route ask
   * producing this job was given: the agent then offers the caller's tools).
   */
  options?: Record<string, unknown> | null;
  /** Tooling messages (default `tooling()`; `false` ⇒ none). */
  tooling?: Message[] | false | null;
  /** Files added as `file` messages (job-relative first). */
  files?: string[] | null;
  /** Runtime hooks of the agent (env, cwd, fetch…): not options, never in the chat. */
  runtime?: AgentRuntime;
  /** Extra option values (fill only missing keys). */
  [extra: string]: unknown;
}

/** What a chat-task body receives. */
export interface ChatTaskContext {
  /** The running job. */
  job: JobContext;
  /** The `chat` input, parsed (memoised; options and tooling removed once asked for). */
  chat(): Message[];
  /** Options extracted from `chat()` (memoised; removes the option messages). */
  options(): Record<string, unknown>;
  /** `tool`, `kb`, `mcp` and `introduce` messages removed from `chat()` (memoised). */
  tooling(): Message[];
  /** The `introduce` messages of `tooling()`. */
  toolingIntro(): Message[];
  /**
   * Loads (or creates) an agent working for this job, seeded as in §4.1.
   * @param name agent name (none ⇒ a bare agent)
   * @param opts chat, options, tooling, files, extra options
   */
  agent(name?: string | null, opts?: TaskAgentOptions): Promise<Agent>;
  /**
   * Writes the agent's logs under `.files/log/[subdir/]` (§4.4).
   * @param agent the agent
   * @param subdir optional sub-directory
   */
  logAgent(agent: Agent, subdir?: string): Promise<string[]>;
}

/** Tooling roles in the order Ruby collects them. */
const TOOLING_ROLES = ["tool", "kb", "mcp", "introduce"] as const;

/** Content prefixes of the seed messages a chat flowing between tasks must not repeat. */
export const SEED_PREFIXES: readonly string[] = [
  "You have been assigned",
  "This workflow job has the following",
  "There are other jobs found in this chat",
];

/** Removes every message of `role` from `chat` in place; returns them. */
function removeRoleInPlace(chat: Message[], role: string): Message[] {
  const removed: Message[] = [];
  const kept: Message[] = [];
  for (const m of chat) (m.role === role ? removed : kept).push(m);
  chat.splice(0, chat.length, ...kept);
  return removed;
}

/**
 * The step-4 system message: working directory, job path, files dir and the
 * effective tool-output limits (defaults when not configured, §7.13).
 *
 * @param job the running job
 * @param options the agent options (may set the limits)
 * @param where working directory and environment (default: the process's)
 * @returns the message content
 */
export function jobSystemMessage(
  job: Pick<JobContext, "path" | "filesDir">,
  options: Record<string, unknown>,
  where: { cwd?: string; env?: Record<string, string | undefined> } = {},
): string {
  const env = where.env ?? process.env;
  const cwd = where.cwd ?? process.cwd();
  const limits = resolvePromptSettings({
    full_tool_calls: options.full_tool_calls as string | undefined,
    max_tool_outputs: options.max_tool_outputs as string | undefined,
    max_tool_calls: options.max_tool_calls as string | undefined,
    store: processConfig(env, cwd),
    env,
  });
  return `Your current working directory is ${cwd}.\n` +
    `You are working through an ask job with path ${job.path} and files_dir ${job.filesDir}.\n` +
    `Tool call content may be truncated after ${limits.fullToolCalls}, ` +
    `and forgotten after ${limits.maxToolOutputs}.\n`;
}

/** The `meta job=` references of a chat, in order, each once. */
export function chatJobRefs(chat: readonly Message[]): string[] {
  const out: string[] = [];
  for (const m of chat) {
    if (m.role !== "meta" || typeof m.content !== "string") continue;
    const job = parseMeta(m.content).job;
    if (job !== undefined && !out.includes(String(job))) out.push(String(job));
  }
  return out;
}

/**
 * Builds the helpers of one chat-task run.
 *
 * @param job the running job
 * @param ops the agent functions
 * @param log the log writer (`logAgent` bound to the job)
 * @returns the body context
 */
export function chatTaskContext(
  job: JobContext,
  ops: ChatTaskAgentOps,
  log: (agent: Agent, subdir?: string) => Promise<string[]>,
): ChatTaskContext {
  let chat: Message[] | undefined;
  let options: Record<string, unknown> | undefined;
  let tooling: Message[] | undefined;
  const ctx: ChatTaskContext = {
    job,
    chat() {
      if (chat === undefined) {
        const raw = job.recursiveInputs.chat ?? job.inputs.chat;
        const printedFrom = routeChat(job.path);
        chat = typeof raw === "string"
          ? printedFrom ? keepWrittenAtParsed(parse(raw), printedFrom) : parse(raw)
          : Array.isArray(raw)
          ? [...raw as Message[]]
          : [];
      }
      return chat;
    },
    options() {
      if (options === undefined) {
        const c = ctx.chat();
        const extracted = extractOptions(c);
        c.splice(0, c.length, ...extracted.chat);
        options = extracted.options;
        if (extracted.lines) optionLinesOf.set(ctx, extracted.lines);
      }
      return options;
    },
    tooling() {
      if (tooling === undefined) {
        const c = ctx.chat();
        tooling = TOOLING_ROLES.flatMap((r) => removeRoleInPlace(c, r));
      }
      return tooling;
    },
    toolingIntro: () => ctx.tooling().filter((m) => m.role === "introduce"),
    agent: (name, opts = {}) => taskAgent(ctx, ops, name ?? null, opts),
    logAgent: (agent, subdir) => log(agent, subdir),
  };
  return ctx;
}

/** Where the options of a context's chat were written (its option lines that carry a mark). */
const optionLinesOf = new WeakMap<ChatTaskContext, Record<string, OptionLine>>();

/** What `agent()` starts an agent with, from its call and the job. */
interface AgentSetup {
  /** The agent options (given, or the job chat's), extra option values filled in. */
  options: Record<string, unknown>;
  runtime: AgentRuntime | undefined;
  tooling: Message[];
  /** Whether the options are the job chat's (none given): the asking agent's tools then come too. */
  fromJobChat: boolean;
}

function agentSetup(ctx: ChatTaskContext, opts: TaskAgentOptions): AgentSetup {
  const {
    chat: _chat,
    options: given,
    tooling: givenTooling,
    files: _files,
    runtime: own,
    ...extra
  } = opts;
  const options = { ...(given ?? ctx.options()) };
  const fromJobChat = given === undefined || given === null;
  // an error about the job chat's option values names the lines they were written on
  const lines = fromJobChat ? optionLinesOf.get(ctx) : undefined;
  const inherited = withJobSignal(own ?? routeRuntime(), ctx.job.signal);
  const runtime = lines
    ? { ...inherited, optionLines: mergeOptionLines(inherited.optionLines, lines) }
    : inherited;
  // own keys: an extra option `constructor` is missing from the chat's unless it sets it (R112-5)
  // defined, not assigned: under Bun an option `__proto__` was dropped
  for (const [k, v] of Object.entries(extra)) if (!Object.hasOwn(options, k)) setOwn(options, k, v);
  const tooling = givenTooling === false ? [] : givenTooling ?? ctx.tooling();
  return { options, runtime, tooling, fromJobChat };
}

/**
 * The agent's runtime with the job's signal (R105-3: the job
 * interrupted, or every caller of `runJob` cancelled, stops its inference),
 * joined to the runtime's own — the asking route's — when it has one.
 */
function withJobSignal(runtime: AgentRuntime | undefined, job: AbortSignal): AgentRuntime {
  const own = runtime?.signal;
  const signal = own === undefined || own === job ? job : AbortSignal.any([own, job]);
  return { ...runtime, signal };
}

/** The agent loaded (or a bare one) working for the job. */
async function startAgent(
  job: JobContext,
  ops: ChatTaskAgentOps,
  name: string | null,
  setup: AgentSetup,
): Promise<Agent> {
  const { agent: _a, chat: _c, ...jobOptions } = setup.options;
  const agentOptions = { ...jobOptions, ...routeSecrets() };
  const agent = name === null
    ? ops.newAgent(agentOptions, setup.runtime)
    : await ops.loadAgent(name, agentOptions, setup.runtime);
  agent.job = job;
  // the job's options as the asking agent gave them (§1.4 step 2): its tools too
  if (setup.fromJobChat) ops.callerTools?.(agent, job);
  // §4.5/§7.18: an agent whose workflow is this job's would route each
  // inference through another job of this task, without end.
  if (agent.workflow?.name === job.workflow.name) agent.options.no_ask_override = true;
  return agent;
}

/** Seeds the tooling, the system message about the job and its dependencies. */
function seedJob(seed: Message[], job: JobContext, setup: AgentSetup): void {
  seed.push(...setup.tooling);
  seed.push({ role: "system", content: jobSystemMessage(job, setup.options, setup.runtime ?? {}) });
  const deps = dependenciesDepthFirst(job.dependencies);
  if (deps.length > 0) {
    seed.push({
      role: "system",
      content: `This workflow job has the following dependencies:\n\n${
        deps.map((d) => d.path).join("\n")
      }\n\nTheir input should already be incorporated, but they might have artifacts\n`,
    });
  }
}

/** The chat given to `agent()`, compiled in the runtime's directory and environment. */
async function compileGivenChat(
  chat: Message[] | null | undefined,
  runtime: AgentRuntime | undefined,
): Promise<Message[]> {
  if (chat === undefined || chat === null || chat.length === 0) return [];
  return await compile(chat, {
    jobs: jobRoleResolver({
      ...(runtime?.cwd !== undefined ? { cwd: runtime.cwd } : {}),
      ...(runtime?.env !== undefined ? { env: runtime.env } : {}),
    }),
    ...(runtime?.cwd !== undefined ? { cwd: runtime.cwd } : {}),
    ...(runtime?.env !== undefined ? { env: runtime.env } : {}),
  });
}

/**
 * Seeds the jobs the compiled chat refers to, the files, and the chat's
 * conversation (without seed messages it repeats); returns that conversation.
 */
function seedChat(
  seed: Message[],
  job: JobContext,
  compiled: Message[],
  files: string[] | null | undefined,
): Message[] {
  const others = chatJobRefs(compiled);
  if (others.length > 0) {
    seed.push({
      role: "system",
      content: `There are other jobs found in this chat:\n\n${others.join("\n")}\n`,
    });
  }
  for (const path of files ?? []) {
    const local = isAbsolute(path) || path.startsWith("..") ? null : jobFile(job.path, path);
    seed.push({ role: "file", content: local !== null && isFile(local) ? local : path });
  }
  const conversation = compiled.filter((m) =>
    !SEED_PREFIXES.some((p) => String(m.content ?? "").startsWith(p))
  );
  seed.push(...conversation);
  return conversation;
}

async function taskAgent(
  ctx: ChatTaskContext,
  ops: ChatTaskAgentOps,
  name: string | null,
  opts: TaskAgentOptions,
): Promise<Agent> {
  const setup = agentSetup(ctx, opts);
  const agent = await startAgent(ctx.job, ops, name, setup);
  const seed = agent.startChat;
  const ownStart = [...seed];
  seedJob(seed, ctx.job, setup);
  const compiled = await compileGivenChat(opts.chat, setup.runtime);
  const conversation = seedChat(seed, ctx.job, compiled, opts.files);
  // the task route's job chat starts with the caller's start chat (as in Ruby): that is the
  // agent's setup, not the user's conversation its specialists may inherit (§3.4)
  markSeededConversation(agent, conversation.slice(startInChat(conversation, ownStart)));
  return agent;
}

/**
 * How many leading messages of a job's chat are the agent's own start chat:
 * its messages in order, value-equal, skipping those the chat lacks (the
 * tool lines `tooling()` took out of it before it was compiled).
 */
function startInChat(chat: readonly Message[], start: readonly Message[]): number {
  const same = (a: Message, b: Message) => JSON.stringify(a) === JSON.stringify(b);
  let i = 0;
  for (const m of start) if (i < chat.length && same(chat[i]!, m)) i++;
  return i;
}
