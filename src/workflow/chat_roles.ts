/**
 * The job-backed chat roles (`chat.md` §4.3: `task`, `inline_task`,
 * `exec_task`, `job`, `inline_job`, `step`) on the workflow engine: an
 * implementation of compile's `JobRoleResolver`. Light to import: the engine
 * is loaded on first use.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { ScoutError } from "../errors.ts";
import { ownRecord } from "../util/own_record.ts";
import type { JobRoleResolver, JobSnapshot, TaskRequest } from "../chat/compile_jobs.ts";
import type { Job } from "./job_types.ts";
import type { JobState } from "./state.ts";

/** Options of {@link jobRoleResolver}. */
export interface JobRoleResolverOptions {
  /** Working directory (workflow search, job references). */
  cwd?: string;
  /** Environment (`SCOUT_HOME`, `SCOUT_JOBS_DIR`). */
  env?: Record<string, string | undefined>;
  /** Explicit jobs directory. */
  jobsDir?: string;
  /** Poll interval while waiting for a job another process is running (ms). */
  pollMs?: number;
}

const engine = () =>
  Promise.all([
    import("./load.ts"),
    import("./job.ts"),
    import("./run.ts"),
    import("./store.ts"),
    import("./state.ts"),
    import("./info.ts"),
    import("./result.ts"),
    import("./context.ts"),
  ]);

function inputsOf(request: TaskRequest): Record<string, unknown> {
  const out = ownRecord(); // an input `__proto__` is a value, not a prototype
  for (const [k, v] of Object.entries(request.inputs)) {
    out[k] = v instanceof RegExp ? v.source : v;
  }
  return out;
}

function lastAnswer(chat: { role: string; content: unknown }[]): string {
  for (let i = chat.length - 1; i >= 0; i--) {
    const m = chat[i]!;
    if (m.role === "assistant") {
      return typeof m.content === "string" ? m.content : JSON.stringify(m.content);
    }
  }
  const m = chat.at(-1);
  return m === undefined
    ? ""
    : typeof m.content === "string"
    ? m.content
    : JSON.stringify(m.content);
}

/** What the resolver's operations share: where jobs live and the jobs created so far. */
interface ResolverContext {
  cwd: string;
  env: Record<string, string | undefined>;
  /** The explicit jobs directory, if any. */
  jobsDir: string | undefined;
  pollMs: number;
  /** Jobs made by `createJob`, by path, for `produceJobs`. */
  created: Map<string, Job>;
}

async function makeJob(ctx: ResolverContext, request: TaskRequest): Promise<Job> {
  const [load, job] = await engine();
  const { cwd, env } = ctx;
  const jobsDir = ctx.jobsDir !== undefined ? { jobsDir: ctx.jobsDir } : {};
  const dirs = request.origin !== undefined ? [join(dirname(request.origin), "workflows")] : [];
  const wf = await load.loadWorkflow(request.workflow, { cwd, env, dirs });
  return job.createJob(wf, request.task, {
    inputs: inputsOf(request),
    ...(request.jobname !== undefined ? { jobname: request.jobname } : {}),
    cwd,
    env,
    store: job.storeFor(wf, { env, cwd, ...jobsDir }),
  });
}

async function locate(ctx: ResolverContext, ref: string): Promise<string> {
  const [, , , store] = await engine();
  const { cwd, env } = ctx;
  const roots = ctx.jobsDir !== undefined
    ? store.jobStore({ env, cwd, jobsDir: ctx.jobsDir }).roots
    : store.jobRoots({ env, cwd });
  const path = store.resolveJobReference(ref, { roots, cwd, env });
  if (path === null) {
    throw new ScoutError("job_not_found", `Job not found: "${ref}"`, { reference: ref });
  }
  return path;
}

async function createJob(ctx: ResolverContext, request: TaskRequest): Promise<string> {
  const j = await makeJob(ctx, request);
  ctx.created.set(j.path, j);
  return j.path;
}

async function produceJobs(ctx: ResolverContext, paths: readonly string[]): Promise<void> {
  const [, , run] = await engine();
  const jobs = paths.map((p) => ctx.created.get(p)).filter((j): j is Job => j !== undefined);
  const results = await Promise.allSettled(jobs.map((j) => run.produceJob(j, { env: ctx.env })));
  for (const r of results) {
    // A failed job is recorded in its info; the `job:` stage reports it.
    if (
      r.status === "rejected" &&
      !(r.reason instanceof ScoutError && r.reason.code === "job_failed")
    ) {
      throw r.reason;
    }
  }
}

async function execTask(ctx: ResolverContext, request: TaskRequest): Promise<string> {
  const [, , run, , , , result] = await engine();
  const j = await makeJob(ctx, request);
  // a stream read, a value no result file holds refused, as a persisted job's (R126-3)
  const value = await run.execJobOutput(j);
  return result.resultText(value, j.type);
}

/** The job's state once no other process is running it. */
async function settledState(ctx: ResolverContext, path: string): Promise<JobState> {
  const [, , , , state] = await engine();
  let s = await state.jobState(path);
  while (!s.done && s.running) {
    await new Promise((r) => setTimeout(r, ctx.pollMs));
    s = await state.jobState(path);
  }
  return s;
}

async function loadJob(ctx: ResolverContext, ref: string): Promise<JobSnapshot> {
  const [, , , store, , info] = await engine();
  const path = await locate(ctx, ref);
  const s = await settledState(ctx, path);
  const i = s.info ?? {};
  const snap: JobSnapshot = {
    taskName: typeof i.task_name === "string" ? i.task_name : path.split("/").at(-2) ?? "",
    providedInputs: i.provided_inputs && typeof i.provided_inputs === "object"
      ? { ...i.provided_inputs }
      : {},
    shortPath: store.shortPath(path),
    status: s.done ? "done" : s.status,
  };
  if (s.done) {
    const { readFile } = await import("node:fs/promises");
    snap.resultText = new TextDecoder("utf-8", { fatal: false }).decode(await readFile(path));
  } else if (s.status === "error") {
    const err = info.infoError(s.info);
    snap.exception = {
      message: err?.message ?? "error recorded in the job's info",
      ...(Array.isArray(i.backtrace) ? { stack: i.backtrace.join("\n") } : {}),
    };
  }
  return snap;
}

async function stepAnswer(
  ctx: ResolverContext,
  metaJob: string,
  taskName: string,
): Promise<string> {
  const [, job, run, store, , , , context] = await engine();
  const { cwd, env } = ctx;
  const path = await locate(ctx, metaJob);
  const s = store.jobStore({ env, cwd });
  const root = job.jobAt(path, {
    store: { ...s, roots: [store.rootOf(path), ...s.roots] },
    cwd,
    env,
  });
  const target = root.taskName === taskName ? root : context.findStep(root, taskName);
  if (target === undefined) {
    throw new ScoutError(
      "job_not_found",
      `step: job "${root.shortPath}" has no dependency with task "${taskName}"`,
      { reference: metaJob },
    );
  }
  const value = await run.loadJobResult({ ...target, type: "chat" });
  return lastAnswer(value as { role: string; content: unknown }[]);
}

/**
 * Builds the resolver compile uses for the job-backed roles.
 *
 * - `task`/`inline_task`: the job is created (inputs from the line's `k=v`,
 *   never replaced by file contents) and all of them are produced together;
 *   failures stay in each job's info and surface in the `job:` stage.
 * - `exec_task`: run in memory now; the result as text (JSON unless a string).
 * - `job`: a snapshot of the job, waiting while another process runs it.
 * - `step`: the answer of the chat result of the meta job or of its
 *   dependency with that task name.
 *
 * @param opts cwd, env, jobs directory
 * @returns the resolver
 *
 * @example
 * ```ts ignore
 * import { compileText } from "../chat/compile.ts";
 * import { jobRoleResolver } from "./chat_roles.ts";
 * await compileText("task: Baking whisk eggs=3", { jobs: jobRoleResolver() });
 * ```
 */
export function jobRoleResolver(opts: JobRoleResolverOptions = {}): JobRoleResolver {
  const ctx: ResolverContext = {
    cwd: opts.cwd ?? process.cwd(),
    env: opts.env ?? process.env,
    jobsDir: opts.jobsDir,
    pollMs: opts.pollMs ?? 100,
    created: new Map(),
  };
  return {
    createJob: (request) => createJob(ctx, request),
    produceJobs: (paths) => produceJobs(ctx, paths),
    execTask: (request) => execTask(ctx, request),
    loadJob: (ref) => loadJob(ctx, ref),
    stepAnswer: (metaJob, taskName) => stepAnswer(ctx, metaJob, taskName),
  };
}
