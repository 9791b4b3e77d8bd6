/**
 * What every ask of `llm ask` / `agent ask` shares: the request
 * options the flags give, the run options (env, config, cache, offline,
 * `agent:` delegation, abort signal), and the lazily loaded agent layer.
 *
 * @module
 */
import type { JobRoleResolver } from "../chat/compile_jobs.ts";
import { isUrlRef } from "../chat/find_file.ts";
import { chooseEndpoint, loadEndpoint } from "../config/endpoints.ts";
import type { loadConfig } from "../config/store.ts";
import { commandLineError, isScoutError, ScoutError } from "../errors.ts";
import type { AskOptions } from "../llm/ask.ts";
import { getBackend } from "../llm/registry.ts";
import { setOwn } from "../util/own_record.ts";
import { shellWords } from "../util/shell_words.ts";
import type { Io } from "./io.ts";
import { warnSink } from "./io.ts";
import type { LlmAskOptions } from "./llm_ask_types.ts";
import { loader } from "./workflow_common.ts";

/**
 * The request options given by flags: `-O key=value`, `-e`, `-m`, `-b`, over
 * the options taken out of the `-c` chat file.
 *
 * @param opts command options
 * @param fileOptions options of the chat file (yield to the flags)
 * @returns the options
 */
export function callOptions(
  opts: LlmAskOptions,
  fileOptions: Record<string, unknown>,
): Record<string, unknown> {
  const call: Record<string, unknown> = { ...fileOptions };
  for (const kv of opts.options) {
    const i = kv.indexOf("=");
    setOwn(call, kv.slice(0, i), kv.slice(i + 1)); // `-O __proto__=x` is kept under Bun too
  }
  if (opts.endpoint !== undefined) call.endpoint = opts.endpoint;
  if (opts.model !== undefined) call.model = opts.model;
  if (opts.backend !== undefined) call.backend = opts.backend;
  return call;
}

/**
 * A failure about a backend or endpoint the flags named (`-b`, `-e`,
 * `-O backend=…`) as a usage error (exit 2); the same name read from an
 * endpoint file, a chat or the config stays a failure, naming where it was
 * read (its error has a file, or another value).
 *
 * @param e what the ask threw
 * @param opts command options
 * @returns the error to throw
 */
export function flagValueError(e: unknown, opts: LlmAskOptions): unknown {
  if (!isScoutError(e) || e.file !== undefined || e.source !== undefined) return e;
  const given = callOptions(opts, {});
  const named = (key: string, field: string) =>
    given[key] !== undefined && String(given[key]).trim() === e[field];
  if (isScoutError(e, "unknown_backend") && named("backend", "backend")) {
    return commandLineError(e);
  }
  if (isScoutError(e, "endpoint_not_found") && named("endpoint", "endpoint")) {
    return commandLineError(e);
  }
  return e;
}

/**
 * The endpoint, backend and workflows the flags name (`-e`, `-b`, `-O
 * endpoint=…`, `-O backend=…`, `-w`) must exist, as the ask would find them —
 * checked before anything runs, so `--dry-run` refuses the names the ask
 * would refuse, and an agent's task route does not start a job for them. No
 * network: an endpoint is a file, a backend a name, a workflow a file loaded
 * as the ask loads it. {@link flagValueError} makes the error a usage error.
 *
 * @param opts command options
 * @param io injected I/O (cwd, env)
 * @param store the loaded config
 * @throws ScoutError `endpoint_not_found` or `unknown_backend`; `usage` for a
 *   `-w` that names no workflow
 */
export async function checkFlagNames(
  opts: LlmAskOptions,
  io: Io,
  store: ReturnType<typeof loadConfig>,
): Promise<void> {
  const given = callOptions(opts, {});
  if (given.endpoint !== undefined) {
    const choice = chooseEndpoint(given.endpoint, store, io.env);
    if (choice !== null && choice.name !== "") {
      await loadEndpoint(choice.name, { cwd: io.cwd, env: io.env });
    }
  }
  // as `backendChoice` reads it: an empty value names none
  if (given.backend !== undefined && given.backend !== "") {
    await getBackend(String(given.backend).trim());
  }
  for (const value of opts.workflows ?? []) await checkWorkflowFlag(value, io);
}

/**
 * A `-w` value's workflow must be one the ask's `tool:` line would find
 * (R137-4: `-w nosuch` failed only when the ask ran, unquoted, `--dry-run`
 * printed the chat, exit 0, and an agent's task route left a failed job):
 * registered, or loaded as `workflow task` loads one (a name, a path, a
 * built-in, an agent's workflow). Not found is a usage error worded as
 * `workflow task` words it; a workflow that fails to load is a failure.
 */
async function checkWorkflowFlag(value: string, io: Io): Promise<void> {
  let words: string[];
  try {
    words = shellWords(value);
  } catch {
    return; // an unbalanced quote: the ask's compile of the tool: line says where
  }
  // `Workflow [task [input…]]` (chat.md §4.4); a URL is a remote workflow, asked when used
  const [name, task] = words;
  if (name === undefined || isUrlRef(name)) return;
  const { registeredWorkflow } = await import("../workflow/define.ts");
  const { loadWorkflow } = await loader();
  const { taskOf } = await import("../workflow/task_lookup.ts");
  try {
    const wf = registeredWorkflow(name) ?? await loadWorkflow(name, { cwd: io.cwd, env: io.env });
    // the task it names too (R138-2: `-w "Baking nosuch"` passed --dry-run, then failed)
    if (task !== undefined) taskOf(wf, task);
  } catch (e) {
    const named = (isScoutError(e, "workflow_not_found") && e.workflow === name) ||
      isScoutError(e, "task_not_found");
    if (!named) throw e;
    throw new ScoutError("usage", `-w: ${(e as Error).message}`, { cause: e });
  }
}

/**
 * The run options every ask of the command shares: environment, config,
 * cache/offline, warnings, `agent:` delegation and the abort signal.
 *
 * @param opts command options
 * @param io injected I/O
 * @param store the loaded config
 * @returns the ask options
 */
export function baseAskOptions(
  opts: LlmAskOptions,
  io: Io,
  store: ReturnType<typeof loadConfig>,
): AskOptions {
  const { env, cwd } = io;
  const runtime: AskOptions = {
    env,
    cwd,
    config: store,
    warn: warnSink(io),
    cache: opts.cache !== false,
    ...(opts.offline ? { offline: true } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  };
  return {
    ...runtime,
    // `agent: Name` lines delegate to that agent (loaded only when one appears), which
    // runs with this ask's runtime: --offline, --no-cache, Ctrl-C, a chat's `persist: false`
    // reach it and its society. It prints as before: only its answer, neither streamed
    // nor its retries told (the ask's `stream` and `onEvent` stay the ask's)
    delegate: async (name, msgs, o, given = {}) => {
      const { stream: _s, onEvent: _e, ...rest } = given;
      const hook = (await agentLayer()).agentDelegate({ cwd, env, warn: runtime.warn!, runtime });
      return await hook(name, msgs, o, rest);
    },
    // workflow files may use `api.chatTask`, which the agent layer adds (loaded only then)
    prepareWorkflows: agentLayer,
  };
}

/** The agent layer: it adds `api.chatTask` to what workflow files receive. */
const agentLayer = () => import("../agent/load.ts");

/**
 * A job resolver that loads the agent layer before it may load a workflow
 * file (`task:`/`exec_task:` lines), so workflow files using `api.chatTask`
 * load under `llm ask` too, and plain chats never import the agent layer.
 *
 * @param jobs the resolver
 * @returns the resolver, loading the agent layer first
 */
export function withAgentLayer(jobs: JobRoleResolver): JobRoleResolver {
  return {
    ...jobs,
    createJob: async (request) => {
      await agentLayer();
      return await jobs.createJob(request);
    },
    execTask: async (request) => {
      await agentLayer();
      return await jobs.execTask(request);
    },
  };
}
