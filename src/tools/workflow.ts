/**
 * Workflow tasks as LLM tools (`workflow.md` §6): which tasks are offered,
 * their JSON Schema definitions (recursive inputs, the type map with the
 * §7.4 #3 fix, select options as `enum`, `return_path`, `tool:` filters and
 * pinned values), and running a call as a persisted job whose result becomes
 * the output (with `step`). Strings in tool arguments are never replaced by
 * the content of a file they name (§7.4 #2). A call for a job that is running
 * in this process — the caller is inside that job's own body — is refused as
 * a potential recursive call unless `allow_recursive: "true"` (it would wait
 * for itself forever).
 *
 * @module
 */
import { z } from "zod";
import type { JobStore } from "../workflow/store.ts";
import {
  type InputDef,
  recursiveInputs,
  registeredWorkflow,
  selectOptionsOf,
  taskOf,
} from "../workflow/define.ts";
import type { Workflow } from "../workflow/define.ts";
import { createJob } from "../workflow/job.ts";
import { checkModelJobName } from "../workflow/job_name.ts";
import { execJobOutput, type RunEvent, runJob, unrecoverableFailure } from "../workflow/run.ts";
import { isDone } from "../workflow/context.ts";
import { loadWorkflow } from "../workflow/load.ts";
import type { Job } from "../workflow/job_types.ts";
import { recursiveCall, runForTool } from "./workflow_recursion.ts";
import { ScoutError } from "../errors.ts";
import { ownRecord } from "../util/own_record.ts";
import type { ToolResolver } from "./assemble.ts";
import type { ConfigStore } from "../config/store.ts";
import type { McpToolResolver } from "./mcp/resolver.ts";
import type { FunctionToolDefinition, JsonSchema, ToolEntry, ToolFunction } from "./types.ts";
import { toolOutput } from "./types.ts";

/** Description of the `return_path` parameter: Ruby's text (lib/scout/llm/tools/workflow.rb); workflow.md §6.2 abbreviates it. */
export const RETURN_PATH_DESCRIPTION =
  "Instead of the result of the job, return the path where it is persisted";

/** Where jobs of tool calls live and how workflows are found. */
export interface WorkflowToolOptions {
  /** Working directory (workflow search, default job store). */
  cwd?: string;
  /** Environment (`SCOUT_HOME`). */
  env?: Record<string, string | undefined>;
  /** Job store for every job (default: each workflow's own). */
  store?: JobStore;
  /** Config store (MCP keys and timeout). */
  config?: ConfigStore;
  /** Warnings (MCP servers whose tools cannot be listed). */
  warn?: (message: string) => void;
}

/**
 * The tasks a workflow offers as tools (§6.1): its exported tasks (all four
 * lists, in task order), or every task when nothing is exported.
 *
 * @param wf the workflow
 * @returns task names
 */
export function workflowToolNames(wf: Workflow): string[] {
  const exported = new Set([
    ...wf.exports.exec,
    ...wf.exports.synchronous,
    ...wf.exports.asynchronous,
    ...wf.exports.stream,
  ]);
  const all = Object.keys(wf.tasks);
  return exported.size === 0 ? all : all.filter((t) => exported.has(t));
}

const SCALAR: Record<string, string> = {
  chat: "string",
  text: "string",
  select: "string",
  path: "string",
  string: "string",
  file: "string",
  folder: "string",
  binary: "string",
  tsv: "string",
  yaml: "string",
  float: "number",
  integer: "integer",
  boolean: "boolean",
  json: "object",
};

/**
 * The JSON Schema of one input (§6.2 type map, §7.4 #3: `file`, `folder`,
 * `binary`, `tsv`, `yaml` → string, `json` → object, unknown → string). An
 * input with a zod `schema` contributes its JSON Schema constraints.
 *
 * @param def the input declaration
 * @returns its property schema
 */
export function inputSchema(def: InputDef): JsonSchema {
  const type = String(def.type ?? "string");
  const out: JsonSchema = type === "array" || type.endsWith("_array")
    ? { type: "array", description: def.description ?? "", items: { type: "string" } }
    : { type: SCALAR[type] ?? "string", description: def.description ?? "" };
  const options = selectOptionsOf(def);
  if (options.length) out.enum = options;
  if (def.schema) {
    try {
      const extra = z.toJSONSchema(def.schema as unknown as z.ZodType, { io: "input" }) as Record<
        string,
        unknown
      >;
      delete extra.$schema;
      for (const [k, v] of Object.entries(extra)) {
        if (k === "type" || k === "description" || k === "default") continue;
        if (
          (k === "minimum" || k === "maximum") && Math.abs(Number(v)) === Number.MAX_SAFE_INTEGER
        ) continue;
        out[k] = v;
      }
    } catch { /* not a zod schema: the type map alone describes it */ }
  }
  return out;
}

/** A `tool:` line's filter (§6.2). */
export interface ToolFilter {
  /** Input names to expose (undefined = all). */
  names?: string[];
  /** Pinned values (`name=value` tokens). */
  fixed?: Record<string, unknown>;
}

/**
 * Parses the tokens after `<Workflow> <task>` of a `tool:` line: names expose
 * inputs, `name=value` pins them, `none`/`noinputs` exposes none; any token
 * restricts the exposed inputs to the names listed.
 *
 * @param tokens the tokens
 * @returns the filter (empty when there are no tokens)
 *
 * @example
 * ```ts
 * import { parseToolFilter } from "./workflow.ts";
 * parseToolFilter(["eggs", "style=hard"]); // {names: ["eggs"], fixed: {style: "hard"}}
 * ```
 */
export function parseToolFilter(tokens: readonly string[]): ToolFilter {
  if (tokens.length === 0) return {};
  const names: string[] = [];
  const pins: [string, string][] = [];
  for (const t of tokens) {
    if (t === "none" || t === "noinputs") continue;
    const i = t.indexOf("=");
    if (i > 0) pins.push([t.slice(0, i), t.slice(i + 1)]);
    else names.push(t);
  }
  // defined, not assigned: `__proto__=x` pins an input under Bun too, it sets no prototype
  return pins.length ? { names, fixed: Object.fromEntries(pins) } : { names };
}

/**
 * The tool definition of a task (§6.2).
 *
 * @param wf the workflow
 * @param taskName the task
 * @param filter a `tool:` line's filter
 * @returns the definition (`parameters.defaults` holds pinned values)
 */
export function taskToolDefinition(
  wf: Workflow,
  taskName: string,
  filter: ToolFilter = {},
): FunctionToolDefinition {
  const task = taskOf(wf, taskName);
  const shown: [string, JsonSchema][] = [];
  const required: string[] = [];
  for (const def of recursiveInputs(wf, taskName)) {
    if (filter.names && !filter.names.includes(def.name)) continue;
    shown.push([def.name, inputSchema(def)]);
    if (def.required) required.push(def.name);
  }
  if (!wf.exports.exec.includes(taskName)) {
    shown.push(["return_path", { type: "boolean", description: RETURN_PATH_DESCRIPTION }]);
  }
  const parameters: FunctionToolDefinition["function"]["parameters"] = {
    type: "object",
    // defined, not assigned: an input `__proto__` is a property under Bun too (R112-5)
    properties: Object.fromEntries(shown),
    required,
  };
  if (filter.fixed && Object.keys(filter.fixed).length) parameters.defaults = { ...filter.fixed };
  return {
    type: "function",
    function: { name: task.name, description: task.description ?? "", parameters },
  };
}

/**
 * The implementation of a task tool (§6.3, §6.4): `jobname`, `return_path`,
 * `exec_type`, `allow_recursive` are taken from the arguments; exec exports
 * (or `exec_type: exec`) run in memory; otherwise the job runs to completion
 * (or is loaded when done) and its result — or with `return_path` its path —
 * becomes the content, with `step` = the job's short path. A failed job
 * becomes `{"exception", "stack"}` with `error: "error"`; a job running in
 * this process is refused ("Potential recursive call") unless
 * `allow_recursive` is `"true"`.
 *
 * @param wf the workflow
 * @param taskName the task
 * @param opts store, cwd, env
 * @returns the tool function
 */
export function taskToolFunction(
  wf: Workflow,
  taskName: string,
  opts: WorkflowToolOptions = {},
): ToolFunction {
  return async (_name, args, ctx) => {
    const { jobname, return_path, exec_type, allow_recursive, ...rest } = args;
    // no prototype: a model's `constructor` argument is an input, an unsent `toString` absent
    const inputs = ownRecord(rest);
    const given = jobname !== undefined && jobname !== null && jobname !== ""
      ? String(jobname)
      : undefined;
    checkModelJobName(taskOf(wf, taskName), given, inputs, `${wf.name}/${taskName}`);
    const job = createJob(wf, taskName, {
      inputs,
      loadFiles: false,
      ...(given !== undefined ? { jobname: given } : {}),
      ...(opts.store ? { store: opts.store } : {}),
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
      ...(opts.env ? { env: opts.env } : {}),
    });
    if (exec_type === "exec" || wf.exports.exec.includes(taskName)) {
      // a stream read, a value no result file holds refused, as a persisted job's (R126-3)
      return await execJobOutput(job, ctx?.signal);
    }
    // a cancelled call aborts the job unless another caller waits on it (R96-3)
    const runOpts = {
      ...(opts.env ? { env: opts.env } : {}),
      ...(ctx?.signal ? { signal: ctx.signal } : {}),
      ...(ctx?.onProgress ? { onEvent: progressOf(ctx.onProgress) } : {}),
    };
    if (String(allow_recursive) !== "true" && await recursiveCall(job)) {
      throw new ScoutError(
        "invalid_input",
        `Potential recursive call: job "${job.shortPath}" is running in this process ` +
          `(allow_recursive: "true" skips this check)`,
        { job: job.path },
      );
    }
    // a job in an unrecoverable error is reported as its info records it, not rerun (§6.4)
    const failed = isDone(job) ? null : await unrecoverableFailure(job, opts.env);
    if (failed) return failureOutput(job, failed.message);
    try {
      const value = await runForTool(job, () => runJob(job, runOpts));
      const wantPath = return_path === true || return_path === "true";
      return toolOutput({
        content: wantPath ? job.path : value,
        step: job.shortPath,
        path: job.path,
      });
    } catch (e) {
      return failureOutput(job, (e as { message?: string }).message ?? String(e));
    }
  };
}

/** A job's statuses (and waits for another's lock) as progress messages. */
function progressOf(report: (message: string) => void): (event: RunEvent) => void {
  return (ev) =>
    report(
      ev.type === "status"
        ? `${ev.job.shortPath}: ${ev.status}`
        : ev.type === "long_wait"
        ? `${ev.job.shortPath}: still waiting for lock ${ev.lock} (${ev.holder})`
        : `${ev.job.shortPath}: waiting for ${ev.holder}`,
    );
}

/**
 * A failed job's tool output: `{"exception", "stack": []}` with `error:
 * "error"` and its step. Ruby's shape, without the frames ([TS-FIX]: the
 * job's `.info` keeps its backtrace; see `errorOutput`).
 */
function failureOutput(job: Job, message: string) {
  return toolOutput({
    content: JSON.stringify({ exception: message, stack: [] }),
    error: "error",
    step: job.shortPath,
  });
}

/**
 * Tool entries for a workflow: one task (filtered by a `tool:` line's
 * tokens) or every task it offers (§6.1). Workflow tools run concurrently
 * within a batch (jobs of one batch are produced together).
 *
 * @param wf the workflow
 * @param taskName one task, or undefined for all offered tasks
 * @param tokens filter tokens after the task name
 * @param opts store, cwd, env
 * @returns registry entries
 */
export function workflowTools(
  wf: Workflow,
  taskName?: string,
  tokens: readonly string[] = [],
  opts: WorkflowToolOptions = {},
): ToolEntry[] {
  const names = taskName === undefined ? workflowToolNames(wf) : [taskOf(wf, taskName).name];
  const filter = taskName === undefined ? {} : parseToolFilter(tokens);
  return names.map((t) => ({
    definition: taskToolDefinition(wf, t, filter),
    impl: taskToolFunction(wf, t, opts),
    concurrent: true,
  }));
}

/**
 * The introduction text of `introduce: <Workflow>` (`chat.md` §4.4), or null
 * when the workflow has no documentation.
 *
 * @param wf the workflow
 * @returns the user message text
 */
export function introductionText(wf: Workflow): string | null {
  if (!wf.title && !wf.description) return null;
  return `You have access to tools from workflow '${wf.name}'. \nBelow is the documentation of the workflow:\n\n# ${wf.title}\n\n${wf.description}\n`;
}

/**
 * A {@link ToolResolver} for `tool:`, `introduce:` and `mcp:` lines: workflows
 * are looked up among the registered ones, then loaded from `./workflows/<Name>/`
 * or `$SCOUT_HOME/workflows/<Name>/` (or a path); MCP servers get one session
 * each, ended by the resolver's `close()`.
 *
 * @param opts store, cwd, env
 * @returns the resolver
 */
export function workflowToolResolver(opts: WorkflowToolOptions = {}): ToolResolver {
  let mcp: McpToolResolver | undefined;
  const find = async (name: string): Promise<Workflow> => {
    const wf = registeredWorkflow(name);
    if (wf) return wf;
    try {
      return await loadWorkflow(name, {
        ...(opts.cwd ? { cwd: opts.cwd } : {}),
        ...(opts.env ? { env: opts.env } : {}),
      });
    } catch (e) {
      if (e instanceof ScoutError && e.code === "workflow_not_found") {
        throw new ScoutError("workflow_not_found", `Workflow not found ${name}`, {
          workflow: name,
          cause: e,
        });
      }
      throw e;
    }
  };
  return {
    workflowTools: async (tokens) => {
      const [name, task, ...rest] = tokens;
      if (!name) throw new ScoutError("invalid_input", "A tool: line needs a workflow name");
      return workflowTools(await find(name), task, rest, opts);
    },
    introduce: async (name) => introductionText(await find(name)),
    kbTools: async (tokens) => (await import("./kb.ts")).kbLineTools(tokens, opts),
    // MCP sessions: one per server for the resolver's run, loaded on first `mcp:` line.
    mcpTools: async (tokens, signal) => {
      if (!mcp) {
        const { mcpToolResolver } = await import("./mcp/resolver.ts");
        mcp = mcpToolResolver({
          ...(opts.cwd ? { cwd: opts.cwd } : {}),
          ...(opts.env ? { env: opts.env } : {}),
          ...(opts.config ? { config: opts.config } : {}),
          ...(opts.warn ? { warn: opts.warn } : {}),
        });
      }
      return mcp.mcpTools(tokens, signal);
    },
    close: async () => {
      await mcp?.close();
    },
  };
}
