/**
 * Loading agents from directories (`agents.md` §2.2/§2.3): `start_chat`
 * (compiled), `workflow.ts` (the workflow loader; unnamed workflows take the
 * directory's name), `agent.ts` run last with `(api, agent)`, and
 * `knowledge_base/` (its databases become tools). Ruby-only files
 * (`workflow.rb`, `agent.rb`, `python/`) are warned about once, never
 * silently ignored. Definitions are cached by
 * resolved directory ([TS-FIX] §7.17); every load returns a fresh agent, also
 * when loaded by path ([TS-FIX] §7.3).
 *
 * @module
 */
import { join } from "node:path";
import { compileFile } from "../chat/compile.ts";
import type { Message } from "../chat/types.ts";
import { copyMessages } from "../chat/written_at.ts";
import { isScoutError } from "../errors.ts";
import type { AskResult } from "../llm/ask.ts";
import { presentAs } from "../util/fs.ts";
import { currentWarningSink, warnOnce, withWarningSink } from "../util/warn_once.ts";
import { knowledgeBaseOfAgent } from "../kb/resolve.ts";
import { jobRoleResolver } from "../workflow/chat_roles.ts";
import type { Workflow } from "../workflow/define.ts";
import {
  extendWorkflowApi,
  loadWorkflowFile,
  type WorkflowApi,
  workflowApi,
} from "../workflow/load.ts";
import { setWorkflowFallback } from "../workflow/builtins.ts";
import {
  ask,
  chat,
  createAgent,
  current,
  liftStartOptions,
  prompt,
  respond,
  setSocialize,
  setSpecialistRunner,
  start,
} from "./agent.ts";
import { type AgentLocation, conventionalFiles, findAgent } from "./find.ts";
import { runnerFor, setSpecialistLoader, socialize } from "./socialize.ts";
import { socializeValueWarnings } from "./socialize_value.ts";
import { chatTask, setChatTaskLoader } from "./chat_task.ts";
import { delegate } from "./delegate.ts";
import { defineTool } from "../tools/define.ts";
import { specialistCall } from "./specialist_call.ts";
import { addTool } from "./bound_tools.ts";
import { iterate, iterateDictionary, json, jsonFormat } from "./structured.ts";
import { checkLoadCycle, type LoadLink, withinLoad } from "./load_chain.ts";
import { useTaskRoute } from "./task_route.ts";
import { runAgentScript } from "./script.ts";
import type { AgentApi, AgentWorkflowApi } from "./api_types.ts";
import type { Agent, AgentRuntime, LoadAgentOptions } from "./types.ts";

/** What a directory defines, shared by every agent loaded from it. */
interface AgentDefinition {
  startChat: Message[];
  workflow: Workflow | null;
  knowledgeBase: string | null;
  script: string | null;
  /** What reading it found worth a warning, told to each loader's `warn` (once per sink). */
  warnings: { id: string; message: string }[];
}

const definitions = new Map<string, Promise<AgentDefinition>>();

/** The first of `names` in `dir`; one of the wrong kind or a link to nothing throws (R142-5). */
function firstFile(dir: string | null, names: string[]): string | null {
  if (dir === null) return null;
  for (const n of names) if (presentAs(join(dir, n), "file")) return join(dir, n);
  return null;
}

function rubyOnly(dir: string | null): string[] {
  if (dir === null) return [];
  const out = ["workflow.rb", "agent.rb"].filter((f) => presentAs(join(dir, f), "file"));
  if (presentAs(join(dir, "python"), "directory")) out.push("python/");
  return out;
}

/** What the files only the Ruby scout-ai loads are: "Ruby", "Python" or both (R149-3). */
function foreignKinds(files: readonly string[]): string {
  const python = files.includes("python/");
  const ruby = files.some((f) => f !== "python/");
  return ruby && python ? "Ruby and Python" : python ? "Python" : "Ruby";
}

async function defineFrom(
  loc: AgentLocation,
  ctx: { cwd: string; env: Record<string, string | undefined> },
): Promise<AgentDefinition> {
  const warnings: AgentDefinition["warnings"] = [];
  const dirs = [loc.agentDir, loc.workflowDir].filter((d): d is string => d !== null);
  // first: an agent file of the wrong kind fails the load before any file of it runs (R142-5)
  const empty = dirs.every((d) => conventionalFiles(d).length === 0);
  const wfFile = firstFile(loc.workflowDir, ["workflow.ts", "workflow.js", "workflow.mjs"]) ??
    firstFile(loc.agentDir, ["workflow.ts", "workflow.js", "workflow.mjs"]);
  const workflow = wfFile ? await loadWorkflowFile(wfFile) : null;
  for (const dir of dirs) {
    const ruby = rubyOnly(dir).filter((f) => !(workflow && f === "workflow.rb"));
    if (ruby.length > 0) {
      warnings.push({
        id: `ruby:${dir}`,
        message: `Agent "${loc.name}" (${dir}): ${foreignKinds(ruby)} files are not loaded (${
          ruby.join(", ")
        }): the tools they define are unavailable here`,
      });
    }
  }
  const kbDir = knowledgeBaseOfAgent(loc);
  const chatFile = firstFile(loc.agentDir, ["start_chat"]) ??
    firstFile(loc.workflowDir, ["start_chat"]);
  let startChat: Message[] = [];
  if (chatFile) {
    startChat = await compileFile(chatFile, {
      cwd: ctx.cwd,
      env: ctx.env,
      jobs: jobRoleResolver({ cwd: ctx.cwd, env: ctx.env }),
      // kept with the definition: every loader hears them, not only the first
      warn: (message) => warnings.push({ id: `start_chat:${message}`, message }),
    });
    warnings.push(...socializeValueWarnings(startChat, chatFile));
  } else if (workflow) {
    startChat = [{ role: "introduce", content: workflow.name }];
  }
  const script = firstFile(loc.agentDir, ["agent.ts", "agent.js", "agent.mjs"]);
  if (empty) {
    // Ruby's rule (§2.2): the first existing directory is the agent, files or not; an empty
    // one (a stray mkdir, a path that is no agent) would shadow the agent meant without a word
    warnings.push({
      id: `empty:${loc.path}`,
      message: `Agent "${loc.name}" (${loc.path}) holds no agent files (start_chat, ` +
        `workflow.ts, agent.ts, knowledge_base/): it runs with no start chat and no tools`,
    });
  }
  return { startChat, workflow, knowledgeBase: kbDir, script, warnings };
}

/** What identifies an agent's definition: the directories it is read from. */
function definitionKey(loc: AgentLocation): string {
  return `${loc.agentDir ?? ""}\0${loc.workflowDir ?? ""}`;
}

function definitionOf(
  loc: AgentLocation,
  ctx: { cwd: string; env: Record<string, string | undefined> },
): Promise<AgentDefinition> {
  const key = definitionKey(loc);
  let p = definitions.get(key);
  if (p === undefined) {
    p = defineFrom(loc, ctx);
    definitions.set(key, p);
    p.catch(() => definitions.delete(key));
  }
  return p;
}

/**
 * Drops the cached agent definitions (tests, long-running processes after
 * edits): the next load reads `start_chat` and the directory again. Code is
 * not reloaded: the runtime keeps every imported module (`agent.ts`,
 * `workflow.ts` and what they import) for the life of the process, so a code
 * edit takes a new process — each `scout-ai` command is one.
 */
export function clearAgentCache(): void {
  definitions.clear();
}

/** The agent functions workflow files get (`api.agentChat`, `api.chatTask`…). */
const workflowAgentApi: Omit<AgentWorkflowApi, keyof WorkflowApi> = {
  agent: createAgent,
  loadAgent,
  agentStart: start,
  agentCurrent: current,
  agentAsk: ask,
  agentChat: chat,
  agentRespond: respond,
  agentPrompt: prompt,
  agentJson: json,
  agentJsonFormat: jsonFormat,
  agentIterate: iterate,
  agentIterateDictionary: iterateDictionary,
  chatTask,
  socialize,
  delegate,
  defineTool,
  addTool,
  specialistCall,
};
extendWorkflowApi(workflowAgentApi);

/** The API handed to `agent.ts` ({@link scriptApi} binds its `loadAgent`). */
const agentApi: AgentApi = {
  ...workflowApi,
  ...workflowAgentApi,
  start,
  ask,
  chat,
  jsonFormat,
  current,
  respond,
  prompt,
  json,
  iterate,
  iterateDictionary,
};

// `socialize: true` lines and specialists need this module's functions, which
// the delegation modules cannot import (they are imported by it).
setSocialize(socialize);
// a specialist's start-chat lines stay its conversation's, over what it inherits (§3.3)
setSpecialistLoader((name, opts = {}) => loadWith(name, opts, { lift: false }));
setSpecialistRunner(runnerFor);
setChatTaskLoader(loadAgent);
setWorkflowFallback(agentWorkflow);

/** §2.2's related lookup: a workflow name nothing else knows is an agent directory's workflow. */
async function agentWorkflow(
  name: string,
  opts: { cwd?: string; env?: Record<string, string | undefined> },
): Promise<Workflow | null> {
  let loc: AgentLocation;
  try {
    loc = findAgent(name, opts);
  } catch (e) {
    // a directory that cannot be looked at may hold the workflow: not "not found" (R72-3)
    if (isScoutError(e) && e.code === "io") throw e;
    return null; // no agent of that name (or not a name): the caller's not-found stands
  }
  const file = firstFile(loc.agentDir, ["workflow.ts", "workflow.js", "workflow.mjs"]);
  return file ? await loadWorkflowFile(file) : null;
}

/**
 * A `delegate` hook for `llm/ask` (`agent: <Name>` lines): loads that agent
 * with the ask's options as agent options — over its start chat's option
 * lines, as `agent ask` lifts them — and asks it with its start chat followed
 * by the messages. The agent resolves its endpoint itself. It is found with,
 * and runs with, the ask's runtime (its signal, env, cwd, cache…, R116);
 * `base` stands in for what the ask did not give.
 *
 * @param base options of every agent loaded this way (runtime, cwd, env, warn):
 *   the fallback for each runtime hook the ask leaves unset
 * @returns the hook
 */
export function agentDelegate(base: LoadAgentOptions = {}): NonNullable<AgentRuntime["delegate"]> {
  return async (name, messages, options, given = {}): Promise<AskResult> => {
    const agent = await loadAgent(name, { ...delegatedLoad(base, given), options: { ...options } });
    // the ask's options (flags, the chat's own lines) win over the start chat's (§7.5)
    liftStartOptions(agent, options);
    const r = await ask(agent, [...agent.startChat, ...messages]);
    return {
      messages: r.messages,
      text: r.text,
      // on the task route, whether the job was done already or its run asked no provider
      cached: r.ask?.cached ?? r.cached === true,
      endpoint: r.ask?.endpoint ?? null,
      backend: r.ask?.backend ?? "",
      model: r.ask?.model ?? "",
    };
  };
}

/** How {@link agentDelegate} loads: the ask's runtime hooks over `base`'s, hook by hook. */
function delegatedLoad(base: LoadAgentOptions, given: AgentRuntime): LoadAgentOptions {
  const runtime: AgentRuntime = { ...base.runtime };
  for (const [k, v] of Object.entries(given)) {
    if (v !== undefined) (runtime as Record<string, unknown>)[k] = v;
  }
  const cwd = given.cwd ?? base.cwd;
  const env = given.env ?? base.env;
  const warn = given.warn ?? base.warn;
  return {
    runtime,
    ...(cwd !== undefined ? { cwd } : {}),
    ...(env !== undefined ? { env } : {}),
    ...(warn !== undefined ? { warn } : {}),
  };
}

/**
 * The API an agent's `agent.ts` gets: its `loadAgent` loads as the agent was
 * loaded (R82-4) — with a copy of its runtime hooks (env, cwd, signal,
 * offline…) and its warnings — unless the script passes its own.
 */
function scriptApi(agent: Agent, warn: (m: string) => void): AgentApi {
  const nested = (nameOrPath: string, o: LoadAgentOptions = {}): Promise<Agent> => {
    const runtime = o.runtime ?? {
      ...agent.runtime,
      ...(o.cwd !== undefined ? { cwd: o.cwd } : {}),
      ...(o.env !== undefined ? { env: o.env } : {}),
    };
    return loadAgent(nameOrPath, { ...o, runtime, warn: o.warn ?? warn });
  };
  return { ...agentApi, loadAgent: nested };
}

/**
 * Loads an agent by name or directory path (§2.2/§2.3) and returns a fresh
 * agent: `startChat` (a copy of the compiled `start_chat`, or an
 * `introduce:` line for a bare workflow), `workflow`, `path`, the given
 * options and runtime; `agent.ts` then customises or replaces it. The option
 * lines of its start chat (`endpoint:`, `model:`…) are then taken out and
 * made agent options, under the options given ([TS-FIX] §7.5: the caller's
 * options win, as `agent ask -e/-m` do); an agent on the task route (its
 * workflow has an `ask` task) keeps them in its start chat.
 *
 * @param nameOrPath agent name (`Worker`) or directory (`./Agent/Worker`)
 * @param opts agent options (CLI `-e`/`-m` go here), runtime hooks, cwd/env, warn
 * @returns the agent
 * @throws ScoutError `invalid_input` (bad name), `agent_not_found`, `agent_load`
 *   (an `agent.ts` that fails, naming it), compile errors of `start_chat`
 *
 * @example
 * ```ts ignore
 * import { loadAgent } from "./load.ts";
 * const agent = await loadAgent("Worker", { options: { model: "gpt-4.1-mini" } });
 * ```
 */
export function loadAgent(nameOrPath: string, opts: LoadAgentOptions = {}): Promise<Agent> {
  return loadWith(nameOrPath, opts, { lift: true });
}

/**
 * {@link loadAgent}; with `lift` false, the option lines of the start chat
 * stay in it (a specialist's: its template is loaded with what it inherits).
 */
function loadWith(
  nameOrPath: string,
  opts: LoadAgentOptions,
  how: { lift: boolean },
): Promise<Agent> {
  const at = new Error(); // now, while the agent.ts asking (if one is) is on the stack
  const runtime: AgentRuntime = { ...(opts.runtime ?? {}) };
  const cwd = opts.cwd ?? runtime.cwd ?? process.cwd();
  const env = opts.env ?? runtime.env ?? process.env;
  const warn = opts.warn ?? runtime.warn ?? currentWarningSink();
  runtime.cwd ??= cwd;
  runtime.env ??= env;
  let loc: AgentLocation;
  let link: LoadLink; // its script is known once the definition is read
  try {
    loc = findAgent(nameOrPath, { cwd, env });
    link = { name: loc.name, key: definitionKey(loc), script: null };
    checkLoadCycle(link, at);
  } catch (e) {
    return Promise.reject(e);
  }
  // what the layers below find in a file while loading is told to the caller's warn
  return withWarningSink(opts.warn ?? runtime.warn, () =>
    withinLoad(link, async () => {
      let def: AgentDefinition;
      try {
        def = await definitionOf(loc, { cwd, env });
      } catch (e) {
        if (isScoutError(e) && e.file === undefined) e.file = loc.path;
        throw e;
      }
      for (const w of def.warnings) warnOnce(w.id, w.message, warn);
      link.script = def.script;
      if (runtime.delegate === undefined) {
        runtime.delegate = agentDelegate({ runtime, cwd, env, warn });
      }
      const agent = createAgent({
        name: loc.name,
        startChat: copyMessages(def.startChat), // keeping where each line was written
        options: { ...(opts.options ?? {}) },
        workflow: def.workflow,
        knowledgeBase: def.knowledgeBase,
        path: loc.path,
        runtime,
      });
      const loaded = def.script
        ? await runAgentScript(def.script, agent, scriptApi(agent, warn))
        : agent;
      // [TS-FIX] §7.5: the caller's options win over the start chat's lines, which become agent
      // options under them. On the task route the lines stay lines of the job's chat (as in Ruby),
      // where the caller's options, appended after the conversation as sticky ones, win over them.
      if (how.lift && !useTaskRoute(loaded)) liftStartOptions(loaded, opts.options ?? {});
      return loaded;
    }));
}
