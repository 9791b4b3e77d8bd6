/**
 * The agent's functions (`agents.md` §1): a bare agent, `start`, the live
 * chat, and the inference entry points `ask`, `chat`, `respond`, `prompt`.
 * `ask` takes the workflow's `ask` task route (§1.4 step 2, `task_route.ts`)
 * or the direct route (step 3): `socialize:` handling, tools from the call,
 * the agent, its workflow, then `llm/ask` with the agent's options under the
 * call's. An agent's `processException` decides retries; a retried
 * attempt's record is kept (`failed_attempt.ts`).
 *
 * @module
 */
import { settled, trackPaid } from "./in_flight.ts";
import { compile } from "../chat/compile.ts";
import { parse } from "../chat/parse.ts";
import type { Message } from "../chat/types.ts";
import { mergeOptionLines } from "../chat/written_at.ts";
import { ScoutError } from "../errors.ts";
import type { SpecialistRunner } from "../tools/agent_results.ts";
import { ask as llmAsk, type AskOptions } from "../llm/ask.ts";
import { attachMessages, failureMessages } from "../llm/loop.ts";
import { requestOptions, uncompiled } from "../llm/ask_options.ts";
import type { ToolsInput } from "../tools/registry.ts";
import type { FunctionToolDefinition, ToolRegistry } from "../tools/types.ts";
import { knowledgeBaseTools } from "../tools/kb.ts";
import { openKnowledgeBase } from "../kb/database.ts";
import { workflowTools } from "../tools/workflow.ts";
import { jobRoleResolver } from "../workflow/chat_roles.ts";
import { afterFailedAttempts, failedAttemptRecord, withoutRepeats } from "./failed_attempt.ts";
import { withCallBudget } from "./depth.ts";
import { inAskOf } from "./ask_chain.ts";
import { askPlace, noteRetries } from "./ask_notes.ts";
import { ownTools } from "./own_tools.ts";
import { withSociety } from "./tool_society.ts";
import { askTaskRoute, useTaskRoute } from "./task_route.ts";
import type { Agent, AgentCallOptions, AgentInit, AgentReply, SocializeFn } from "./types.ts";
import { TRUE_WORDS } from "./socialize_value.ts";
import { currentWarningSink } from "../util/warn_once.ts";
import { checkAgentArg } from "./agent_shape.ts";

/**
 * Creates a bare agent (`agent(...)`): missing fields get `[]`, `{}` or `null`.
 *
 * @param init fields to set
 * @returns the agent
 *
 * @example
 * ```ts
 * import { agentStart, createAgent } from "./mod.ts";
 * const a = createAgent({ startChat: [{ role: "system", content: "Be brief" }] });
 * agentStart(a).length; // 1
 * ```
 */
export function createAgent(init: AgentInit = {}): Agent {
  return {
    name: init.name ?? null,
    startChat: init.startChat ?? [],
    currentChat: init.currentChat ?? null,
    options: init.options ?? {},
    workflow: init.workflow ?? null,
    knowledgeBase: init.knowledgeBase ?? null,
    society: init.society ?? {},
    chats: init.chats ?? {},
    job: init.job ?? null,
    path: init.path ?? null,
    processException: init.processException ?? null,
    runtime: init.runtime ?? {},
  };
}

/**
 * Starts (or restarts) the live chat (§1.2): without `chat`, a new array of
 * the same message objects as `startChat`; with `chat`, that array itself.
 *
 * @param agent the agent
 * @param chat the conversation to adopt (not copied)
 * @returns the live chat
 */
export function start(agent: Agent, chat?: Message[]): Message[] {
  checkAgentArg(agent, "start");
  agent.currentChat = chat ?? [...agent.startChat];
  return agent.currentChat;
}

/**
 * The live chat, started on first access (§1.2). Chat operations apply to it:
 * `current(agent).push({role: "user", content: "…"})` or the chat builders.
 *
 * @param agent the agent
 * @returns the live chat
 */
export function current(agent: Agent): Message[] {
  checkAgentArg(agent, "current");
  return agent.currentChat ?? start(agent);
}

export { liftStartOptions, optionsUnlifted } from "./lift.ts";
export { sinceStart } from "./since_start.ts";

let socializeImpl: SocializeFn | null = null;

/**
 * Installs the `socialize` implementation the direct route calls for a true
 * `socialize:` line (the delegation module provides it; injected so the two
 * modules need not import each other).
 *
 * @param fn the implementation, or null to remove it
 */
export function setSocialize(fn: SocializeFn | null): void {
  socializeImpl = fn;
}

let runnerOf: ((agent: Agent) => SpecialistRunner) | null = null;

/**
 * Installs how an agent without a runner runs the specialists its tools
 * return as `{agent}` (the delegation module provides it; injected like
 * {@link setSocialize}).
 *
 * @param fn builds a runner for an agent, or null to remove it
 */
export function setSpecialistRunner(fn: ((agent: Agent) => SpecialistRunner) | null): void {
  runnerOf = fn;
}

async function compiled(agent: Agent, messages: Message[]): Promise<Message[]> {
  if (uncompiled(messages) === undefined) return messages;
  const { cwd, env } = agent.runtime;
  return await compile(messages, {
    ...(cwd !== undefined ? { cwd } : {}),
    ...(env !== undefined ? { env } : {}),
    name: agent.name ? `<agent ${agent.name}>` : "<agent>",
    jobs: jobRoleResolver({ ...(cwd ? { cwd } : {}), ...(env ? { env } : {}) }),
  });
}

/**
 * The tools of a direct-route ask (§1.4 step 3b): call tools ∪ agent tools ∪
 * workflow tools ∪ knowledge-base tools, later sources overriding same-named
 * earlier ones. The workflow's `ask` task (the agent's own task route) is not
 * one of its tools.
 *
 * @param agent the agent
 * @param callTools the call's `tools`
 * @returns the merged registry
 */
export function agentToolRegistry(agent: Agent, callTools?: ToolsInput): ToolRegistry {
  const reg = ownTools(agent, callTools);
  const wf = agent.workflow;
  if (wf && Object.keys(wf.tasks).length > 0) {
    const { cwd, env } = agent.runtime;
    for (
      const entry of workflowTools(wf, undefined, [], {
        ...(cwd ? { cwd } : {}),
        ...(env ? { env } : {}),
      })
    ) {
      const name = entry.definition.type === "function"
        ? (entry.definition as { name?: string; function?: { name?: string } }).name ??
          (entry.definition as { function?: { name?: string } }).function?.name
        : undefined;
      // its `ask` task is this agent's own task route (§1.4 step 2): as its tool it can only
      // recurse (the route refuses it), and it would hide the `ask` tool of `socialize`
      if (name && name !== "ask") reg.set(name, entry);
    }
  }
  if (agent.knowledgeBase) {
    const warn = agent.runtime.warn ?? currentWarningSink();
    const kb = openKnowledgeBase(agent.knowledgeBase, agent.runtime.env ?? process.env, warn);
    for (const entry of knowledgeBaseTools(kb, undefined, warn)) {
      reg.set((entry.definition as FunctionToolDefinition).function.name, entry);
    }
  }
  return reg;
}

async function askDirect(
  agent: Agent,
  messages: Message[],
  options: AgentCallOptions,
): Promise<AgentReply> {
  let chat = messages;
  const social = chat.filter((m) => m.role === "socialize");
  if (social.length > 0) {
    chat = chat.filter((m) => m.role !== "socialize");
    if (TRUE_WORDS.has(String(social.at(-1)!.content).trim())) {
      if (!socializeImpl) {
        throw new ScoutError("not_available", `"socialize: true" needs the delegation module`);
      }
      const { tools: _t, ...rest } = options;
      await socializeImpl(agent, structuredClone(specialistOptions(rest)));
    }
  }
  const { no_ask_override: _n, tools: _t, ...agentOptions } = agent.options;
  const tools = agentToolRegistry(agent, options.tools);
  const runner = agent.runtime.runSpecialists ?? runnerOf?.(agent);
  const askOptions: AskOptions = {
    ...agent.runtime,
    // every specialist a tool returns joins this agent's society, so it is logged (§3.2)
    ...(runner ? { runSpecialists: withSociety(agent, runner) } : {}),
    ...agentOptions,
    log_errors: true,
    ...options,
    tools,
    agent: false,
  };
  const lines = mergeOptionLines(agent.runtime.optionLines, options.optionLines); // the call's win
  if (lines) askOptions.optionLines = lines;
  // whose ask it is (its failure snapshot says); a nested one's retries are noted (R106-2)
  const place = askPlace(agent);
  askOptions.asker = place.asker;
  if (place.nested) askOptions.onEvent = noteRetries(place, askOptions.warn, askOptions.onEvent);
  askOptions.onEvent = trackPaid(agent, askOptions.onEvent); // logs written as it goes (R106-3)
  try {
    const r = await llmAsk(await compiled(agent, chat), askOptions);
    return { text: r.text, messages: r.messages, ask: r };
  } finally {
    settled(agent);
  }
}

/** The call's request options (runtime hooks travel in `runtime`, never as options). */
function specialistOptions(o: Record<string, unknown>): Record<string, unknown> {
  const out = requestOptions(o);
  for (const [k, v] of Object.entries(out)) if (typeof v === "function") delete out[k];
  return out;
}

/**
 * Inference, nothing appended (§1.3/§1.4). Messages default to the live
 * chat; `agent:` messages are removed from them in place. The workflow's
 * `ask` task runs it as a job unless `no_ask_override` is set (or the job
 * being produced is already that task's, §4.5); otherwise the direct route.
 * On an error, `processException` (if set) decides: true ⇒ retry, with the
 * same messages; what the failed attempt produced (its meta records, its
 * paired tool calls) comes first in the returned messages, and in the error's
 * `messages` if the ask fails in the end.
 *
 * @param agent the agent
 * @param messages the messages (default: the live chat)
 * @param options per-call options (over the agent's; the messages' own win)
 * @returns the answer and the new messages
 */
export async function ask(
  agent: Agent,
  messages?: Message[] | null,
  options: AgentCallOptions = {},
): Promise<AgentReply> {
  checkAgentArg(agent, "ask");
  const msgs = messages ?? current(agent);
  for (let i = msgs.length - 1; i >= 0; i--) if (msgs[i]!.role === "agent") msgs.splice(i, 1);
  // the specialists of a top-level ask share one budget of calls (depth.ts)
  return await withCallBudget(() => inAskOf(agent, () => askAttempts(agent, msgs, options)));
}

async function askAttempts(
  agent: Agent,
  msgs: Message[],
  options: AgentCallOptions,
): Promise<AgentReply> {
  // what the attempts processException retried produced and paid for (never resent)
  let failed: Message[] = [];
  for (;;) {
    try {
      const r = useTaskRoute(agent)
        ? await askTaskRoute(agent, msgs, options)
        : await askDirect(agent, msgs, options);
      return afterFailedAttempts(failed, r);
    } catch (e) {
      if (agent.processException && await agent.processException(e)) {
        const record = failedAttemptRecord(failureMessages(e));
        failed = [...withoutRepeats(failed, record), ...record];
        continue;
      }
      if (failed.length === 0) throw e;
      const produced = failureMessages(e);
      throw attachMessages(e, [...withoutRepeats(failed, produced), ...produced]);
    }
  }
}

export { waitsOnThis } from "./ask_chain.ts";

/**
 * `ask` on the live chat, the new messages appended to it (§1.3). A failed
 * ask appends nothing, as in Ruby: what it produced before failing (meta
 * records, tool calls, a task-route job's `job=` marker) is the error's
 * `failureMessages(e)`.
 *
 * @param agent the agent
 * @param options per-call options
 * @returns the answer and the new messages
 */
export async function chat(agent: Agent, options: AgentCallOptions = {}): Promise<AgentReply> {
  checkAgentArg(agent, "chat");
  const live = current(agent);
  const r = await ask(agent, live, options);
  if (r.messages.length === 0 && r.text !== "") live.push({ role: "assistant", content: r.text });
  else for (const m of r.messages) live.push(m); // not as arguments: a huge reply overflows
  return r;
}

/**
 * `ask` on the live chat, nothing appended.
 *
 * @param agent the agent
 * @param options per-call options
 * @returns the answer and the new messages
 */
export async function respond(agent: Agent, options: AgentCallOptions = {}): Promise<AgentReply> {
  checkAgentArg(agent, "respond");
  return await ask(agent, current(agent), options);
}

/**
 * Parses a string **as chat syntax**, prefixes the start chat (not the live
 * chat) and asks. Never pass model-generated text (§3.6).
 *
 * @param agent the agent
 * @param input chat text or messages
 * @param options per-call options
 * @returns the answer and the new messages
 */
export async function prompt(
  agent: Agent,
  input: string | Message[],
  options: AgentCallOptions = {},
): Promise<AgentReply> {
  checkAgentArg(agent, "prompt");
  const msgs = typeof input === "string" ? parse(input) : input;
  return await ask(agent, [...agent.startChat, ...msgs], options);
}
