/**
 * `scout-ai workflow list`: known workflows, or one workflow's tasks and jobs.
 *
 * @module
 */
import { dirname, join, resolve } from "node:path";
import { errorLocation, ScoutError, usageError } from "../errors.ts";
import { isDirectory } from "../util/fs.ts";
import { builtinWorkflowLoader, builtinWorkflowNames } from "../workflow/builtins.ts";
import type { JobState } from "../workflow/mod.ts";
import type { Io } from "./io.ts";
import { paint, warn } from "./io.ts";
import { scanProgress } from "./scan_progress.ts";
import type { WorkflowCommonOptions } from "./workflow_common.ts";
import {
  loader,
  loadWorkflowArgument,
  processNote,
  runningJson,
  statusStyle,
  storeOptions,
  wfLib,
} from "./workflow_common.ts";
import { jsonText } from "../util/json_text.ts";

/** Options of `workflow list`. */
export interface WorkflowListOptions extends WorkflowCommonOptions {
  /** Workflow name or path (list its tasks and jobs). */
  workflow?: string;
  /** `--jobs-dir`, repeatable: jobs directories searched in order (after `jobsDir`). */
  jobsDirs?: string[];
}

/**
 * `workflow list`: known workflows, one name a line (those of the search
 * directories, then the built-in ones a directory's workflow does not
 * shadow; `--json` marks them and names their tasks); with a workflow, its
 * tasks (type, description, inputs) and the jobs on disk with their status.
 *
 * @param opts command options
 * @param io injected I/O
 * @returns exit code
 */
export async function runWorkflowList(opts: WorkflowListOptions, io: Io): Promise<number> {
  const { findWorkflowFile, listWorkflowFiles } = await loader();
  if (opts.workflow === undefined) {
    refuseJobsDirs(opts);
    const found = listWorkflowFiles({ cwd: io.cwd, env: io.env });
    // a workflow of the search directories named like a built-in one wins, as in loadWorkflow
    const builtins = builtinWorkflowNames().filter((n) => !found.some((f) => f.name === n));
    const where = "./workflows or $SCOUT_HOME/workflows";
    return await listWorkflows({ found, builtins, where }, opts, io);
  }
  const dir = resolve(io.cwd, opts.workflow);
  const asPath = /[/\\]/.test(opts.workflow) || opts.workflow.startsWith(".");
  if (asPath && isDirectory(dir) && !hasWorkflowFile(() => findWorkflowFile(dir))) {
    // a directory of workflows (<dir>/<Name>/workflow.ts), e.g. fixtures/workflows
    refuseJobsDirs(opts);
    const found = listWorkflowFiles({ cwd: io.cwd, env: io.env, dirs: [dir] })
      .filter((f) => dirname(dirname(f.file)) === dir);
    return await listWorkflows({ found, builtins: [], where: dir }, opts, io);
  }
  return await listTasks(opts.workflow, opts, io);
}

/**
 * A listing of workflows shows their task names, no job: `--jobs-dir` has
 * nothing to act on there and was dropped without a word. It is a usage
 * error naming the form that lists a jobs directory's jobs.
 */
function refuseJobsDirs(opts: WorkflowListOptions): void {
  if (opts.jobsDir === undefined && (opts.jobsDirs ?? []).length === 0) return;
  throw usageError(
    "--jobs-dir lists a workflow's jobs: give the workflow (workflow list WORKFLOW " +
      "--jobs-dir DIR); a listing of workflows shows their tasks, no jobs",
  );
}

/** One job of a task's listing. */
interface JobRow {
  name: string;
  path: string;
  status: string;
  running: boolean | null;
  process: JobState["process"];
  /** {@link processNote}, for the text listing (not in the JSON). */
  note: string;
}

/** One task of a workflow's listing, with its jobs on disk. */
interface TaskRow {
  name: string;
  type: string;
  description: string;
  inputs: { name: string; type: string; default: unknown }[];
  jobs: JobRow[];
}

/** Lists one workflow's tasks and their jobs, as JSON or as lines. */
async function listTasks(workflow: string, opts: WorkflowListOptions, io: Io): Promise<number> {
  const lib = await wfLib();
  const wf = await loadWorkflowArgument(workflow, io);
  // each --jobs-dir checked and listed, in order, as `workflow info` searches them (R128-8)
  const given = [...(opts.jobsDir !== undefined ? [opts.jobsDir] : []), ...opts.jobsDirs ?? []];
  const roots = given.length > 0
    ? [
      ...new Set(
        given.flatMap((d) => lib.storeFor(wf, storeOptions({ jobsDir: d }, io, "read")).roots),
      ),
    ]
    : lib.storeFor(wf, storeOptions(opts, io, "read")).roots;
  const tasks: TaskRow[] = [];
  const progress = scanProgress(io); // R147-4: 100 000 jobs took seconds, nothing shown
  for (const t of Object.values(wf.tasks)) {
    const paths = new Set(roots.flatMap((root) => lib.jobsIn(join(root, wf.name, t.name))));
    const jobs: JobRow[] = [];
    for (const path of [...paths].sort()) {
      const s = await lib.jobState(path);
      const [name, status, process] = [path.split("/").at(-1)!, s.status, s.process];
      jobs.push({ name, path, status, running: runningJson(s), process, note: processNote(s) });
      progress.job();
    }
    const inputs = t.inputs.map((i) => ({
      name: i.name,
      type: i.type,
      default: i.default ?? null,
    }));
    tasks.push({ name: t.name, type: t.type, description: t.description, inputs, jobs });
  }
  progress.clear();
  if (opts.json) {
    const json = tasks.map((t) => ({ ...t, jobs: t.jobs.map(({ note: _, ...j }) => j) }));
    io.stdout.write(
      jsonText({ version: 1, workflow: wf.name, file: wf.file ?? null, tasks: json }) + "\n",
    );
  } else writeTasks(tasks, io);
  return 0;
}

/** The text listing: each task in bold with its type and description, its jobs below. */
function writeTasks(tasks: TaskRow[], io: Io): void {
  for (const t of tasks) {
    io.stdout.write(
      `${paint(io, "stdout", "bold", t.name)} [${t.type}]${
        t.description ? "  " + t.description : ""
      }\n`,
    );
    for (const j of t.jobs) {
      io.stdout.write(
        `  ${paint(io, "stdout", statusStyle(j.status), j.status.padEnd(8))} ${j.name}${
          j.note ? `  (${j.note})` : ""
        }\n`,
      );
    }
  }
}

/** Whether finding a workflow file in a directory succeeds (false: not a workflow directory). */
function hasWorkflowFile(find: () => string): boolean {
  try {
    find();
    return true;
  } catch (e) {
    if (e instanceof ScoutError && e.code === "workflow_not_found") return false;
    throw e;
  }
}

/** What {@link listWorkflows} lists. */
interface WorkflowsToList {
  /** Workflow files found. */
  found: { name: string; file: string }[];
  /** Names of the built-in workflows to list after them. */
  builtins: string[];
  /** Where the files were looked for (said when there are none). */
  where: string;
}

/** One workflow of the listing (`file` null for a built-in one). */
interface WorkflowRow {
  name: string;
  file: string | null;
  builtin: boolean;
  tasks: string[];
  /** Why the file cannot be loaded, with where: `<message> (<file>:<line>)`. */
  error?: string;
}

/**
 * Lists workflow files, then built-in workflows, with their tasks (a file
 * that cannot be loaded is named, exit 1).
 */
async function listWorkflows(
  list: WorkflowsToList,
  opts: WorkflowListOptions,
  io: Io,
): Promise<number> {
  const { loadWorkflowFile } = await loader();
  const rows: WorkflowRow[] = [];
  for (const f of list.found) {
    try {
      const wf = await loadWorkflowFile(f.file);
      rows.push({ name: wf.name, file: f.file, builtin: false, tasks: Object.keys(wf.tasks) });
    } catch (e) {
      // One broken workflow file must not hide the others: name it and go on.
      if (!(e instanceof ScoutError && e.code === "workflow_load")) throw e;
      // where, as an error would say (a syntax error's line), in the warning and the JSON alike
      const error = e.message + errorLocation(e);
      warn(io, error);
      rows.push({ name: f.name, file: f.file, builtin: false, tasks: [], error });
    }
  }
  for (const name of list.builtins) {
    const wf = await builtinWorkflowLoader(name)!();
    rows.push({ name, file: null, builtin: true, tasks: Object.keys(wf.tasks) });
  }
  if (opts.json) {
    io.stdout.write(jsonText({ version: 1, workflows: rows }) + "\n");
  } else writeWorkflows(rows, list.where, io);
  return rows.some((r) => r.error !== undefined) ? 1 : 0;
}

/**
 * The text listing: one workflow name a line, as Scout's `workflow list`
 * prints them (R158-6), so `grep -qx NAME` and `for wf in $(…)` work; their
 * tasks are in `workflow list WORKFLOW`, `workflow task WORKFLOW` and
 * `--json`. That no file was found is said on stderr.
 */
function writeWorkflows(rows: WorkflowRow[], where: string, io: Io): void {
  if (!rows.some((r) => !r.builtin)) {
    io.stderr.write(paint(io, "stderr", "dim", `(no workflows in ${where})`) + "\n");
  }
  for (const r of rows) io.stdout.write(r.name + "\n");
}
