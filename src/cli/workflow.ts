/**
 * `scout-ai workflow task|info|list` — run workflow tasks as persisted jobs
 * and inspect jobs (ours and Scout's). Registration is light; the workflow
 * library is imported when a command runs.
 *
 * `--json` shapes (version 1):
 * - `task`: `{"version":1,"path","shortPath","status","result"}` (on failure
 *   `"status":"error","error":message`, exit 1); `result` is the loaded value
 *   (chat → messages, binary → text).
 * - `info`: `{"version":1,"path","shortPath","status","done","running","info",
 *   "infoProblem","dependencies":[{"ref","path","status"}],"files":[…]}`.
 * - `list`: `{"version":1,"workflows":[{"name","file","tasks":[…],"error"?}]}`
 *   (`error` names a file that cannot be loaded; exit 1), or with a
 *   workflow `{"version":1,"workflow","file","tasks":[{"name","type","description",
 *   "inputs":[…],"jobs":[{"name","path","status"}]}]}`.
 *
 * @module
 */
import { resolve } from "node:path";
import type { Command } from "@commander-js/extra-typings";
import { ScoutError, usageError } from "../errors.ts";
import { isFile } from "../util/fs.ts";
import type { InputDef, Job, RunEvent, Workflow } from "../workflow/mod.ts";
import type { CliContext } from "./context.ts";
import type { Io } from "./io.ts";
import { paint, warn } from "./io.ts";

const wfLib = () => import("../workflow/mod.ts");
// The agent layer adds `api.chatTask` (and the agent functions) to what workflow files receive.
const loader = () => import("../agent/load.ts").then(() => import("../workflow/load.ts"));

/** Options shared by the workflow commands. */
export interface WorkflowCommonOptions {
  /** `--jobs-dir`: explicit jobs directory. */
  jobsDir?: string;
  /** `--json`. */
  json?: boolean;
}

/** Options of `workflow task`. */
export interface WorkflowTaskOptions extends WorkflowCommonOptions {
  /** Workflow name or path; missing → help. */
  workflow?: string;
  /** Task name; missing → the workflow's task list. */
  task?: string;
  /** Raw `--<input> value` arguments. */
  args: string[];
  /** `--jobname`. */
  jobname?: string;
  /** `--clean`: clean this job first. */
  clean?: boolean;
  /** `--recompute`: clean this job and its dependencies first. */
  recompute?: boolean;
  /** `--print-path`: print the job path instead of the result. */
  printPath?: boolean;
  /** `--help` was given. */
  help?: boolean;
}

function storeOptions(opts: WorkflowCommonOptions, io: Io) {
  return {
    env: io.env,
    cwd: io.cwd,
    ...(opts.jobsDir !== undefined ? { jobsDir: opts.jobsDir } : {}),
  };
}

function defaultText(def: InputDef): string {
  if (def.default === undefined || def.default === null) return "";
  const d = typeof def.default === "string" ? def.default : JSON.stringify(def.default);
  return ` (default: ${d === "" ? '""' : d})`;
}

/**
 * Help text of one task: its description and inputs with types and defaults.
 *
 * @param wf the workflow
 * @param taskName the task
 * @param inputs its recursive inputs
 * @returns the help text
 */
export function taskHelp(wf: Workflow, taskName: string, inputs: InputDef[]): string {
  const task = wf.tasks[taskName]!;
  const lines = [
    `Usage: scout-ai workflow task ${wf.name} ${taskName} [--<input> value]... [options]`,
    "",
    `${wf.name}/${taskName}: ${task.description || "(no description)"}`,
    `Result type: ${task.type}` + (task.returns ? ` — ${task.returns}` : ""),
    "",
    "Inputs:",
  ];
  if (inputs.length === 0) lines.push("  (none)");
  const w = Math.max(0, ...inputs.map((i) => i.name.length + i.type.length + 6));
  for (const i of inputs) {
    const own = task.inputs.some((o) => o === i) ? "" : " [dependency]";
    const sel = i.type === "select" && i.selectOptions
      ? `${i.description ? ";" : ""} one of: ${
        (Array.isArray(i.selectOptions) ? i.selectOptions : Object.values(i.selectOptions)).join(
          ", ",
        )
      }`
      : "";
    const req = i.required ? " (required)" : "";
    lines.push(
      `  ${`--${i.name} <${i.type}>`.padEnd(w)}  ${i.description ?? ""}${sel}${req}${
        defaultText(i)
      }${own}`.trimEnd(),
    );
  }
  lines.push(
    "",
    "Options:",
    "  --jobname <name>     job name (default: Default, or the jobname input)",
    "  --clean              remove this job's result, info and files first",
    "  --recompute          clean this job and all its dependencies first",
    "  --print-path         print the job path instead of the result",
    "  --jobs-dir <dir>     jobs directory (default: $SCOUT_HOME/var/jobs)",
    "  --json               print {version, path, shortPath, status, result}",
    "",
    "Values: a value naming an existing file is replaced by its content (except for",
    "path/file/folder/binary/tsv inputs), and '-' reads it from stdin (one input at most);",
    "arrays take one value per line (in a file or stdin) or repeated flags;",
    "booleans accept --flag, --no-flag or --flag=false.",
    "",
    "Examples:",
    `  scout-ai workflow task ${wf.name} ${taskName}${
      inputs[0] ? ` --${inputs[0].name} ${exampleValue(inputs[0])}` : ""
    }`,
    `  scout-ai workflow task ${wf.name} ${taskName} --json | jq .path`,
  );
  return lines.join("\n") + "\n";
}

function exampleValue(i: InputDef): string {
  if (i.default !== undefined && i.default !== null && typeof i.default !== "object") {
    return String(i.default);
  }
  const examples: Record<string, string> = { integer: "3", float: "0.5", boolean: "true" };
  return examples[i.type] ?? "VALUE";
}

function workflowHelp(wf: Workflow): string {
  const names = Object.keys(wf.tasks);
  const w = Math.max(0, ...names.map((n) => n.length));
  const lines = [
    `Usage: scout-ai workflow task ${wf.name} TASK [--<input> value]... [options]`,
    "",
    `${wf.title || wf.name}${wf.description ? ": " + wf.description : ""}`,
    "",
    "Tasks:",
    ...names.map((n) =>
      `  ${n.padEnd(w)}  ${wf.tasks[n]!.description || ""} [${wf.tasks[n]!.type}]`.trimEnd()
    ),
    "",
    `Run 'scout-ai workflow task ${wf.name} TASK --help' for a task's inputs.`,
  ];
  return lines.join("\n") + "\n";
}

const NUMBER = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;
const INTEGER = /^\s*[+-]?\d+\s*$/;
const BOOLEAN_WORDS = /^(true|false|t|f|yes|no|y|n|on|off|1|0)$/i;
/** Types whose values are paths: a file name stays a name, and `-` is no stdin. */
const PATH_TYPES = new Set(["path", "file", "folder"]);

/** Context of {@link parseInputArgs}. */
export interface InputArgsContext {
  /** `Workflow/task`, for messages. */
  where: string;
  /** Directory relative file names resolve against. */
  cwd: string;
  /** Suggestions for an unknown input name (the workflow library's `nearNames`). */
  nearNames: (name: string, candidates: readonly string[]) => string[];
}

/**
 * Parses `--<input> value` arguments against a task's recursive inputs. A
 * value naming an existing file, or `-` (stdin), is left as one string for
 * the job to load (so a numeric input's file name is not checked as a number,
 * and an array input's file is split into lines).
 *
 * @param args raw arguments (after WF and TASK)
 * @param inputs the task's recursive inputs
 * @param ctx messages, cwd and suggestions
 * @returns provided inputs (strings, string arrays, booleans)
 * @throws ScoutError `usage` for unknown inputs, missing values, non-numeric numbers
 */
export function parseInputArgs(
  args: readonly string[],
  inputs: readonly InputDef[],
  ctx: InputArgsContext,
): Record<string, unknown> {
  const { where, nearNames } = ctx;
  const loaded = (v: string) => v === "-" || isFile(resolve(ctx.cwd, v));
  const byName = new Map(inputs.map((i) => [i.name, i]));
  const out: Record<string, unknown> = {};
  for (let k = 0; k < args.length; k++) {
    const a = args[k]!;
    if (!a.startsWith("--") || a === "--") {
      throw usageError(
        `Unexpected argument "${a}" for ${where} (inputs are given as --name value)`,
      );
    }
    const eq = a.indexOf("=");
    let name = a.slice(2, eq >= 0 ? eq : undefined);
    let value: string | boolean | undefined = eq >= 0 ? a.slice(eq + 1) : undefined;
    if (name.includes("#")) {
      if (value === undefined) value = args[++k];
      if (value === undefined) throw usageError(`Missing value for --${name}`);
      out[name] = value;
      continue;
    }
    const def = byName.get(name) ?? byName.get(name.replaceAll("-", "_"));
    if (def === undefined && name.startsWith("no-")) {
      const b = byName.get(name.slice(3)) ?? byName.get(name.slice(3).replaceAll("-", "_"));
      if (b?.type === "boolean" && value === undefined) {
        out[b.name] = false;
        continue;
      }
    }
    if (def === undefined) {
      const near = nearNames(name, [...byName.keys()]);
      throw usageError(
        `Unknown input --${name} for ${where}` +
          (near.length > 0 ? `; did you mean ${near.map((n) => `--${n}`).join(" or ")}?` : "") +
          ` (inputs: ${[...byName.keys()].map((n) => `--${n}`).join(", ") || "none"})`,
      );
    }
    name = def.name;
    if (value === undefined) {
      if (def.type === "boolean") {
        const next = args[k + 1];
        if (next !== undefined && BOOLEAN_WORDS.test(next)) value = args[++k]!;
        else value = true;
      } else {
        const next = args[++k];
        if (next === undefined) throw usageError(`Missing value for --${name} (${def.type})`);
        value = next;
      }
    }
    const el = /^(.+)_array$/.exec(def.type)?.[1];
    const scalar = el ?? (def.type === "array" ? "string" : def.type);
    const fromFile = typeof value === "string" && !PATH_TYPES.has(scalar) && loaded(value);
    if (typeof value === "string" && !fromFile) {
      const check = el !== undefined ? value.replace(/\n+$/, "").split("\n") : [value];
      if (scalar === "integer" && check.some((v) => !INTEGER.test(v))) {
        throw usageError(`Input --${name} of ${where} expects an integer, got "${value}"`);
      }
      if (scalar === "float" && check.some((v) => !NUMBER.test(v))) {
        throw usageError(`Input --${name} of ${where} expects a number, got "${value}"`);
      }
    }
    const isArray = def.type === "array" || el !== undefined;
    if (isArray && name in out) {
      const prev = out[name];
      out[name] = [...(Array.isArray(prev) ? prev : [prev]), value];
    } else if (isArray) {
      out[name] = typeof value === "string" && (fromFile || value.includes("\n")) ? value : [value];
    } else out[name] = value;
  }
  return out;
}

/** Replaces the one input given as `-` by the text on stdin. */
async function readStdinInput(
  provided: Record<string, unknown>,
  inputs: readonly InputDef[],
  io: Io,
): Promise<void> {
  const names = Object.keys(provided).filter((n) => provided[n] === "-");
  if (names.length === 0) return;
  if (names.length > 1) {
    throw usageError(
      `Only one input can read stdin: ${names.map((n) => `--${n} -`).join(", ")}`,
    );
  }
  const name = names[0]!;
  const def = inputs.find((i) => i.name === name);
  if (def !== undefined && PATH_TYPES.has(def.type)) {
    throw usageError(`Input --${name} takes a ${def.type} path; "-" (stdin) is for value inputs`);
  }
  provided[name] = await io.readStdin();
}

function progress(io: Io): { onEvent: (e: RunEvent) => void; done: () => void } {
  if (!io.stderrIsTTY) return { onEvent: () => {}, done: () => {} };
  let shown = false;
  return {
    onEvent: (e) => {
      const what = e.type === "wait" ? "waiting for another process" : e.status;
      io.stderr.write(`\r\x1b[K${paint(io, "stderr", "dim", what)} ${e.job.shortPath}`);
      shown = true;
    },
    done: () => {
      if (shown) io.stderr.write("\r\x1b[K");
    },
  };
}

/**
 * `workflow task`: creates the job (inputs from `--<input>` arguments), runs
 * it unless done, prints the result (or the path, or JSON).
 *
 * @param opts command options
 * @param io injected I/O
 * @returns exit code
 */
export async function runWorkflowTask(opts: WorkflowTaskOptions, io: Io): Promise<number> {
  if (opts.workflow === undefined) throw usageError("Missing WORKFLOW argument");
  const { loadWorkflow } = await loader();
  const lib = await wfLib();
  const wf = await loadWorkflow(opts.workflow, { cwd: io.cwd, env: io.env });
  if (opts.task === undefined) {
    io.stdout.write(workflowHelp(wf));
    return opts.help ? 0 : 2;
  }
  lib.taskOf(wf, opts.task);
  const inputs = lib.recursiveInputs(wf, opts.task);
  if (opts.help) {
    io.stdout.write(taskHelp(wf, opts.task, inputs));
    return 0;
  }
  const where = `${wf.name}/${opts.task}`;
  const provided = parseInputArgs(opts.args, inputs, {
    where,
    cwd: io.cwd,
    nearNames: lib.nearNames,
  });
  await readStdinInput(provided, inputs, io);
  const store = lib.storeFor(wf, storeOptions(opts, io));
  const job: Job = lib.createJob(wf, opts.task, {
    inputs: provided,
    ...(opts.jobname !== undefined ? { jobname: opts.jobname } : {}),
    loadFiles: true,
    cwd: io.cwd,
    env: io.env,
    store,
  });
  if (opts.recompute) await lib.cleanJobRecursive(job);
  else if (opts.clean) await lib.cleanJob(job);
  const p = progress(io);
  let result: unknown;
  try {
    result = await lib.runJob(job, { onEvent: p.onEvent, env: io.env });
  } catch (e) {
    p.done();
    if (opts.json) {
      io.stdout.write(
        JSON.stringify({
          version: 1,
          path: job.path,
          shortPath: job.shortPath,
          status: "error",
          error: (e as Error)?.message ?? String(e),
        }) + "\n",
      );
    }
    throw e;
  }
  p.done();
  if (opts.json) {
    const value = result instanceof Uint8Array ? lib.resultText(result, job.type) : result;
    io.stdout.write(
      JSON.stringify({
        version: 1,
        path: job.path,
        shortPath: job.shortPath,
        status: "done",
        result: value,
      }) +
        "\n",
    );
  } else if (opts.printPath) {
    io.stdout.write(job.path + "\n");
  } else {
    const text = lib.resultText(result, job.type);
    io.stdout.write(text.endsWith("\n") || text === "" ? text : text + "\n");
  }
  return 0;
}

/** Options of `workflow info`. */
export interface WorkflowInfoOptions extends WorkflowCommonOptions {
  /** Job path or short path. */
  job: string;
}

function statusStyle(status: string): "green" | "red" | "yellow" | "dim" {
  if (status === "done") return "green";
  if (status === "error" || status === "aborted" || status === "unsync") return "red";
  if (status === "missing" || status === "noinfo") return "dim";
  return "yellow";
}

function show(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}

/**
 * `workflow info`: everything known about a job (ours or Scout's).
 *
 * @param opts command options
 * @param io injected I/O
 * @returns exit code
 */
export async function runWorkflowInfo(opts: WorkflowInfoOptions, io: Io): Promise<number> {
  const lib = await wfLib();
  const roots = opts.jobsDir !== undefined
    ? lib.jobStore(storeOptions(opts, io)).roots
    : lib.jobRoots({ env: io.env, cwd: io.cwd });
  const path = lib.resolveJobReference(opts.job, { roots, cwd: io.cwd, env: io.env });
  if (path === null) {
    throw new ScoutError(
      "job_not_found",
      `Job not found: "${opts.job}" (no result or .info; searched ${roots.join(", ")})`,
    );
  }
  const state = await lib.jobState(path);
  if (state.problem !== null) warn(io, state.problem);
  const depRoots = [lib.rootOf(path), ...roots];
  const deps = await Promise.all(
    lib.infoDependencies(state.info).map(async (ref) => {
      const p = lib.resolveJobReference(ref, { roots: depRoots, cwd: io.cwd, env: io.env });
      return { ref, path: p, status: p === null ? "missing" : (await lib.jobState(p)).status };
    }),
  );
  const files = await lib.listJobFiles(path);
  if (opts.json) {
    io.stdout.write(
      JSON.stringify({
        version: 1,
        path,
        shortPath: lib.shortPath(path),
        status: state.status,
        done: state.done,
        running: state.running,
        info: state.info,
        infoProblem: state.problem,
        dependencies: deps,
        files,
      }) + "\n",
    );
    return 0;
  }
  const info = state.info ?? {};
  const out: string[] = [];
  const row = (k: string, v: string) => out.push(`  ${k.padEnd(10)} ${v}`);
  out.push(paint(io, "stdout", "bold", lib.shortPath(path)));
  row("path", path);
  row(
    "status",
    paint(io, "stdout", statusStyle(state.status), state.status) +
      (state.running ? " (running)" : "") + (state.done ? "" : " (no result)"),
  );
  if (info.workflow !== undefined || info.task_name !== undefined) {
    row(
      "task",
      `${show(info.workflow ?? "?")}/${show(info.task_name ?? "?")}` +
        (info.type !== undefined ? `  type ${show(info.type)}` : ""),
    );
  }
  for (const k of ["issued", "start", "end"]) if (info[k] !== undefined) row(k, show(info[k]));
  if (typeof info.time_elapsed === "number") {
    row(
      "elapsed",
      `${info.time_elapsed.toFixed(3)}s` +
        (typeof info.total_time_elapsed === "number"
          ? ` (total ${info.total_time_elapsed.toFixed(3)}s)`
          : ""),
    );
  }
  if (info.pid !== undefined) row("pid", `${show(info.pid)}@${show(info.pid_hostname ?? "?")}`);
  if (Array.isArray(info.input_names) && info.input_names.length > 0) {
    const vals = Array.isArray(info.inputs) ? info.inputs : [];
    row("inputs", info.input_names.map((n, i) => `${n}=${show(vals[i] ?? null)}`).join("  "));
  }
  if (info.provided_inputs && Object.keys(info.provided_inputs).length > 0) {
    row(
      "provided",
      Object.entries(info.provided_inputs).map(([k, v]) => `${k}=${show(v)}`).join("  "),
    );
  }
  for (const d of deps) {
    row(
      "dependency",
      `${paint(io, "stdout", statusStyle(d.status), d.status.padEnd(7))} ${
        d.path === null ? d.ref : lib.shortPath(d.path)
      }`,
    );
  }
  if (Array.isArray(info.messages)) { for (const m of info.messages) row("message", show(m)); }
  if (state.status === "error" && Array.isArray(info.backtrace)) {
    for (const b of info.backtrace.slice(0, 5)) row("backtrace", show(b));
  }
  for (const f of files) row("file", f);
  const known = new Set([
    "status",
    "issued",
    "pid",
    "pid_hostname",
    "task_name",
    "workflow",
    "provided_inputs",
    "non_default_inputs",
    "inputs",
    "input_names",
    "type",
    "dependencies",
    "start",
    "end",
    "messages",
    "time_elapsed",
    "total_time_elapsed",
    "exception",
    "backtrace",
  ]);
  for (const [k, v] of Object.entries(info)) if (!known.has(k)) row(k, show(v));
  io.stdout.write(out.join("\n") + "\n");
  return 0;
}

/** Options of `workflow list`. */
export interface WorkflowListOptions extends WorkflowCommonOptions {
  /** Workflow name or path (list its tasks and jobs). */
  workflow?: string;
}

/**
 * `workflow list`: known workflows with their tasks; with a workflow, its
 * tasks (type, description, inputs) and the jobs on disk with their status.
 *
 * @param opts command options
 * @param io injected I/O
 * @returns exit code
 */
export async function runWorkflowList(opts: WorkflowListOptions, io: Io): Promise<number> {
  const { listWorkflowFiles, loadWorkflow, loadWorkflowFile } = await loader();
  const lib = await wfLib();
  if (opts.workflow === undefined) {
    const found = listWorkflowFiles({ cwd: io.cwd, env: io.env });
    const rows: { name: string; file: string; tasks: string[]; error?: string }[] = [];
    for (const f of found) {
      try {
        const wf = await loadWorkflowFile(f.file);
        rows.push({ name: wf.name, file: f.file, tasks: Object.keys(wf.tasks) });
      } catch (e) {
        // One broken workflow file must not hide the others: name it and go on.
        if (!(e instanceof ScoutError && e.code === "workflow_load")) throw e;
        warn(io, e.message);
        rows.push({ name: f.name, file: f.file, tasks: [], error: e.message });
      }
    }
    if (opts.json) {
      io.stdout.write(JSON.stringify({ version: 1, workflows: rows }) + "\n");
    } else if (rows.length === 0) {
      io.stdout.write(
        paint(io, "stdout", "dim", "(no workflows in ./workflows or $SCOUT_HOME/workflows)") + "\n",
      );
    } else {
      for (const r of rows) {
        const tasks = r.error === undefined
          ? r.tasks.join(" ")
          : paint(io, "stdout", "red", "(cannot be loaded)");
        io.stdout.write(`${paint(io, "stdout", "bold", r.name)}  ${tasks}\n`);
      }
    }
    return rows.some((r) => r.error !== undefined) ? 1 : 0;
  }
  const wf = await loadWorkflow(opts.workflow, { cwd: io.cwd, env: io.env });
  const store = lib.storeFor(wf, storeOptions(opts, io));
  const { readdir } = await import("node:fs/promises");
  const { join } = await import("node:path");
  const tasks = [];
  for (const t of Object.values(wf.tasks)) {
    const names = new Set<string>();
    for (const root of store.roots) {
      let entries: string[] = [];
      try {
        entries = await readdir(join(root, wf.name, t.name));
      } catch {
        continue; // no jobs of this task under this root
      }
      for (const e of entries) {
        if (e.startsWith(".") || e.endsWith(".files") || e.endsWith(".lock")) continue;
        names.add(join(root, wf.name, t.name, e.endsWith(".info") ? e.slice(0, -5) : e));
      }
    }
    const jobs = [];
    for (const p of [...names].sort()) {
      const s = await lib.jobState(p);
      jobs.push({ name: p.split("/").at(-1)!, path: p, status: s.status });
    }
    tasks.push({
      name: t.name,
      type: t.type,
      description: t.description,
      inputs: t.inputs.map((i) => ({ name: i.name, type: i.type, default: i.default ?? null })),
      jobs,
    });
  }
  if (opts.json) {
    io.stdout.write(
      JSON.stringify({ version: 1, workflow: wf.name, file: wf.file ?? null, tasks }) + "\n",
    );
    return 0;
  }
  for (const t of tasks) {
    io.stdout.write(
      `${paint(io, "stdout", "bold", t.name)} [${t.type}]${
        t.description ? "  " + t.description : ""
      }\n`,
    );
    for (const j of t.jobs) {
      io.stdout.write(
        `  ${paint(io, "stdout", statusStyle(j.status), j.status.padEnd(8))} ${j.name}\n`,
      );
    }
  }
  return 0;
}

/**
 * Registers the `workflow` command group.
 *
 * @param program the root program
 * @param ctx invocation context
 */
export function registerWorkflow(program: Command, ctx: CliContext): void {
  const wf = program.command("workflow").description(
    "run workflow tasks as persisted jobs and inspect jobs (Scout-compatible store)",
  ).addHelpText(
    "after",
    "\nJobs live in $SCOUT_HOME/var/jobs/<Workflow>/<task>/<name> with a .info sidecar,\n" +
      "in the layout Scout's engine uses: either side reads the other's jobs.\n\n" +
      "Examples:\n" +
      "  scout-ai workflow list\n" +
      "  scout-ai workflow task fixtures/workflows/Baking cake --eggs 3\n" +
      "  scout-ai workflow task Baking cake --help\n" +
      "  scout-ai workflow info Baking/cake/Default --json | jq .status",
  );
  wf.command("task")
    .description("run a task (unless its job is done) and print its result")
    .usage("WORKFLOW TASK [--<input> value]... [--jobname N] [--clean|--recompute] [--json]")
    .argument("[args...]", "workflow (name or path), task, then --<input> value pairs")
    .option("--jobname <name>", "job name (default: Default, or the jobname input)")
    .option("--clean", "remove this job's result, info and files first")
    .option("--recompute", "clean this job and all its dependencies first")
    .option("--print-path", "print the job path instead of the result")
    .option("--jobs-dir <dir>", "jobs directory (default: $SCOUT_HOME/var/jobs)")
    .option("--json", "print {version, path, shortPath, status, result}")
    .allowUnknownOption()
    .helpOption(false)
    .addHelpText(
      "after",
      "\nWORKFLOW is a name found in ./workflows/<Name>/workflow.ts or\n" +
        "$SCOUT_HOME/workflows/<Name>/workflow.ts, or a path to such a file or directory.\n" +
        "'scout-ai workflow task WORKFLOW' lists its tasks; add TASK --help for its inputs.\n\n" +
        "Examples:\n" +
        "  scout-ai workflow task fixtures/workflows/Baking cake --eggs 3\n" +
        "  scout-ai workflow task Baking whisk --help\n" +
        "  scout-ai workflow task Baking batter --eggs 4 --json | jq .result",
    )
    .action(async (args, o, cmd) => {
      const help = args.includes("--help") || args.includes("-h");
      const rest = args.filter((a) => a !== "--help" && a !== "-h");
      const positional: string[] = [];
      while (rest.length > 0 && !rest[0]!.startsWith("-") && positional.length < 2) {
        positional.push(rest.shift()!);
      }
      if (positional.length === 0) {
        cmd.outputHelp(); // with the addHelpText sections (helpInformation() leaves them out)
        ctx.exitCode = help ? 0 : 2;
        return;
      }
      ctx.exitCode = await runWorkflowTask({
        workflow: positional[0],
        ...(positional[1] !== undefined ? { task: positional[1] } : {}),
        args: rest,
        ...(o.jobname !== undefined ? { jobname: o.jobname } : {}),
        clean: Boolean(o.clean),
        recompute: Boolean(o.recompute),
        printPath: Boolean(o.printPath),
        ...(o.jobsDir !== undefined ? { jobsDir: o.jobsDir } : {}),
        json: Boolean(o.json),
        help,
      }, ctx.io);
    });
  wf.command("info")
    .description("show a job's status, inputs, dependencies, messages and files")
    .argument("<job>", "job path, or short path Workflow/task/name")
    .option("--jobs-dir <dir>", "jobs directory to resolve short paths in")
    .option("--json", "print {version, path, shortPath, status, done, running, info, …}")
    .addHelpText(
      "after",
      "\nReads jobs written by scout-ai and by Scout's own engine (Marshal-only info reads\n" +
        "as status noinfo). Dependencies that moved are found by their last three path\n" +
        "components under the jobs roots.\n\n" +
        "Examples:\n  scout-ai workflow info Baking/cake/Default\n" +
        "  scout-ai workflow info ~/.scout/var/jobs/Baking/batter/Default.json --json | jq .status",
    )
    .action(async (job, o) => {
      ctx.exitCode = await runWorkflowInfo({
        job,
        ...(o.jobsDir !== undefined ? { jobsDir: o.jobsDir } : {}),
        json: Boolean(o.json),
      }, ctx.io);
    });
  wf.command("list")
    .description("list workflows and their tasks; with WORKFLOW, its tasks and jobs")
    .argument("[workflow]", "workflow name or path")
    .option("--jobs-dir <dir>", "jobs directory")
    .option("--json", "print JSON (see the module docs for the shape)")
    .addHelpText(
      "after",
      "\nExamples:\n  scout-ai workflow list\n  scout-ai workflow list fixtures/workflows/Baking",
    )
    .action(async (workflow, o) => {
      ctx.exitCode = await runWorkflowList({
        ...(workflow !== undefined ? { workflow } : {}),
        ...(o.jobsDir !== undefined ? { jobsDir: o.jobsDir } : {}),
        json: Boolean(o.json),
      }, ctx.io);
    });
}
