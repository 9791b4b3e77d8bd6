/**
 * A job graph's pending jobs grouped into batch units (`--deploy slurm`):
 * one per job, or per chain of jobs the rules run together, each with its
 * own batch directory.
 *
 * @module
 */
import { join } from "node:path";
import { md5hex } from "../../util/hash.ts";
import { NAME_MAX } from "../../util/name_bytes.ts";
import type { Job } from "../job_types.ts";
import { directDeps, pendingJobs } from "./graph.ts";
import { chainOf, combineResources, type DeployRules, taskResources } from "./rules.ts";
import type { BatchUnit } from "./slurm_types.ts";

function safe(s: string): string {
  return s.replace(/[^A-Za-z0-9_.-]/g, "_");
}

/**
 * A job's batch directory name: `SLURM_scout_job-<Workflow>-<task>-<name>-`
 * and 8 hex digits of the MD5 of its absolute path, so jobs whose names only
 * differ in characters a file name cannot keep, or the same job in two job
 * stores, never share one; the name is cut so the whole fits in 255 bytes.
 *
 * @param j the job the unit is named after
 * @returns the directory name
 */
export function batchDirName(j: Job): string {
  const digest = md5hex(j.path).slice(0, 8);
  const head = `SLURM_scout_job-${safe(j.workflowName)}-${safe(j.taskName)}-`;
  // a file name holds 255 bytes (all ASCII here): the job's name gives way,
  // the digest keeps the directory the job's own
  const name = safe(j.name).slice(0, Math.max(0, NAME_MAX - head.length - digest.length - 1));
  return `${head}${name}-${digest}`;
}

/**
 * The name an older scout-ai (before R79-1) gave a job's batch directory:
 * {@link batchDirName} without the digest. A batch job it queued is still
 * found there after an upgrade, so it is not submitted twice (R84-2).
 *
 * @param j the job the unit is named after
 * @returns the digest-free directory name
 */
export function legacyBatchDirName(j: Job): string {
  return `SLURM_scout_job-${safe(j.workflowName)}-${safe(j.taskName)}-${safe(j.name)}`;
}

/** Units in an order where every unit comes after those it waits for. */
function dependencyOrder(units: BatchUnit[]): BatchUnit[] {
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

/** What {@link batchUnits} is told besides the graph. */
export interface UnitsOptions {
  /** Paths of jobs to count as not done (a dry run's `--clean`/`--recompute`). */
  redo?: ReadonlySet<string>;
  /**
   * Jobs already queued in a SLURM job that may still run (path → SLURM
   * id, `slurm_queued.ts`): one unit per SLURM job, status `queued`.
   */
  queued?: ReadonlyMap<string, string>;
}

/** A new unit for `j`, named after it. */
function unitFor(j: Job, base: string): BatchUnit {
  const name = batchDirName(j);
  return {
    name,
    dir: join(base, name),
    legacyDir: join(base, legacyBatchDirName(j)),
    jobs: [j],
    after: [],
    resources: {},
  };
}

/**
 * Groups pending jobs into batch units: a job whose task is in a chain joins
 * its only pending dependent when that one is in the same chain. The jobs
 * already queued (`opts.queued`) make one unit per SLURM job, which no other
 * job joins, with that id and status `queued`.
 *
 * @param top the top job
 * @param rules the rules
 * @param base batch base directory
 * @param opts jobs counted as not done, jobs already queued
 * @returns units in dependency order
 */
export function batchUnits(
  top: Job,
  rules: DeployRules,
  base: string,
  opts: UnitsOptions = {},
): BatchUnit[] {
  const pending = pendingJobs(top, opts.redo);
  const queued = opts.queued ?? new Map<string, string>();
  const byPath = new Map(pending.map((j) => [j.path, j]));
  const dependents = new Map<string, Job[]>();
  for (const j of pending) {
    for (const d of directDeps(j)) {
      if (byPath.has(d.path)) dependents.set(d.path, [...(dependents.get(d.path) ?? []), j]);
    }
  }
  const unitOf = new Map<string, BatchUnit>();
  const bySlurmId = new Map<string, BatchUnit>();
  // Top-down (dependents before dependencies) so a job can join its dependent's unit.
  for (const j of [...pending].reverse()) {
    const id = queued.get(j.path);
    if (id !== undefined) {
      const u = bySlurmId.get(id);
      if (u !== undefined) u.jobs.unshift(j);
      else {bySlurmId.set(id, {
          ...unitFor(j, base),
          slurmId: id,
          status: "queued",
          queuedByInfo: true,
        });}
      unitOf.set(j.path, bySlurmId.get(id)!);
      continue;
    }
    const ds = dependents.get(j.path) ?? [];
    const chain = chainOf(rules, j.workflowName, j.taskName);
    const parent = ds.length === 1 ? ds[0]! : undefined;
    if (
      chain !== undefined && parent !== undefined && !queued.has(parent.path) &&
      chainOf(rules, parent.workflowName, parent.taskName) === chain
    ) {
      const u = unitOf.get(parent.path)!;
      u.jobs.unshift(j);
      unitOf.set(j.path, u);
      continue;
    }
    unitOf.set(j.path, unitFor(j, base));
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
  return dependencyOrder(units);
}
