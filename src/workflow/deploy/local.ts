/**
 * `--deploy local`: the jobs of a graph that are not done run in worker
 * processes of this same program (see `self.ts`), independent ones at the
 * same time, at most `cpus` CPUs in use (a task's `cpus` from the rules
 * counts that many). Workers are started once and fed one job path per line;
 * each computes only that job (its dependencies are done by then). The job
 * store's locks still make each job computed once, also when another
 * scout-ai runs the same graph. Each worker leads a process group of its
 * own; a stop (the CLI's SIGINT/SIGTERM/SIGHUP) is passed on to every group,
 * SIGKILL follows after a grace period, and the jobs that were running are
 * recorded `aborted` (R81-4). A worker whose parent is gone (a SIGKILL, also
 * of the parent's group: the end of its stdin) aborts its job and exits
 * (R84-4).
 *
 * @module
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { ScoutError } from "../../errors.ts";
import { pidAlive } from "../../util/process.ts";
import { groupGone, GROUPS, signalGroup, within } from "../../util/process_group.ts";
import { readJobInfoSync } from "../info.ts";
import type { Job } from "../job_types.ts";
import { recordAborted } from "../run_info.ts";
import { thisHost } from "../state.ts";
import { directDeps, pendingJobs } from "./graph.ts";
import { recordWorkerEnd, type WorkerEnd, workerEndMessage } from "./worker_end.ts";
import { type DeployRules, NO_RULES, taskResources } from "./rules.ts";

/**
 * The line prefix of a worker's replies on its stdout (other output is passed
 * on to stderr): `done\t<path>` or `error\t<path>\t<message>`, the path a
 * JSON string, as the job paths a worker is sent on its stdin, one a line.
 */
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
  /**
   * Stops the deploy when aborted, its reason the name of the signal that
   * asked for it (`SIGINT`, `SIGTERM`, `SIGHUP`): no job starts any more,
   * the workers get SIGINT (for SIGINT) or SIGTERM, and SIGKILL after
   * `graceMs`.
   */
  stop?: AbortSignal;
  /** How long stopped workers have to end before SIGKILL, in ms (default 2000). */
  graceMs?: number;
}

/** What a local deploy did. */
export interface LocalDeployReport {
  /** Paths of the jobs the workers ran, in completion order. */
  ran: string[];
  /** Workers started. */
  workers: number;
  /** Set when a stop ended the deploy: the signal, and the jobs recorded `aborted`. */
  stopped?: { signal: string; aborted: string[] };
}

interface Worker {
  /** Its pid, also its process group's id (none when it could not start). */
  pid: number | undefined;
  send: (path: string) => void;
  close: () => void;
  busy: Job | null;
  cpus: number;
  exited: Promise<void>;
  /** How it ended, once it has. */
  ended: WorkerEnd | null;
}

/** The pending jobs' dependency counts: who waits on how many, who waits on whom, who is ready. */
interface DependencyCounts {
  /** Pending dependencies not yet run, by job path. */
  waiting: Map<string, number>;
  /** The pending jobs that depend on each job, by its path. */
  dependents: Map<string, Job[]>;
  /** The jobs with nothing left to wait for, in the order they may start. */
  ready: Job[];
}

function dependencyCounts(pending: Job[]): DependencyCounts {
  const byPath = new Map(pending.map((j) => [j.path, j]));
  const waiting = new Map<string, number>();
  const dependents = new Map<string, Job[]>();
  for (const j of pending) {
    const ds = directDeps(j).filter((d) => byPath.has(d.path));
    waiting.set(j.path, ds.length);
    for (const d of ds) dependents.set(d.path, [...(dependents.get(d.path) ?? []), j]);
  }
  const ready: Job[] = pending.filter((j) => waiting.get(j.path) === 0);
  return { waiting, dependents, ready };
}

/** The scheduler of one local deploy: its jobs, its workers and what is in use. */
interface Scheduler extends DependencyCounts {
  opts: LocalDeployOptions;
  /** CPUs to fill. */
  cpus: number;
  rules: DeployRules;
  pending: Job[];
  workers: Worker[];
  /** Paths of the jobs run, in completion order. */
  ran: string[];
  /** CPUs taken by busy workers. */
  used: number;
  startedWorkers: number;
  running: number;
  failure: { job: Job; message: string } | null;
  /** The signal that stopped the deploy, once one did. */
  stopping: string | null;
  /** Ends the deploy (called once nothing runs). */
  finish: () => void;
}

function newScheduler(top: Job, opts: LocalDeployOptions): Scheduler {
  const pending = pendingJobs(top);
  return {
    opts,
    cpus: Math.max(1, Math.floor(opts.cpus ?? 1)),
    rules: opts.rules ?? NO_RULES,
    pending,
    ...dependencyCounts(pending),
    workers: [],
    ran: [],
    used: 0,
    startedWorkers: 0,
    running: 0,
    failure: null,
    stopping: null,
    finish: () => {},
  };
}

/** Jobs not yet run (a failed one counts as ended). */
function left(s: Scheduler): number {
  return s.pending.length - s.ran.length - (s.failure ? 1 : 0);
}

/** The CPUs a job takes (its task's rule, at most all of them). */
function need(s: Scheduler, j: Job): number {
  return Math.min(s.cpus, taskResources(s.rules, j.workflowName, j.taskName).cpus ?? 1);
}

/** A worker's job ended: free the worker, release the jobs waiting on it, start more. */
function settle(s: Scheduler, w: Worker, ok: boolean, message?: string): void {
  const job = w.busy;
  if (job === null || s.stopping !== null) return; // a stop records its jobs itself
  w.busy = null;
  s.used -= w.cpus;
  s.running--;
  if (ok) {
    s.ran.push(job.path);
    for (const d of s.dependents.get(job.path) ?? []) {
      const n = s.waiting.get(d.path)! - 1;
      s.waiting.set(d.path, n);
      if (n === 0) s.ready.push(d);
    }
    s.opts.onEvent?.({ type: "done", job, running: s.running, left: left(s) });
  } else {
    s.failure ??= { job, message: message ?? "failed" };
    const msg = message ?? "failed";
    s.opts.onEvent?.({ type: "error", job, message: msg, running: s.running, left: left(s) });
  }
  fill(s);
}

/** Spawns a worker process, settles its jobs from its replies, and forgets it when it exits. */
function startWorker(s: Scheduler): Worker {
  const { opts } = s;
  const [cmd, ...args] = opts.workerArgv;
  const child = spawn(cmd!, args, {
    cwd: opts.cwd,
    env: opts.env as NodeJS.ProcessEnv,
    stdio: ["pipe", "pipe", "inherit"],
    // a group of its own: a stop reaches what the task started too
    detached: GROUPS,
  });
  const w: Worker = {
    pid: child.pid,
    // one JSON string a line: a path may hold a newline (SCOUT_HOME, --jobname) (R102-6)
    send: (p) => child.stdin.write(JSON.stringify(p) + "\n"),
    close: () => child.stdin.end(),
    busy: null,
    cpus: 0,
    exited: new Promise((resolve) =>
      child.on("close", (code, signal) => {
        w.ended = { code, signal };
        resolve();
      })
    ),
    ended: null,
  };
  child.on("error", () => {});
  child.stdin.on("error", () => {});
  createInterface({ input: child.stdout }).on("line", (line) => {
    if (!line.startsWith(WORKER_MARK)) {
      opts.onOutput?.(line + "\n");
      return;
    }
    const [kind, , ...msg] = line.slice(WORKER_MARK.length).split("\t");
    settle(s, w, kind === "done", msg.join("\t"));
  });
  void w.exited.then(() => {
    const i = s.workers.indexOf(w);
    if (i >= 0) s.workers.splice(i, 1);
    // killed (kill -9, the OOM killer) or exited under its job: said, and recorded (R106-4)
    if (w.busy !== null && s.stopping === null) {
      const end = w.ended ?? { code: null, signal: null };
      recordWorkerEnd(w.busy, w.pid, end);
      settle(s, w, false, workerEndMessage(end));
    }
    if (s.running === 0) fill(s);
  });
  s.workers.push(w);
  s.startedWorkers++;
  return w;
}

/** Starts ready jobs while CPUs are free (one always, when none run); finishes when none run. */
function fill(s: Scheduler): void {
  while (s.failure === null && s.stopping === null && s.ready.length > 0) {
    const job = s.ready[0]!;
    const n = need(s, job);
    if (s.used > 0 && s.used + n > s.cpus) break;
    const w = s.workers.find((x) => x.busy === null) ?? startWorker(s);
    s.ready.shift();
    w.busy = job;
    w.cpus = n;
    s.used += n;
    s.running++;
    s.opts.onEvent?.({ type: "start", job, running: s.running, left: left(s) });
    w.send(job.path);
  }
  if (s.running === 0) s.finish();
}

/** The `deploy_failed` error of the first job that failed. */
function deployFailed(f: { job: Job; message: string }): ScoutError {
  const prefix = `Job "${f.job.shortPath}" failed: `;
  const message = f.message.startsWith(prefix) ? f.message : prefix + f.message;
  return new ScoutError("deploy_failed", message, { file: f.job.path, job: f.job.path });
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
  const s = newScheduler(top, opts);
  const finished = new Promise<void>((r) => (s.finish = r));
  const stop = opts.stop;
  const stopAsked = new Promise<void>((r) => {
    if (stop?.aborted) r();
    else stop?.addEventListener("abort", () => r(), { once: true });
  });
  if (!stop?.aborted) fill(s);
  await Promise.race([finished, stopAsked]);
  if (stop?.aborted) {
    const signal = String(stop.reason);
    s.stopping = signal;
    const aborted = await stopWorkers(s, signal);
    return { ran: s.ran, workers: s.startedWorkers, stopped: { signal, aborted } };
  }
  for (const w of s.workers) w.close();
  await Promise.all(s.workers.map((w) => w.exited));
  if (s.failure !== null) throw deployFailed(s.failure);
  return { ran: s.ran, workers: s.startedWorkers };
}

/**
 * Stops every worker: the signal (SIGINT and SIGHUP as they are, others
 * as SIGTERM; a worker records each as an interrupt) to its group, SIGKILL
 * after the grace period to what is left; then the jobs that were running
 * are recorded `aborted` where their worker could not (see {@link abortedBy}).
 *
 * @returns the paths of the running jobs now recorded `aborted`
 */
async function stopWorkers(s: Scheduler, signal: string): Promise<string[]> {
  const grace = s.opts.graceMs ?? 2000;
  const workers = [...s.workers];
  const busy = workers.filter((w) => w.busy !== null).map((w) => ({ job: w.busy!, pid: w.pid }));
  const pids = workers.map((w) => w.pid).filter((p): p is number => p !== undefined);
  const passed: NodeJS.Signals = signal === "SIGINT" || signal === "SIGHUP" ? signal : "SIGTERM";
  for (const pid of pids) signalGroup(pid, passed);
  const exited = Promise.all(workers.map((w) => w.exited));
  if (!(await within(exited, grace))) { for (const pid of pids) signalGroup(pid, "SIGKILL"); }
  await within(exited, grace);
  // what a task started and left in the group goes too
  for (const pid of pids) if (!(await groupGone(pid, grace))) signalGroup(pid, "SIGKILL");
  return busy.filter((b) => abortedBy(b.job, b.pid, signal)).map((b) => b.job.path);
}

/**
 * Whether a job that was running when the deploy stopped is now recorded
 * `aborted`: by its worker (which records the interrupt itself), or here,
 * when its info still says a process of this host runs it that is its
 * worker or gone (the worker was killed first; `SCOUT_AI_SELF` may wrap
 * it). A job that ended meanwhile, or that a live process runs (the worker
 * was waiting for its lock), is left as it is.
 */
function abortedBy(job: Job, pid: number | undefined, signal: string): boolean {
  const { info } = readJobInfoSync(job.path);
  const status = info?.status;
  if (status === "aborted") return true;
  if (info === null || status === "done" || status === "error" || status === "noinfo") {
    return false;
  }
  const here = info.pid_hostname === undefined || info.pid_hostname === thisHost();
  const holder = Number(info.pid);
  if (!here || (holder !== pid && pidAlive(holder))) return false;
  try {
    recordAborted(job.path, signal);
    return true;
  } catch {
    return false; // the others are still recorded
  }
}
