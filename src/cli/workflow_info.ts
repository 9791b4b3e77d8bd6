/**
 * `scout-ai workflow info`: everything known about a job (ours or Scout's).
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { isScoutError, ScoutError } from "../errors.ts";
import type { JobInfo, JobState, WaitingBatchState } from "../workflow/mod.ts";
import type { Io } from "./io.ts";
import { paint, warn } from "./io.ts";
import { findJob } from "./workflow_jobref.ts";
import type { WorkflowCommonOptions } from "./workflow_common.ts";
import { processNote, runningJson, statusStyle, storeOptions, wfLib } from "./workflow_common.ts";
import { clipEnd } from "../util/clip.ts";
import { padToWidth } from "../util/display_width.ts";
import { jsonText } from "../util/json_text.ts";

/** Options of `workflow info`. */
export interface WorkflowInfoOptions extends WorkflowCommonOptions {
  /** Job path or short path. */
  job: string;
  /** `--jobs-dir`, repeatable: jobs directories searched in order (after `jobsDir`). */
  jobsDirs?: string[];
}

function show(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}

/** Values longer than this many characters are shortened in the text view. */
const LONG_VALUE = 300;
/** How many characters of a long value are shown. */
const LONG_HEAD = 200;

/**
 * {@link show}, a long value (an agent job's chat, stored whole as an input:
 * R147-2, a 50 MB chat printed twice) cut to its head and its size in
 * UTF-8 bytes: `… (N bytes; --json for all)`. `--json` keeps it whole.
 */
function showShort(v: unknown): string {
  const text = show(v);
  if (text.length <= LONG_VALUE) return text;
  return clipEnd(text, LONG_HEAD, `… (${Buffer.byteLength(text, "utf8")} bytes; --json for all)`);
}

type WfLib = Awaited<ReturnType<typeof wfLib>>;

/** Everything `workflow info` shows of a job. */
interface JobFacts {
  path: string;
  state: JobState;
  dependencies: { ref: string; path: string | null; status: string }[];
  files: string[];
  /** A waiting job's SLURM job and what SLURM says of it, or null (R109-5). */
  batch: WaitingBatchState | null;
}

/** Info fields shown in their own rows; any other is shown as it is, after them. */
const KNOWN_INFO_FIELDS: ReadonlySet<string> = new Set([
  "status",
  "batch_job",
  "batch_system",
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

/**
 * `workflow info`: everything known about a job (ours or Scout's).
 *
 * @param opts command options
 * @param io injected I/O
 * @returns exit code
 */
export async function runWorkflowInfo(opts: WorkflowInfoOptions, io: Io): Promise<number> {
  const lib = await wfLib();
  let facts: JobFacts;
  try {
    facts = await jobFacts(lib, opts, io);
  } catch (e) {
    // --json answers on stdout for a job not found too (R106-5), and still exits 1
    if (opts.json && isScoutError(e, "job_not_found")) {
      io.stdout.write(
        jsonText({ version: 1, path: opts.job, status: "notfound", error: e.message }) + "\n",
      );
    }
    throw e;
  }
  io.stdout.write(opts.json ? infoJson(lib, facts) : infoText(lib, facts, io));
  return 0;
}

/**
 * Finds the job (by path, short path or name prefix, which is named on
 * stderr) and reads its state, dependencies and files; a problem reading
 * its info is warned about.
 *
 * @throws ScoutError `job_not_found`
 */
async function jobFacts(lib: WfLib, opts: WorkflowInfoOptions, io: Io): Promise<JobFacts> {
  const given = [...(opts.jobsDir !== undefined ? [opts.jobsDir] : []), ...opts.jobsDirs ?? []];
  // each --jobs-dir checked and searched, in order (R94-7: the last one was the only one)
  const roots = given.length > 0
    ? [
      ...new Set(
        given.flatMap((d) => lib.jobStore(storeOptions({ jobsDir: d }, io, "read")).roots),
      ),
    ]
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
  let state = await lib.jobState(path);
  if (state.problem !== null) warn(io, state.problem);
  for (const w of lib.infoDependencyProblems(state.info, path)) warn(io, w);
  const depRoots = [lib.rootOf(path), ...roots];
  const dependencies = await Promise.all(
    lib.infoDependencies(state.info).map(async (ref) => {
      const p = lib.resolveJobReference(ref, { roots: depRoots, cwd: io.cwd, env: io.env });
      return { ref, path: p, status: p === null ? "missing" : (await lib.jobState(p)).status };
    }),
  );
  const files = await lib.listJobFiles(path);
  // only a waiting job naming a SLURM job asks squeue (once): SLURM alone knows it was
  // cancelled before it started, which leaves the info waiting for good (R109-5)
  const waiting = lib.waitingBatch(state.info, state.done);
  const batch = waiting === null ? null : await lib.askWaitingBatch(waiting, io.env);
  if (batch?.ended) state = { ...state, status: "stale", stale: true };
  return { path, state, dependencies, files, batch };
}

/** The `--json` shape (version 1; see `workflow.ts`), one line. */
function infoJson(lib: WfLib, { path, state, dependencies, files, batch }: JobFacts): string {
  return jsonText({
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
    dependencies,
    files,
    ...(batch !== null ? { batch } : {}),
  }) + "\n";
}

/** `  <key padded to 10> <value>`: one row of the text view. */
function row(k: string, v: string): string {
  return `  ${padToWidth(k, 10)} ${v}`;
}

/**
 * The text view: the short path (bold), then a row per fact — status, task,
 * times, process, inputs, dependencies, messages, backtrace, files, and
 * the info's other fields.
 */
function infoText(lib: WfLib, facts: JobFacts, io: Io): string {
  const { path, state, batch } = facts;
  const info = state.info ?? {};
  const out: string[] = [paint(io, "stdout", "bold", lib.shortPath(path))];
  out.push(row("path", path));
  const note = batch?.ended ? `was waiting; its SLURM job ${batch.id} ended` : processNote(state);
  out.push(row(
    "status",
    paint(io, "stdout", statusStyle(state.status), state.status) +
      (note ? ` (${note})` : "") + (state.done ? "" : " (no result)"),
  ));
  out.push(...runRows(info, batch === null ? "" : lib.waitingBatchNote(batch)));
  out.push(...inputRows(info));
  for (const d of facts.dependencies) {
    out.push(row(
      "dependency",
      `${paint(io, "stdout", statusStyle(d.status), d.status.padEnd(7))} ${
        d.path === null ? d.ref : lib.shortPath(d.path)
      }`,
    ));
  }
  if (Array.isArray(info.messages)) {
    for (const m of info.messages) out.push(row("message", show(m)));
  }
  if (state.status === "error" && Array.isArray(info.backtrace)) {
    for (const b of info.backtrace.slice(0, 5)) out.push(row("backtrace", show(b)));
  }
  for (const f of facts.files) out.push(row("file", f));
  for (const [k, v] of Object.entries(info)) {
    if (!KNOWN_INFO_FIELDS.has(k)) out.push(row(k, showShort(v)));
  }
  return out.join("\n") + "\n";
}

/**
 * Rows of the run: task and type, issued/start/end, elapsed times, process,
 * batch job (and `batchNote`, what SLURM says of it).
 */
function runRows(info: JobInfo, batchNote: string): string[] {
  const out: string[] = [];
  if (info.workflow !== undefined || info.task_name !== undefined) {
    out.push(row(
      "task",
      `${show(info.workflow ?? "?")}/${show(info.task_name ?? "?")}` +
        (info.type !== undefined ? `  type ${show(info.type)}` : ""),
    ));
  }
  for (const k of ["issued", "start", "end"]) {
    if (info[k] !== undefined) out.push(row(k, show(info[k])));
  }
  if (typeof info.time_elapsed === "number") {
    out.push(row(
      "elapsed",
      `${info.time_elapsed.toFixed(3)}s` +
        (typeof info.total_time_elapsed === "number"
          ? ` (total ${info.total_time_elapsed.toFixed(3)}s)`
          : ""),
    ));
  }
  if (info.pid !== undefined) {
    out.push(row("pid", `${show(info.pid)}@${show(info.pid_hostname ?? "?")}`));
  }
  if (info.batch_job !== undefined) {
    // a scheduler's job (`--deploy slurm`, or Scout's): `SLURM job 103`
    out.push(row(
      "batch",
      `${show(info.batch_system ?? "batch")} job ${show(info.batch_job)}` +
        (batchNote !== "" ? `  ${batchNote}` : ""),
    ));
  }
  return out;
}

/** Rows of the inputs: all of them by name, then the provided ones; long values shortened. */
function inputRows(info: JobInfo): string[] {
  const out: string[] = [];
  if (Array.isArray(info.input_names) && info.input_names.length > 0) {
    const vals = Array.isArray(info.inputs) ? info.inputs : [];
    out.push(
      row(
        "inputs",
        info.input_names.map((n, i) => `${n}=${showShort(vals[i] ?? null)}`).join("  "),
      ),
    );
  }
  if (info.provided_inputs && Object.keys(info.provided_inputs).length > 0) {
    out.push(row(
      "provided",
      Object.entries(info.provided_inputs).map(([k, v]) => `${k}=${showShort(v)}`).join("  "),
    ));
  }
  return out;
}
