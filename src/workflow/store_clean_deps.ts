/**
 * The dependency graph a store clean respects (`store_clean.ts`): a job that
 * stays keeps every job it depends on — its `.info`'s `dependencies` (also
 * relocated ones, by their last three components) and the jobs given as its
 * inputs — at any depth; the jobs removed go dependents first, so a job
 * that turns out to be in use at its turn still finds its dependencies.
 *
 * @module
 */
import { realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { infoDependencies } from "./info.ts";
import { shortPath } from "./store.ts";
import type { StoreJob } from "./store_scan.ts";

/** A job to remove, with the status it goes for. */
export interface CleanTarget {
  /** The job. */
  job: StoreJob;
  /** `done`, `error`, `aborted`, `unsync`, `noinfo`, `stale`, `ended` or `cleaned`. */
  status: string;
}

/** A job of the workflows cleaned that stays although its status or age alone would not keep it. */
export interface KeptJob {
  /** The job. */
  job: StoreJob;
  /** Its status. */
  status: string;
  /** Why it stays. */
  reason: string;
}

/** Finds the store's job a dependency entry names. */
export interface JobIndex {
  /**
   * The job at a path (any spelling of it: through a symbolic link it is
   * the job at the real path), or one relocated there (same last three
   * components; its own root first).
   */
  (ref: string, from: StoreJob): StoreJob | undefined;
}

/** The real path of a job path: its directory resolved (the job itself may be gone); null when that fails. */
function realJobPath(path: string): string | null {
  try {
    return join(realpathSync(dirname(path)), basename(path));
  } catch {
    return null;
  }
}

/**
 * An index of the store's jobs by every spelling, by real path and by short
 * path.
 *
 * @param jobs every job of the store
 * @returns the lookup
 */
export function jobIndex(jobs: readonly StoreJob[]): JobIndex {
  const byPath = new Map<string, StoreJob>();
  const byShort = new Map<string, StoreJob[]>();
  const real = new Map<string, string | null>();
  for (const j of jobs) {
    for (const p of j.spellings) byPath.set(p, j);
    const same = byShort.get(j.shortPath);
    if (same) same.push(j);
    else byShort.set(j.shortPath, [j]);
  }
  return (ref, from) => {
    const exact = byPath.get(ref);
    if (exact !== undefined) return exact;
    if (ref.startsWith("/")) {
      if (!real.has(ref)) real.set(ref, realJobPath(ref));
      const resolved = byPath.get(real.get(ref) ?? "");
      if (resolved !== undefined) return resolved;
    }
    const same = byShort.get(shortPath(ref));
    if (same === undefined || ref.split("/").filter((p) => p !== "").length < 3) return undefined;
    return same.find((j) => j.root === from.root) ?? same[0];
  };
}

/**
 * The jobs a job depends on, among the store's: its info's dependencies,
 * and the input values that are a job's path.
 *
 * @param job the job
 * @param find the store's index
 * @returns its direct dependencies found in the store
 */
export function dependenciesOf(job: StoreJob, find: JobIndex): StoreJob[] {
  const out: StoreJob[] = [];
  for (const ref of infoDependencies(job.info)) {
    const d = find(ref, job);
    if (d !== undefined && d !== job) out.push(d);
  }
  const inputs = job.info?.inputs;
  if (Array.isArray(inputs)) {
    for (const v of inputs) {
      if (typeof v !== "string" || !v.startsWith("/")) continue;
      const d = find(v, job);
      if (d !== undefined && d !== job && d.path === v) out.push(d);
    }
  }
  return out;
}

/**
 * Takes out of `going` every job a job that stays depends on, at any depth,
 * and says why each stays.
 *
 * @param jobs every job of the store
 * @param going path → target, the jobs judged to go (changed in place)
 * @returns the jobs kept as dependencies
 */
export function keepDependencies(
  jobs: readonly StoreJob[],
  going: Map<string, CleanTarget>,
): KeptJob[] {
  const find = jobIndex(jobs);
  const kept: KeptJob[] = [];
  const queue = jobs.filter((j) => !going.has(j.path));
  for (let i = 0; i < queue.length; i++) {
    const parent = queue[i]!;
    for (const d of dependenciesOf(parent, find)) {
      const target = going.get(d.path);
      if (target === undefined) continue;
      going.delete(d.path);
      kept.push({
        job: d,
        status: target.status,
        reason: `a dependency of ${parent.shortPath}, which stays`,
      });
      queue.push(d);
    }
  }
  return kept;
}

/**
 * The jobs to remove in an order where a job comes before the jobs it
 * depends on (Kahn's order over the jobs going; by path among equals).
 * Jobs whose dependencies cannot be known (an unreadable `.info`), and the
 * jobs that depend on them, come first: any job could be a dependency of
 * theirs, so none goes before them (R123-2).
 *
 * @param jobs every job of the store
 * @param going path → target
 * @returns the targets, dependents first
 */
export function removalOrder(
  jobs: readonly StoreJob[],
  going: ReadonlyMap<string, CleanTarget>,
): CleanTarget[] {
  const find = jobIndex(jobs);
  const deps = new Map<string, string[]>();
  for (const [path, t] of going) {
    deps.set(path, dependenciesOf(t.job, find).map((d) => d.path).filter((p) => going.has(p)));
  }
  // the unreadable ones and their dependents, at any depth
  const first = new Set([...going].filter(([, t]) => t.job.problem !== null).map(([p]) => p));
  for (let grew = true; grew;) {
    grew = false;
    for (const [path, ds] of deps) {
      if (first.has(path) || !ds.some((d) => first.has(d))) continue;
      first.add(path);
      grew = true;
    }
  }
  const part = (inFirst: boolean) => [...going.keys()].filter((p) => first.has(p) === inFirst);
  return [...kahn(part(true), deps), ...kahn(part(false), deps)].map((p) => going.get(p)!);
}

/** Kahn's order of some paths by their dependencies among them (by path among equals; a cycle last). */
function kahn(paths: readonly string[], deps: ReadonlyMap<string, string[]>): string[] {
  const among = new Set(paths);
  const parents = new Map<string, number>(paths.map((p) => [p, 0]));
  for (const p of paths) {
    for (const d of deps.get(p) ?? []) if (among.has(d)) parents.set(d, parents.get(d)! + 1);
  }
  const ready = paths.filter((p) => parents.get(p) === 0).sort();
  const placed = new Set<string>();
  for (let i = 0; i < ready.length; i++) {
    const path = ready[i]!;
    placed.add(path);
    for (const d of deps.get(path) ?? []) {
      if (!among.has(d)) continue;
      const n = parents.get(d)! - 1;
      parents.set(d, n);
      if (n === 0) ready.push(d);
    }
  }
  // a cycle (none is made by a run): its jobs last, by path
  return [...ready, ...[...paths].sort().filter((p) => !placed.has(p))];
}

/**
 * The dependencies of `job` at any depth (to keep once the job itself turns
 * out to stay at its turn).
 *
 * @param job the job that stays
 * @param find the store's index
 * @returns paths of its recursive dependencies
 */
export function recursiveDependencies(job: StoreJob, find: JobIndex): Set<string> {
  const seen = new Set<string>();
  const stack = [job];
  while (stack.length > 0) {
    for (const d of dependenciesOf(stack.pop()!, find)) {
      if (seen.has(d.path)) continue;
      seen.add(d.path);
      stack.push(d);
    }
  }
  return seen;
}

/**
 * Why a done job stays next to a job whose dependencies are unknown.
 *
 * @param blind the job whose `.info` cannot be read
 * @returns the reason
 */
export function mayBeDependencyOf(blind: StoreJob): string {
  return `may be a dependency of ${blind.shortPath}, whose .info cannot be read`;
}

/**
 * The warning of a job that stays whose dependencies are unknown.
 *
 * @param blind the job
 * @param why why it stays
 * @param n how many done jobs stay for it
 * @returns one line
 */
export function unknownDependenciesWarning(blind: StoreJob, why: string, n: number): string {
  return `Cannot tell which jobs ${blind.shortPath} depends on: ${blind.problem}; it stays ` +
    `(${why}), and so ${n === 1 ? "does the done job" : `do the ${n} done jobs`} that would ` +
    "have gone: any could be one of its dependencies. Jobs that never finished still go";
}
