/**
 * `scout-ai workflow info`: everything known about a job (ours or Scout's).
 *
 * @module
 */
import { ScoutError } from "../errors.ts";
import type { Io } from "./io.ts";
import { paint, warn } from "./io.ts";
import { findJob } from "./workflow_jobref.ts";
import type { WorkflowCommonOptions } from "./workflow_common.ts";
import { processNote, runningJson, statusStyle, storeOptions, wfLib } from "./workflow_common.ts";

/** Options of `workflow info`. */
export interface WorkflowInfoOptions extends WorkflowCommonOptions {
  /** Job path or short path. */
  job: string;
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
  const match = findJob(opts.job, { roots, cwd: io.cwd, env: io.env });
  if (match === null) {
    throw new ScoutError(
      "job_not_found",
      `Job not found: "${opts.job}" (no result or .info; searched ${roots.join(", ")})`,
    );
  }
  const path = match.path;
  if (match.byPrefix) io.stderr.write(`scout-ai: "${opts.job}" matched ${path}\n`);
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
        running: runningJson(state),
        process: state.process,
        stale: state.stale,
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
      (processNote(state) ? ` (${processNote(state)})` : "") + (state.done ? "" : " (no result)"),
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
