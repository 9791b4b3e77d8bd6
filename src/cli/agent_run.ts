/**
 * The work of `agent ask|find|list` (loaded lazily by `agent.ts`). `agent ask`
 * is `llm ask` with the agent's start chat before the conversation and the
 * agent's `ask` as the inference; the start chat's options are taken out and
 * go under the call's, so explicit `-e`/`-m` win over `endpoint:`/`model:`
 * lines of the start chat ([TS-FIX] `agents.md` §7.5).
 *
 * @module
 */
import { join, resolve } from "node:path";
import { ask as agentAsk, start as startChat } from "../agent/agent.ts";
import {
  agentRoots,
  findAgent,
  findAgentDirectory,
  listAgents,
  type SkippedAgentDirectory,
} from "../agent/find.ts";
import { commandLineError, isScoutError } from "../errors.ts";
import { loadAgent } from "../agent/load.ts";
import { parseMeta } from "../chat/meta.ts";
import { loadRaw } from "../chat/load.ts";
import { tokenTotals } from "../chat/trace.ts";
import { runTotalUsage } from "./run_usage.ts";
import type { AgentReply } from "../agent/types.ts";
import type { Io } from "./io.ts";
import { warn, warnSink } from "./io.ts";
import type { LlmAskOptions } from "./llm_ask_types.ts";
import { type HookResult, runLlmAsk } from "./llm_ask_run.ts";
import { exists } from "../util/fs.ts";
import type { ConfigStore } from "../config/store.ts";
import type { ToolResolver } from "../tools/assemble.ts";
import { workflowToolResolver } from "../tools/workflow.ts";
import { columnWidth, padToWidth } from "../util/display_width.ts";
import { jsonText } from "../util/json_text.ts";

/** Version of the `agent list --json` shape. */
export const AGENT_LIST_JSON_VERSION = 1;

/**
 * Runs `agent ask NAME [QUESTION…]`.
 *
 * @param name agent name or directory path
 * @param opts the `llm ask` options
 * @param io injected I/O
 * @returns exit code
 */
export async function runAgentAsk(name: string, opts: LlmAskOptions, io: Io): Promise<number> {
  const { env, cwd } = io;
  checkAgentArgument(name, { cwd, env });
  const agentOptions: Record<string, unknown> = {};
  if (opts.endpoint !== undefined) agentOptions.endpoint = opts.endpoint;
  if (opts.model !== undefined) agentOptions.model = opts.model;
  // one resolver of tool lines for the run, its specialists' asks included (and agents an
  // agent.ts loads with this runtime): each MCP server gets one client, whose state lasts the
  // run, closed when it ends (README "MCP"); in the runtime from the start, it is made on
  // first use with the run's config store, to which the chat's `config:` lines are applied
  const run = runToolResolver({ cwd, env, warn: warnSink(io) });
  try {
    return await runAgentWith(name, opts, io, agentOptions, run);
  } finally {
    await run.resolver.close?.();
  }
}

/**
 * NAME must name an agent: a bad or unknown name, or a path that is no
 * directory, is a mistake of the command line (exit 2), as an unknown task of
 * `workflow task` is; what fails while loading the agent's files is not.
 */
function checkAgentArgument(name: string, opts: { cwd: string; env: Io["env"] }): void {
  try {
    findAgent(name, opts);
  } catch (e) {
    if (isScoutError(e, "agent_not_found") || isScoutError(e, "invalid_input")) {
      throw commandLineError(e);
    }
    throw e;
  }
}

/** A resolver for a run's runtime, made for real on first use with `config` as then set. */
function runToolResolver(base: { cwd: string; env: Io["env"]; warn: (m: string) => void }) {
  let real: ToolResolver | undefined;
  const run: { config?: ConfigStore; resolver: ToolResolver } = {
    resolver: {
      workflowTools: (tokens) => get().workflowTools!(tokens),
      introduce: (name) => get().introduce!(name),
      kbTools: (tokens) => get().kbTools!(tokens),
      mcpTools: (tokens, signal) => get().mcpTools!(tokens, signal),
      close: async () => await real?.close?.(),
    },
  };
  const get = () =>
    real ??= workflowToolResolver({
      ...base,
      ...(run.config !== undefined ? { config: run.config } : {}),
    });
  return run;
}

async function runAgentWith(
  name: string,
  opts: LlmAskOptions,
  io: Io,
  agentOptions: Record<string, unknown>,
  run: { config?: ConfigStore; resolver: ToolResolver },
): Promise<number> {
  const { env, cwd } = io;
  const agent = await loadAgent(name, {
    options: agentOptions,
    runtime: {
      env,
      cwd,
      warn: warnSink(io),
      ...(opts.offline ? { offline: true } : {}),
      ...(opts.cache === false ? { cache: false } : {}),
      // Ctrl-C/SIGTERM reach the specialists' inferences too (they run with this runtime)
      ...(opts.signal ? { signal: opts.signal } : {}),
      toolResolver: run.resolver,
    },
  });
  // loadAgent put the start chat's option lines under the flags (§7.5). On the
  // task route they stay lines of the job's chat, as in Ruby (same chat, same
  // job): there QUESTION's lines follow and win over them, and -e/-m, appended
  // after the conversation as sticky options, win over both (§1.5).
  // §5.1 steps 4–5: the conversation becomes the agent's live chat, so its
  // specialists inherit the question, the -c conversation and -w tool lines
  return await runLlmAsk(withoutMissingChat(opts, cwd), io, "ask", {
    prefix: agent.startChat,
    ask: async (messages, options): Promise<HookResult> => {
      startChat(agent, messages);
      run.config ??= options.config;
      // -e/-m are agent options only (§5.1 step 1): the task route appends each once
      const call: typeof options = { ...options };
      for (const k of Object.keys(agentOptions)) delete call[k];
      const r = await agentAsk(agent, null, call);
      return r.ask ?? await taskRouteResult(r, io);
    },
  });
}

/**
 * What a task-route answer reports (`--json`): the job, whether it is cached
 * (no provider request made: the job was already done, or its run replayed
 * every inference), and the endpoint, model and usage (as recorded) of the
 * agent log its body wrote (`<job>.files/log/agent.chat`), when there is one.
 *
 * @param r the agent's reply (with its job)
 * @returns the ask result, with the job's short path and usage
 */
async function taskRouteResult(r: AgentReply, io: Io): Promise<HookResult> {
  const job = r.job!;
  const log = join(job.path + ".files", "log", "agent.chat");
  const logged = exists(log) ? await loadRaw(log) : [];
  const meta = logged.filter((m) => m.role === "meta");
  const last = meta.length > 0 ? parseMeta(String(meta.at(-1)!.content)) : {};
  return {
    messages: r.messages,
    text: r.text,
    cached: r.cached === true,
    endpoint: last.endpoint === undefined ? null : String(last.endpoint),
    backend: last.backend === undefined ? "workflow" : String(last.backend),
    model: last.model === undefined ? "" : String(last.model),
    job: job.shortPath,
    ...(meta.length > 0
      ? {
        usage: tokenTotals([meta]),
        // the log's records are this run's; its receipts are read from what the run produced
        totalUsage: await runTotalUsage(meta, r.messages, { env: io.env, cwd: io.cwd }),
      }
      : {}),
  };
}

/**
 * `agents.md` §5.1 step 5: "conversation = the compiled file or `[]`" — a
 * `-c` file that does not exist yet starts an empty conversation (Ruby:
 * `Open.exist?(chat) ? LLM.chat(chat) : []`) instead of being an error.
 * A missing `-c` chat that is also the `-o` one (`-c plan.chat`, which appends
 * there as in Ruby, R149-2, or `-c plan.chat -o plan.chat`) stays: `llm ask`
 * reads it as empty and its append checks that no other run wrote it meanwhile
 * (R132-2); with `-o OTHER` it is dropped.
 *
 * @param opts the `llm ask` options
 * @param cwd the working directory `-c` is relative to
 * @returns the options, without `chat` when its file is missing and not `-o`
 */
export function withoutMissingChat(opts: LlmAskOptions, cwd: string): LlmAskOptions {
  if (opts.chat === undefined || opts.chat === "-") return opts;
  const chat = resolve(cwd, opts.chat);
  if (exists(chat)) return opts;
  if (opts.inline !== undefined) return opts; // a usage error `llm ask` reports, file or not
  // the same test as `readHistory`'s for a new -o chat
  if (opts.output !== undefined && resolve(cwd, opts.output) === chat) return opts;
  const { chat: _missing, ...rest } = opts;
  return rest;
}

/**
 * Runs `agent find NAME`: prints the resolved directory ({@link findAgentDirectory}).
 *
 * @param name agent name
 * @param io injected I/O
 * @returns exit code
 */
export function runAgentFind(name: string, io: Io): number {
  io.stdout.write(findAgentDirectory(name, { cwd: io.cwd, env: io.env }) + "\n");
  return 0;
}

/**
 * Runs `agent list`: one line per agent (`NAME  PATH  (FILES)`, or
 * `(error: …)` for one `agent find` fails on), or JSON; warnings on stderr.
 *
 * @param json print the JSON shape
 * @param io injected I/O
 * @returns exit code
 */
export function runAgentList(json: boolean, io: Io): number {
  const opts = { cwd: io.cwd, env: io.env };
  const skipped: SkippedAgentDirectory[] = [];
  const agents = listAgents({ ...opts, warn: warnSink(io), skipped: (d) => skipped.push(d) });
  if (json) {
    const out = { version: AGENT_LIST_JSON_VERSION, roots: agentRoots(opts), agents, skipped };
    io.stdout.write(jsonText(out, 2) + "\n");
    return 0;
  }
  if (agents.length === 0) {
    warn(io, `No agents found under ${agentRoots(opts).join(", ")}`);
    return 0;
  }
  const width = columnWidth(agents.map((a) => a.name));
  for (const a of agents) {
    // each directory with its own files: workflows/<name> and Agent/<name> both count
    const dirs = a.error !== undefined
      ? `${a.path}  (error: ${a.error})`
      : a.dirs.map((d) => `${d.path}  (${d.files.join(", ")})`).join("  + ");
    io.stdout.write(`${padToWidth(a.name, width)}  ${dirs}\n`);
  }
  return 0;
}
