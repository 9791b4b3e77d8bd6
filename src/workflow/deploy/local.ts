/**
 * `--deploy local`: the jobs of a graph that are not done run in worker
 * processes of this same program (see `self.ts`), independent ones at the
 * same time, at most `cpus` CPUs in use (a task's `cpus` from the rules
 * counts that many). Workers are started once and fed one job path per line;
 * each computes only that job (its dependencies are done by then). The job
 * store's locks still make each job computed once, also when another
 * scout-ai runs the same graph.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { ScoutError } from "../../errors.ts";
import type { Job } from "../job_types.ts";
import { directDeps, pendingJobs } from "./graph.ts";
import { type DeployRules, NO_RULES, taskResources } from "./rules.ts";

/** The line prefix of a worker's replies on its stdout (other output is passed on to stderr). */
export const WORKER_MARK = "\u001fscout-ai-worker\t";

/** Progress events of a local deploy. */
export type LocalEvent =
  | { type: "start"; job: Job; running: number; left: number }
  | { type: "done" | "error"; job: Job; message?: string; running: number; left: number };

/** Options of {@link deployLocal}. */
export interface LocalDeployOptions {
  /** CPUs to fill (default 1). */
  cpus?: number;
  /** Rules (per-task `cpus`). */
  rules?: DeployRules;
  /** Full command line of one worker (it reads job paths on stdin). */
  workerArgv: string[];
  /** Working directory of the workers. */
  cwd?: string;
  /** Environment of the workers. */
  env?: Record<string, string | undefined>;
  /** Progress callback. */
  onEvent?: (e: LocalEvent) => void;
  /** Where workers' own output (task prints, warnings) goes. */
  onOutput?: (text: string) => void;
}

/** What a local deploy did. */
export interface LocalDeployReport {
  /** Paths of the jobs the workers ran, in completion order. */
  ran: string[];
  /** Workers started. */
  workers: number;
}

interface Worker {
  send: (path: string) => void;
  close: () => void;
  busy: Job | null;
  cpus: number;
  exited: Promise<void>;
}

/**
 * Runs the pending jobs of `top`'s graph in worker processes.
 *
 * @param top the top job (it runs last)
 * @param opts CPUs, rules, worker command
 * @returns the jobs run
 * @throws ScoutError `deploy_failed` naming the first job that failed (its
 *   info records the error); jobs that do not depend on it still ran
 */
export async function deployLocal(top: Job, opts: LocalDeployOptions): Promise<LocalDeployReport> {
  const cpus = Math.max(1, Math.floor(opts.cpus ?? 1));
  const rules = opts.rules ?? NO_RULES;
  const pending = pendingJobs(top);
  const byPath = new Map(pending.map((j) => [j.path, j]));
  const waiting = new Map<string, number>();
  const dependents = new Map<string, Job[]>();
  for (const j of pending) {
    const ds = directDeps(j).filter((d) => byPath.has(d.path));
    waiting.set(j.path, ds.length);
    for (const d of ds) dependents.set(d.path, [...(dependents.get(d.path) ?? []), j]);
  }
  const ready: Job[] = pending.filter((j) => waiting.get(j.path) === 0);
  const workers: Worker[] = [];
  const ran: string[] = [];
  let used = 0;
  let startedWorkers = 0;
  let running = 0;
  let failure: { job: Job; message: string } | null = null;
  let finish: () => void = () => {};
  const finished = new Promise<void>((r) => (finish = r));
  const left = () => pending.length - ran.length - (failure ? 1 : 0);
  const need = (j: Job) =>
    Math.min(cpus, taskResources(rules, j.workflowName, j.taskName).cpus ?? 1);

  const settle = (w: Worker, ok: boolean, message?: string) => {
    const job = w.busy;
    if (job === null) return;
    w.busy = null;
    used -= w.cpus;
    running--;
    if (ok) {
      ran.push(job.path);
      for (const d of dependents.get(job.path) ?? []) {
        const n = waiting.get(d.path)! - 1;
        waiting.set(d.path, n);
        if (n === 0) ready.push(d);
      }
      opts.onEvent?.({ type: "done", job, running, left: left() });
    } else {
      failure ??= { job, message: message ?? "failed" };
      opts.onEvent?.({ type: "error", job, message: message ?? "failed", running, left: left() });
    }
    fill();
  };

  const startWorker = (): Worker => {
    const [cmd, ...args] = opts.workerArgv;
    const child = spawn(cmd!, args, {
      cwd: opts.cwd,
      env: opts.env as NodeJS.ProcessEnv,
      stdio: ["pipe", "pipe", "inherit"],
    });
    const w: Worker = {
      send: (p) => child.stdin.write(p + "\n"),
      close: () => child.stdin.end(),
      busy: null,
      cpus: 0,
      exited: new Promise((resolve) => child.on("close", () => resolve())),
    };
    child.on("error", () => {});
    child.stdin.on("error", () => {});
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (!line.startsWith(WORKER_MARK)) {
        opts.onOutput?.(line + "\n");
        return;
      }
      const [kind, , ...msg] = line.slice(WORKER_MARK.length).split("\t");
      settle(w, kind === "done", msg.join("\t"));
    });
    void w.exited.then(() => {
      const i = workers.indexOf(w);
      if (i >= 0) workers.splice(i, 1);
      if (w.busy !== null) settle(w, false, "worker process ended before the job finished");
      if (running === 0) fill();
    });
    workers.push(w);
    startedWorkers++;
    return w;
  };

  function fill(): void {
    while (failure === null && ready.length > 0) {
      const job = ready[0]!;
      const n = need(job);
      if (used > 0 && used + n > cpus) break;
      const w = workers.find((x) => x.busy === null) ?? startWorker();
      ready.shift();
      w.busy = job;
      w.cpus = n;
      used += n;
      running++;
      opts.onEvent?.({ type: "start", job, running, left: left() });
      w.send(job.path);
    }
    if (running === 0) finish();
  }

  fill();
  await finished;
  for (const w of workers) w.close();
  await Promise.all(workers.map((w) => w.exited));
  if (failure !== null) {
    const f = failure as { job: Job; message: string };
    const prefix = `Job "${f.job.shortPath}" failed: `;
    const message = f.message.startsWith(prefix) ? f.message : prefix + f.message;
    throw new ScoutError("deploy_failed", message, { file: f.job.path, job: f.job.path });
  }
  return { ran, workers: startedWorkers };
}
