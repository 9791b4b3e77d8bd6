/**
 * Chat tasks (`agents.md` §4): a task whose body drives an agent and whose
 * result is a chat. {@link chatTask} declares the `chat` input and a task of
 * type `chat`, so the job is `<Workflow>/<name>/<id>[_<md5>].chat` and its
 * `.info` has `type: chat`, `inputs: [<chat text>]`, `input_names: [chat]`.
 * The body gets the {@link ChatTaskContext} helpers; what it returns is
 * projected (`project`, §4.3) into the result.
 *
 * @module
 */
import { ScoutError } from "../errors.ts";
import { project } from "../chat/project.ts";
import { mergeConflict } from "../chat/conflict.ts";
import type { Message } from "../chat/types.ts";
import type { DepSpec, TaskSpec } from "../workflow/define.ts";
import { nearNames } from "../util/edit_distance.ts";
import type { JobContext } from "../workflow/job_types.ts";
import { errorMessage, rubyExceptionClass } from "../workflow/failure.ts";
import {
  type ChatTaskAgentOps,
  type ChatTaskContext,
  chatTaskContext,
} from "./chat_task_helpers.ts";
import { logAgent } from "./log.ts";
import { liveLog } from "./live_log.ts";
import { withPaidListener } from "./in_flight.ts";
import { adoptTools } from "./bound_tools.ts";
import { routeTools } from "./task_route.ts";
import type { Agent, LoadAgentFn } from "./types.ts";
import { chat, createAgent, current, liftStartOptions, sinceStart } from "./agent.ts";
import { isReplayMiss } from "../llm/ask_cache.ts";
import { failureMessages } from "../llm/loop.ts";

/** What a chat-task body may return: an agent, one message, messages or text. */
export type ChatTaskResult =
  | Agent
  | Message
  | Message[]
  | string;

/** A chat-task body. */
export type ChatTaskBody = (
  ctx: ChatTaskContext,
) => ChatTaskResult | Promise<ChatTaskResult>;

/**
 * What a chat task may say about itself besides its body (Ruby's `desc`,
 * `returns` and `dep` before it).
 */
export interface ChatTaskOptions {
  /** Documentation: `--help`, `workflow list`, the MCP tool (a `## <name>` section of the workflow's `workflow.md` replaces it). */
  description?: string;
  /** Documentation of the result. */
  returns?: string;
  /**
   * Dependencies, as an ordinary task's `deps` (`workflow.md` §1.4): each
   * runs before the body, which reads it with `job.load(name)`; the agents
   * the body starts are told of them (`agents.md` §4.1 step 5).
   */
  deps?: (DepSpec | string)[];
}

const OPTION_KEYS: readonly string[] = ["description", "returns", "deps"];

/**
 * Refuses an option a chat task does not know (a `dep:` for `deps:`), which
 * would be dropped without a word (R165-1).
 */
function checkOptions(name: string, options: ChatTaskOptions): void {
  if (options === null || typeof options !== "object") {
    throw new ScoutError(
      "invalid_input",
      `The options of chat task "${name}" must be an object ({description, returns, deps})`,
    );
  }
  for (const key of Object.keys(options)) {
    if (OPTION_KEYS.includes(key)) continue;
    const near = nearNames(key, OPTION_KEYS);
    throw new ScoutError(
      "invalid_input",
      `Chat task "${name}" has an unknown option "${key}"` +
        (near.length > 0 ? ` (did you mean "${near[0]}"?)` : "") +
        `: its options are ${OPTION_KEYS.join(", ")}`,
    );
  }
}

function isAgentValue(v: unknown): v is Agent {
  return typeof v === "object" && v !== null && !Array.isArray(v) &&
    Array.isArray((v as Agent).startChat) && "options" in v;
}

/**
 * Turns what a body returned into the job's messages (§4.2): an agent is run
 * if its last message is not an answer, then logged; a message becomes a
 * list; a string becomes one assistant message (§7.12).
 *
 * @param response the body's return value
 * @param ctx the body context (for running and logging agents)
 * @param ops the agent functions
 * @returns the messages to project
 */
export async function chatTaskMessages(
  response: ChatTaskResult,
  ctx: ChatTaskContext,
  ops: ChatTaskAgentOps,
): Promise<Message[]> {
  if (typeof response === "string") return [{ role: "assistant", content: response }];
  if (Array.isArray(response)) return response;
  if (isAgentValue(response)) {
    const agent = response as Agent;
    // its live chat as Ruby reads it: started on first access (a seeded chat that ends
    // with an answer is answered already: nothing new, no inference)
    if (current(agent).at(-1)?.role === "assistant") {
      await ctx.logAgent(agent);
      return sinceStart(agent);
    }
    // the logs follow the run, one rewrite per paid inference (a SIGKILL keeps them, R106-3)
    const live = liveLog(ctx.job, agent);
    const result = await withPaidListener(live.onPaid, () => ops.chatMessages(agent)).catch(
      async (e) => {
        await live.idle();
        await logFailedRun(agent, e, ctx);
        throw e;
      },
    );
    await live.idle();
    await ctx.logAgent(agent);
    return result;
  }
  if (typeof response === "object" && response !== null && "role" in response) {
    return [response as Message];
  }
  throw new ScoutError(
    "internal",
    `Chat task "${ctx.job.shortPath}" returned ${typeof response}: expected an agent, messages or text`,
  );
}

/**
 * Logs an agent whose run failed, with what the run produced before failing
 * (its meta records, tool calls and receipts: tokens paid for), so that a
 * failed job keeps its partial logs (`provenance.md` §1.1). The agent itself
 * is left as it was; a log that cannot be written never hides the failure.
 * An offline replay miss is not logged: it paid for nothing.
 */
async function logFailedRun(agent: Agent, e: unknown, ctx: ChatTaskContext): Promise<void> {
  if (isReplayMiss(e)) return; // a replay that missed paid nothing and leaves nothing behind
  const partial = { ...agent, currentChat: [...current(agent), ...failureMessages(e)] };
  await ctx.logAgent(partial).catch((logError) =>
    ctx.job.message(`Cannot log the failed agent: ${(logError as Error).message}`).catch(() => {})
  );
}

/**
 * A chat task's spec: input `chat` (`text`, no default), type `chat`, and a
 * body run with the helpers. A deliberate failure (`ScoutError` of a
 * deliberate code, e.g. `api.fail(…)`) ends the job **done** with the result
 * `{"exception": message, "job": short path}`; other errors make it fail.
 *
 * @param body the task body
 * @param ops the agent functions (the agent layer passes its own)
 * @param options description and returns (documentation), deps
 * @returns the task spec
 */
export function chatTaskSpec(
  body: ChatTaskBody,
  ops: ChatTaskAgentOps,
  options: ChatTaskOptions = {},
): TaskSpec<Message[]> {
  return {
    type: "chat",
    ...(options.description !== undefined ? { description: options.description } : {}),
    ...(options.returns !== undefined ? { returns: options.returns } : {}),
    ...(options.deps !== undefined ? { deps: options.deps } : {}),
    inputs: { chat: { type: "text", description: "Chat in Scout-AI chat-file format" } },
    async run(_inputs, job: JobContext) {
      refuseConflictedInput(job);
      const ctx = chatTaskContext(job, ops, (agent, subdir) => logAgent(job, agent, subdir));
      try {
        return project(job.shortPath, await chatTaskMessages(await body(ctx), ctx, ops));
      } catch (e) {
        if (rubyExceptionClass(e) !== "ScoutException") throw e;
        const content = JSON.stringify({ exception: errorMessage(e), job: job.shortPath });
        return project(job.shortPath, [{ role: "assistant", content }]);
      }
    },
  };
}

/**
 * A chat input whose turns a git merge left in conflict (a role header between
 * `<<<<<<<` and `>>>>>>>`) fails the job before its body asks anything: both
 * sides of the merge would go to the model (R86-3). Markers inside one
 * message (a pasted conflict to discuss) are text, and the job runs (R90-2).
 */
function refuseConflictedInput(job: JobContext): void {
  const raw = job.recursiveInputs.chat ?? job.inputs.chat;
  const found = typeof raw === "string" ? mergeConflict(raw) : undefined;
  if (found?.header === undefined) return;
  const { line } = found;
  throw new ScoutError(
    "merge_conflict",
    `Merge conflict in the chat input (line ${line}): resolve the <<<<<<< / ======= / >>>>>>> markers first`,
    { line },
  );
}

let loader: LoadAgentFn | null = null;

/**
 * Installs the agent loader chat tasks use (`load.ts` installs `loadAgent`;
 * injected so the two modules need not import each other).
 *
 * @param fn the loader
 */
export function setChatTaskLoader(fn: LoadAgentFn): void {
  loader = fn;
}

/** The agent layer's functions, as chat tasks use them. */
export const chatTaskAgentOps: ChatTaskAgentOps = {
  loadAgent: async (name, options, runtime) => {
    if (loader === null) {
      throw new ScoutError("not_available", `Chat tasks need the agent loader (src/agent/load.ts)`);
    }
    const agent = await loader(name, { options, ...(runtime !== undefined ? { runtime } : {}) });
    // the job's options (the caller's -e/-m among them) win over the start chat's lines (§7.5)
    liftStartOptions(agent, options);
    return agent;
  },
  newAgent: (options, runtime) => createAgent({ options, ...(runtime ? { runtime } : {}) }),
  chatMessages: async (agent) => (await chat(agent)).messages,
  callerTools: (agent, job) => {
    const given = routeTools(job.path);
    if (given) adoptTools(agent, given.tools, given.caller);
  },
};

/**
 * Declares a chat task (`agents.md` §4.1) for a workflow's `tasks`: input
 * `chat` (the conversation as chat text), type `chat`, the job
 * `<Workflow>/<name>/<id>[_<md5>].chat`. The body gets `chat()`,
 * `options()`, `tooling()`, `toolingIntro()`, `agent(name?, …)` and
 * `logAgent(agent, subdir?)`, and returns an agent (run if it has not
 * answered, then logged), messages, one message or text. Workflow files
 * reach it as `api.chatTask` (registered by `load.ts`).
 *
 * @param name task name
 * @param body the task body
 * @param options the task's `description` (shown by `--help` and as the MCP
 *   tool's) and `returns`; a `## <name>` section of the `workflow.md` beside
 *   the workflow file replaces the description; `deps`, as an ordinary
 *   task's (the body reads them with `job.load(name)`)
 * @returns `{[name]: spec}`, to spread into `tasks`
 * @throws ScoutError `invalid_input` for an option it does not know
 *
 * @example
 * ```ts
 * import { workflow } from "../workflow/define.ts";
 * import { chatTask } from "./chat_task.ts";
 * const wf = workflow("Pipeline", {
 *   tasks: {
 *     ...chatTask("review", async ({ agent, chat }) => await agent("Critic", { chat: chat() }), {
 *       description: "A critic reviews the plan",
 *     }),
 *   },
 * });
 * wf.tasks.review?.type; // "chat"
 * wf.tasks.review?.description; // "A critic reviews the plan"
 * ```
 */
export function chatTask(
  name: string,
  body: ChatTaskBody,
  options: ChatTaskOptions = {},
): Record<string, TaskSpec<Message[]>> {
  checkOptions(name, options);
  return { [name]: chatTaskSpec(body, chatTaskAgentOps, options) };
}
