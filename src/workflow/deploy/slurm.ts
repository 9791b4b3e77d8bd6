/**
 * `--deploy slurm`: one batch directory per pending job (or per chain of
 * jobs) with Scout's file names — `command.batch`, `std.out`, `std.err`,
 * `job.id`, `exit.status`, `dependencies.list` (plus `jobs.list`, the job
 * paths it runs) — submitted with `sbatch --dependency=afterok:<ids>
 * --kill-on-invalid-dep=yes` in dependency order. The script runs this same
 * program on its job(s) only; the job store must be on a file system every
 * node sees.
 *
 * @module
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { ScoutError } from "../../errors.ts";
import { writeFileAtomicSync } from "../../util/fs.ts";
import type { Job } from "../job_types.ts";
import { directDeps, pendingJobs } from "./graph.ts";
import { FINAL_STATES, slurmStates } from "./slurm_state.ts";
import {
  chainOf,
  combineResources,
  type DeployRules,
  type JobResources,
  NO_RULES,
  taskResources,
} from "./rules.ts";

const run = promisify(execFile);

export { FINAL_STATES, slurmStates, WAIT_RETRY, waitForUnit } from "./slurm_state.ts";
export type { BatchEnd, SqueueRetry, SubmittedBatch } from "./slurm_state.ts";

/** One batch job: the jobs it runs (dependencies first) and its directory. */
export interface BatchUnit {
  /** Directory name (`SLURM_scout_job-<Workflow>-<task>-<name>`). */
  name: string;
  /** Batch directory. */
  dir: string;
  /** Jobs it runs, in order; the last is the one it is named after. */
  jobs: Job[];
  /** Units it waits for. */
  after: BatchUnit[];
  /** Merged resources. */
  resources: JobResources;
  /** SLURM id (after submission, or of a live earlier submission). */
  slurmId?: string;
  /** `submitted`, `queued` (a live earlier submission reused) or `dry-run`. */
  status?: "submitted" | "queued" | "dry-run";
}

/** Options of {@link deploySlurm}. */
export interface SlurmDeployOptions {
  /** Rules (resources, chains). */
  rules?: DeployRules;
  /** Where batch directories go. */
  batchBase: string;
  /** The command a batch job runs for its job paths (this program, `--deploy-job` each). */
  command: (jobs: Job[]) => string[];
  /** Working directory of the batch jobs. */
  cwd: string;
  /** Environment for sbatch/squeue. */
  env?: Record<string, string | undefined>;
  /** Write the scripts, submit nothing. */
  dryRun?: boolean;
}

/** What a SLURM deploy did. */
export interface SlurmDeployReport {
  /** Units in submission order. */
  units: BatchUnit[];
  /** The unit that runs the top job (absent when it is done). */
  top?: BatchUnit;
  /** The `sbatch` commands, as a bash script (always filled; what `--dry-run` prints). */
  script: string;
}

/**
 * Single-quotes a word for bash.
 *
 * @param s the word
 * @returns the quoted word
 */
export function shq(s: string): string {
  return /^[A-Za-z0-9_./=:@%+,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function safe(s: string): string {
  return s.replace(/[^A-Za-z0-9_.-]/g, "_");
}

/**
 * Groups pending jobs into batch units: a job whose task is in a chain joins
 * its only pending dependent when that one is in the same chain.
 *
 * @param top the top job
 * @param rules the rules
 * @param base batch base directory
 * @returns units in dependency order
 */
export function batchUnits(top: Job, rules: DeployRules, base: string): BatchUnit[] {
  const pending = pendingJobs(top);
  const byPath = new Map(pending.map((j) => [j.path, j]));
  const dependents = new Map<string, Job[]>();
  for (const j of pending) {
    for (const d of directDeps(j)) {
      if (byPath.has(d.path)) dependents.set(d.path, [...(dependents.get(d.path) ?? []), j]);
    }
  }
  const unitOf = new Map<string, BatchUnit>();
  // Top-down (dependents before dependencies) so a job can join its dependent's unit.
  for (const j of [...pending].reverse()) {
    const ds = dependents.get(j.path) ?? [];
    const chain = chainOf(rules, j.workflowName, j.taskName);
    const parent = ds.length === 1 ? ds[0]! : undefined;
    if (
      chain !== undefined && parent !== undefined &&
      chainOf(rules, parent.workflowName, parent.taskName) === chain
    ) {
      const u = unitOf.get(parent.path)!;
      u.jobs.unshift(j);
      unitOf.set(j.path, u);
      continue;
    }
    const name = `SLURM_scout_job-${safe(j.workflowName)}-${safe(j.taskName)}-${safe(j.name)}`;
    unitOf.set(j.path, { name, dir: join(base, name), jobs: [j], after: [], resources: {} });
  }
  const units: BatchUnit[] = [];
  for (const j of pending) {
    const u = unitOf.get(j.path)!;
    if (!units.includes(u)) units.push(u);
  }
  for (const u of units) {
    // Jobs were added top-down; run them dependencies first.
    u.jobs.sort((a, b) => pending.indexOf(a) - pending.indexOf(b));
    for (const j of u.jobs) {
      for (const d of directDeps(j)) {
        const du = unitOf.get(d.path);
        if (du !== undefined && du !== u && !u.after.includes(du)) u.after.push(du);
      }
    }
    u.resources = combineResources(
      u.jobs.map((j) => taskResources(rules, j.workflowName, j.taskName)),
    );
  }
  // Units in an order where every unit comes after those it waits for.
  const ordered: BatchUnit[] = [];
  const placed = new Set<BatchUnit>();
  const place = (u: BatchUnit) => {
    if (placed.has(u)) return;
    placed.add(u);
    for (const a of u.after) place(a);
    ordered.push(u);
  };
  for (const u of units) place(u);
  return ordered;
}

/**
 * The `command.batch` text of a unit: `#SBATCH` header from its resources,
 * then this program on its jobs, the exit status written to `exit.status`.
 *
 * @param u the unit
 * @param argv the command to run
 * @param cwd working directory
 * @returns bash script text
 */
export function batchScript(u: BatchUnit, argv: string[], cwd: string): string {
  const r = u.resources;
  const h: string[] = [
    "#!/bin/bash",
    `#SBATCH --job-name=${shq(`scout-ai-${u.jobs.at(-1)!.taskName}-${u.jobs.at(-1)!.name}`)}`,
    `#SBATCH --output=${shq(join(u.dir, "std.out"))}`,
    `#SBATCH --error=${shq(join(u.dir, "std.err"))}`,
    `#SBATCH --chdir=${shq(cwd)}`,
    `#SBATCH --cpus-per-task=${r.cpus ?? 1}`,
  ];
  const opt = (flag: string, v: string | number | undefined) => {
    if (v !== undefined && v !== "") h.push(`#SBATCH --${flag}=${shq(String(v))}`);
  };
  opt("time", r.time);
  opt("mem", r.mem);
  opt("mem-per-cpu", r.mem_per_cpu);
  opt("partition", r.partition);
  opt("account", r.account);
  opt("qos", r.qos);
  opt("gres", r.gres);
  opt("constraint", r.constraints);
  opt("nodes", r.nodes);
  if (r.exclusive) h.push("#SBATCH --exclusive");
  return [
    ...h,
    "",
    `# scout-ai batch job: ${u.jobs.map((j) => j.shortPath).join(", ")}`,
    "# The job store must be on a file system this node sees.",
    `cd ${shq(cwd)} || exit 1`,
    argv.map(shq).join(" "),
    "status=$?",
    `echo "$status" > ${shq(join(u.dir, "exit.status"))}`,
    'exit "$status"',
    "",
  ].join("\n");
}

function readId(dir: string): string | undefined {
  try {
    return readFileSync(join(dir, "job.id"), "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}

async function sbatch(args: string[], env?: Record<string, string | undefined>): Promise<string> {
  try {
    const { stdout } = await run("sbatch", args, { env: env as NodeJS.ProcessEnv });
    return stdout.trim().split(";")[0]!;
  } catch (e) {
    const err = e as { stderr?: string; code?: unknown; message?: string };
    if (err.code === "ENOENT") {
      throw new ScoutError("batch_system", "sbatch is not installed (SLURM client tools)");
    }
    throw new ScoutError(
      "batch_system",
      `sbatch failed: ${(err.stderr ?? err.message ?? "").trim().split("\n")[0]}`,
    );
  }
}

/**
 * Writes the batch directories of the pending jobs of `top`'s graph and
 * submits them in dependency order. A unit whose `job.id` names a live SLURM
 * job is not submitted again.
 *
 * @param top the top job
 * @param opts rules, batch base, command, dry run
 * @returns the units and the sbatch commands
 * @throws ScoutError `batch_system` when sbatch fails
 */
export async function deploySlurm(top: Job, opts: SlurmDeployOptions): Promise<SlurmDeployReport> {
  const units = batchUnits(top, opts.rules ?? NO_RULES, opts.batchBase);
  const live = opts.dryRun ? new Map() : await slurmStates(
    units.map((u) => readId(u.dir)).filter((x): x is string => x !== undefined),
    opts.env,
  );
  const lines: string[] = ["#!/bin/bash", "set -e"];
  const varOf = new Map<BatchUnit, string>();
  for (const [i, u] of units.entries()) {
    mkdirSync(u.dir, { recursive: true });
    const old = readId(u.dir);
    const oldState = old !== undefined ? live.get(old)?.state : undefined;
    const deps = u.after.map((a) => a.slurmId).filter((x): x is string => x !== undefined);
    const v = `id${i + 1}`;
    varOf.set(u, v);
    const depArg = u.after.length > 0
      ? [
        "--dependency=afterok:" + u.after.map((a) => "$" + varOf.get(a)).join(":"),
        "--kill-on-invalid-dep=yes",
      ]
      : [];
    lines.push(
      `${v}=$(sbatch --parsable ${depArg.join(" ")}${depArg.length ? " " : ""}${
        shq(join(u.dir, "command.batch"))
      })`,
    );
    if (old !== undefined && oldState !== undefined && !FINAL_STATES.has(oldState)) {
      u.slurmId = old;
      u.status = "queued";
      continue;
    }
    const script = batchScript(u, opts.command(u.jobs), opts.cwd);
    writeFileAtomicSync(join(u.dir, "command.batch"), script);
    writeFileSync(join(u.dir, "jobs.list"), u.jobs.map((j) => j.path).join("\n") + "\n");
    writeFileSync(join(u.dir, "dependencies.list"), deps.join("\n") + (deps.length ? "\n" : ""));
    if (opts.dryRun) {
      u.status = "dry-run";
      continue;
    }
    for (const f of ["exit.status", "std.out", "std.err"]) {
      if (existsSync(join(u.dir, f))) writeFileSync(join(u.dir, f), "");
    }
    const args = ["--parsable"];
    if (deps.length > 0) {
      args.push(`--dependency=afterok:${deps.join(":")}`, "--kill-on-invalid-dep=yes");
    }
    args.push(join(u.dir, "command.batch"));
    u.slurmId = await sbatch(args, opts.env);
    u.status = "submitted";
    writeFileAtomicSync(join(u.dir, "job.id"), u.slurmId + "\n");
  }
  const topUnit = units.find((u) => u.jobs.some((j) => j.path === top.path));
  return { units, ...(topUnit ? { top: topUnit } : {}), script: lines.join("\n") + "\n" };
}
