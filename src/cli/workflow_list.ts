/**
 * `scout-ai workflow list`: known workflows, or one workflow's tasks and jobs.
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import { errorLocation, ScoutError } from "../errors.ts";
import { isDirectory } from "../util/fs.ts";
import type { Io } from "./io.ts";
import { paint, warn } from "./io.ts";
import type { WorkflowCommonOptions } from "./workflow_common.ts";
import {
  loader,
  processNote,
  runningJson,
  statusStyle,
  storeOptions,
  wfLib,
} from "./workflow_common.ts";

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
  const { findWorkflowFile, listWorkflowFiles, loadWorkflow } = await loader();
  const lib = await wfLib();
  if (opts.workflow === undefined) {
    const found = listWorkflowFiles({ cwd: io.cwd, env: io.env });
    return await listWorkflows(found, "./workflows or $SCOUT_HOME/workflows", opts, io);
  }
  const dir = resolve(io.cwd, opts.workflow);
  const asPath = /[/\\]/.test(opts.workflow) || opts.workflow.startsWith(".");
  if (asPath && isDirectory(dir) && !hasWorkflowFile(() => findWorkflowFile(dir))) {
    // a directory of workflows (<dir>/<Name>/workflow.ts), e.g. fixtures/workflows
    const found = listWorkflowFiles({ cwd: io.cwd, env: io.env, dirs: [dir] })
      .filter((f) => dirname(dirname(f.file)) === dir);
    return await listWorkflows(found, dir, opts, io);
  }
  const wf = await loadWorkflow(opts.workflow, { cwd: io.cwd, env: io.env });
  const store = lib.storeFor(wf, storeOptions(opts, io));
  const { readdir } = await import("node:fs/promises");
  const { join } = await import("node:path");
  const tasks = [];
  const notes = new Map<string, string>(); // job path → processNote, for the text listing
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
      jobs.push({
        name: p.split("/").at(-1)!,
        path: p,
        status: s.status,
        running: runningJson(s),
        process: s.process,
      });
      notes.set(p, processNote(s));
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
        `  ${paint(io, "stdout", statusStyle(j.status), j.status.padEnd(8))} ${j.name}${
          notes.get(j.path) ? `  (${notes.get(j.path)})` : ""
        }\n`,
      );
    }
  }
  return 0;
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

/** Lists workflow files with their tasks (a file that cannot be loaded is named, exit 1). */
async function listWorkflows(
  found: { name: string; file: string }[],
  where: string,
  opts: WorkflowListOptions,
  io: Io,
): Promise<number> {
  const { loadWorkflowFile } = await loader();
  const rows: { name: string; file: string; tasks: string[]; error?: string }[] = [];
  for (const f of found) {
    try {
      const wf = await loadWorkflowFile(f.file);
      rows.push({ name: wf.name, file: f.file, tasks: Object.keys(wf.tasks) });
    } catch (e) {
      // One broken workflow file must not hide the others: name it and go on.
      if (!(e instanceof ScoutError && e.code === "workflow_load")) throw e;
      warn(io, e.message + errorLocation(e)); // where, as an error would say: a syntax error's line
      rows.push({ name: f.name, file: f.file, tasks: [], error: e.message });
    }
  }
  if (opts.json) {
    io.stdout.write(JSON.stringify({ version: 1, workflows: rows }) + "\n");
  } else if (rows.length === 0) {
    io.stdout.write(
      paint(io, "stdout", "dim", `(no workflows in ${where})`) + "\n",
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
