/**
 * Which job a task-route ask runs as (`task_route.ts`; [TS-FIX] notes in
 * docs/spec-notes/agents-core.md): the `ask` job of its inputs, named after
 * the tools it was given; a `rerun-<n>` of it when an earlier run's job must
 * be kept (uncached asks, failed jobs whose logs hold what they paid for); and
 * never a job another ask of this process is running.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { parse } from "../chat/parse.ts";
import { canonicalJson } from "../llm/cache_key.ts";
import type { KeyAlias } from "../llm/key_aliases.ts";
import { providerDefinitions } from "../tools/registry.ts";
import type { ToolRegistry } from "../tools/types.ts";
import { md5hex } from "../util/hash.ts";
import { isDone } from "../workflow/context.ts";
import { dependenciesDepthFirst } from "../workflow/dep_walk.ts";
import { readJobInfoSync } from "../workflow/info.ts";
import type { Job } from "../workflow/job_types.ts";
import { isRecoverableError, jobPresent } from "../workflow/state.ts";
import { jobLogChatsSync } from "../workflow/files.ts";
import { filesDir } from "../workflow/store.ts";
import { isBoundTool } from "./bound_tools.ts";
import { metaEvidence } from "./failed_attempt.ts";

/**
 * The job of a task-route ask's inputs for its n-th run (n ≥ 1,
 * {@link runName}); `named`: its dependencies take its name too (else they
 * are those of the first run, shared).
 */
export type MakeJob = (n: number, named: boolean) => Job;

/**
 * The job name of the n-th run of an ask's inputs: the first takes `base`
 * (none: the default name), later ones `rerun-<n>` after it.
 *
 * @param base the first run's name, if not the default
 * @param n the run (1 for the first)
 * @returns the name, or undefined for the default
 */
export function runName(base: string | undefined, n: number): string | undefined {
  if (n === 1) return base;
  return base === undefined ? `rerun-${n}` : `${base}-rerun-${n}`;
}

/**
 * The job name of an ask given tools (the call's, the agent's `tools`
 * option): `tools-<digest of their definitions>`, none without them. Handlers
 * reach the job's agent in memory, not through its chat, so the chat alone
 * would give two asks with different tools one job (the later one answered
 * with tools it never had, or, run at once, with the other's tool outputs);
 * in Ruby they went into the chat as `sticky_option` lines. Definitions (what
 * the model sees) decide, as in the inference cache's keys. Agent-bound
 * tools (`socialize`'s `ask`, `delegate` hand-offs) do not: the agent's own
 * `agent.ts` registers them again in the job (the example Planner's
 * `hand_off_to_Critic`).
 *
 * @param tools the tools the ask was given
 * @returns the name, or undefined
 */
export function toolsName(tools: ToolRegistry): string | undefined {
  const own = new Map([...tools].filter(([, entry]) => !isBoundTool(entry)));
  if (own.size === 0) return undefined;
  const defs = providerDefinitions(own).map((d) => canonicalJson(d)).sort();
  return `tools-${md5hex(defs.join("\n")).slice(0, 12)}`;
}

/**
 * Job paths the asks of this process run and have not finished (how many
 * asks each): nothing of such a job may be on disk yet, so an uncached ask
 * must not pick one (it would share its run: one answer, one request).
 */
const running = new Map<string, number>();

export function hold(path: string): () => void {
  running.set(path, (running.get(path) ?? 0) + 1);
  return () => {
    const left = running.get(path)! - 1;
    if (left > 0) running.set(path, left);
    else running.delete(path);
  };
}

/**
 * The job an uncached ask runs as (`--no-cache`, `SCOUT_NO_ASK_CACHE=true`):
 * the job of its inputs when no earlier run left anything of it, else the
 * first free `rerun-<n>` job (n ≥ 2) of the same inputs. Ruby cleans the job
 * and reruns it in place; but the chats saved by earlier runs hold
 * `meta job=` receipts naming that job, whose logs are the evidence of their
 * tokens (`provenance.md`), so a rerun must not replace them ([TS-FIX]).
 * Nor one that another ask of this process is running ({@link running}), nor
 * one whose dependencies would rerun a failed job's evidence in place.
 *
 * @param make builds the job of the n-th run of these inputs
 * @param env the environment (which errors are recoverable)
 * @returns a job nothing is on disk for yet
 */
export function uncachedJob(make: MakeJob, env: Env): Job {
  return firstRun(make, env, (job) => !jobPresent(job.path) && !running.has(job.path));
}

/**
 * The job a cached ask runs as: the first of its inputs' jobs (the default,
 * then `rerun-<n>`) that is done, or that an earlier run did not leave failed
 * with evidence. A job in error (or aborted) whose logs hold what it paid for
 * ({@link holdsEvidence}), or with such a dependency, is kept, not rerun in
 * place as Ruby does: the failed run's `meta job=` marker names those logs
 * ([TS-FIX], as {@link uncachedJob}). Any other job — absent, running, failed
 * before paying for anything (rerun in place, or reported, as Ruby does) — is
 * the one to produce.
 *
 * @param make builds the job of the n-th run of these inputs
 * @param env the environment (which errors are recoverable)
 * @returns the job
 */
export function cachedJob(make: MakeJob, env: Env): Job {
  return firstRun(make, env, (job) => isDone(job) || !failedWithEvidence(job, null));
}

type Env = Record<string, string | undefined>;

/**
 * The inference cache's key aliases of a cached ask that runs as a rerun
 * (`rerun-<n>`, kept failure): its path and files dir — and those of its
 * dependencies renamed after it — keyed as the first run's, so the rounds the
 * failed run paid for replay (`llm/key_aliases.ts`, [TS-FIX] notes). None for
 * the first run's job itself.
 *
 * @param job the job the ask runs as
 * @param make builds the job of the n-th run of its inputs
 * @returns the aliases (empty for the first run)
 */
export function rerunKeyAliases(job: Job, make: MakeJob): KeyAlias[] {
  const out: KeyAlias[] = [];
  const pair = (rerun: Job, first: Job) => {
    if (rerun.path === first.path) return;
    out.push({ from: filesDir(rerun.path), to: filesDir(first.path) });
    out.push({ from: rerun.path, to: first.path });
    // a dependency renamed after the rerun: by position, as both were made from one task
    rerun.deps.forEach((dep, i) => first.deps[i] && pair(dep, first.deps[i]!));
  };
  pair(job, make(1, false));
  return out;
}

/**
 * The first run's job that `fits` and would produce no dependency's kept
 * failure again in place ({@link keptDependencies}): for n ≥ 2 first with the
 * first run's dependencies, then with its own (named after it). A failure no
 * name reaches (a dependency with a fixed job name, one that blocks every
 * rename) is produced again, as Ruby would; the others are renamed.
 */
function firstRun(make: MakeJob, env: Env, fits: (job: Job) => boolean): Job {
  const stuck = new Set<string>(); // kept failures no rename reaches
  const seen = new Set<string>(); // kept failures that blocked an own-named candidate
  for (let n = 1; n <= MAX_RUNS; n++) {
    const shared = make(n, false);
    if (!fits(shared)) continue;
    if (isDone(shared)) return shared;
    const kept = keptDependencies(shared, env);
    if (kept.size === 0) return shared;
    if (n === 1) continue; // the first run's name does not reach its dependencies
    const own = make(n, true);
    const blocked = isDone(own) ? new Set<string>() : keptDependencies(own, env);
    const sharedDeps = allDeps(shared);
    for (const path of blocked) {
      if (sharedDeps.has(path) || seen.has(path)) stuck.add(path);
      seen.add(path);
    }
    if ([...blocked].every((path) => stuck.has(path)) && fits(own)) {
      // the one that runs fewer failed jobs again in place
      const fewer = kept.size < blocked.size && [...kept].every((path) => blocked.has(path));
      return fewer ? shared : own;
    }
  }
  for (let n = 1;; n++) { // not reached: the first candidate that fits, as Ruby would take
    const job = make(n, false);
    if (fits(job)) return job;
  }
}

/** More runs of one ask's inputs than anyone keeps (a guard, never a limit in use). */
const MAX_RUNS = 1000;

/** The paths of a job's dependencies, at any depth. */
function allDeps(job: Job): Set<string> {
  return new Set(dependenciesDepthFirst(job.deps).map((dep) => dep.path));
}

/**
 * Whether a job failed (error, aborted; with `env`, only as a run produces
 * again in place: aborted or a recoverable error, workflow.md §4) and its logs
 * hold evidence ({@link holdsEvidence}).
 */
function failedWithEvidence(job: Job, env: Env | null): boolean {
  if (isDone(job) || !jobPresent(job.path)) return false;
  const { info } = readJobInfoSync(job.path);
  const failed = info?.status === "aborted" ||
    (info?.status === "error" && (env === null || isRecoverableError(info, env)));
  return failed && holdsEvidence(job);
}

/**
 * The paths of the dependencies of `job` (at any depth, not done) that
 * producing `job` would run again in place over the evidence of their
 * failure. One that failed for good is reported instead (§4: raised, or
 * skipped when `canfail`), not run again.
 */
function keptDependencies(job: Job, env: Env): Set<string> {
  const pending = dependenciesDepthFirst(job.deps, (dep) => !isDone(dep));
  return new Set(pending.filter((dep) => failedWithEvidence(dep, env)).map((dep) => dep.path));
}

/**
 * Whether a job's logs hold evidence of what its run paid for: a meta record
 * of an inference (its `inference_id`) or of a job it ran (`job=`) that its
 * input chat does not hold — the logs start from the input (earlier turns'
 * receipts), a start chat or an import may repeat its records, a body may
 * drop some: records are compared, not counted.
 */
function holdsEvidence(job: Job): boolean {
  const paid = (text: string) => parse(text).flatMap(metaEvidence);
  const given = new Set(paid(String(job.inputs.chat ?? "")));
  return jobLogChatsSync(job.path).some((path) => {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      return false;
    }
    return paid(text).some((id) => !given.has(id));
  });
}
