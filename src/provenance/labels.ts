/**
 * Node labels of the `prov` report (`provenance.md` §10.2): a job's
 * `<workflow>/<task> <shortId>`, a society log's `<Agent> · <conversation>`,
 * another log's path below its job's `log/` directory, other chats relative to
 * the root's directory; shortened in the middle when long.
 *
 * @module
 */
import { basename, relative } from "node:path";
import { sha256hex } from "../util/hash.ts";
import { wellFormed } from "../util/code_points.ts";
import type { JobInfo, JobSummary } from "./types.ts";
import { finalStatus } from "../workflow/state.ts";

/**
 * The prefixes a job's name has before its digest that are no name a user
 * gave: Ruby's `Default_`, and the port's own names of an agent's asks
 * (`src/agent/ask_jobs.ts`): `tools-<12 hex>_`, `tools-<12 hex>-rerun-<n>_`
 * and `rerun-<n>_`, each only before a hex digest.
 */
const NAME_PREFIX = /^(?:Default_|(?:tools-[0-9a-f]{12}(?:-rerun-\d+)?|rerun-\d+)_(?=[0-9a-f]{8}))/;

/**
 * The short id of a job: its basename without a leading `Default_`, first 8
 * characters (`provenance.md` §10.3, as Ruby's; two jobs of one `--jobname`
 * share it, and the flat views and `--by job` tell them apart by path). The
 * port's names of an agent's ask jobs (`tools-<12 hex>_`, `[tools-…-]rerun-<n>_`)
 * are dropped as `Default_` is, so the short id is the digest's first 8 (R87-1:
 * every chat-task job of an agent with tools read `tools-d9`).
 *
 * @param path job path
 * @returns the short id
 */
export function jobShortId(path: string): string {
  // eight characters, not UTF-16 units: a name of emoji keeps whole ones (R150-1)
  return [...basename(path).replace(NAME_PREFIX, "")].slice(0, 8).join("");
}

/**
 * The first 8 hex digits of the sha256 of a canonical path: what tells apart
 * nodes whose labels repeat (the flat views, `--by job`), and a chat's id in
 * the flow.
 *
 * @param path canonical path
 * @returns 8 hex digits
 */
export function pathDigest(path: string): string {
  return sha256hex(path).slice(0, 8);
}

/** A non-empty string of the `.info`, well-formed (R99-2), else null. */
function str(v: unknown): string | null {
  return typeof v === "string" && v !== "" ? wellFormed(v) : null;
}

/**
 * The workflow facts of a job node, from its `.info`.
 *
 * @param path job path
 * @param info its info (null when missing or unreadable)
 * @param status the status to show (`ReportOptions.jobStatus`), else the info's
 * @returns the summary
 */
export function jobSummary(
  path: string,
  info: JobInfo | null,
  status?: (path: string, info: JobInfo | null) => string | null,
): JobSummary {
  const attempt = attemptNumber(path);
  const summary: JobSummary = {
    workflow: str(info?.workflow),
    task: str(info?.task_name),
    type: str(info?.type),
    status: attempt !== null
      ? attemptStatus(info)
      : str(status === undefined ? info?.status : status(path, info)),
    shortId: jobShortId(path),
  };
  if (attempt !== null) summary.attempt = attempt;
  return summary;
}

/**
 * The status of an earlier attempt: it has ended, whatever its info says — a
 * run set aside in progress (it died: `attempts.ts`) is `stale`, never judged
 * by its pid, which another process may have now (R130-2: it showed `start`).
 */
function attemptStatus(info: JobInfo | null): string | null {
  const s = str(info?.status);
  return s === null || finalStatus(s) ? s : "stale";
}

/** An earlier attempt's path: `<job>.files/.attempts/<n>` (`src/workflow/attempts.ts`). */
const ATTEMPT_PATH = /\.files\/\.attempts\/(\d+)$/;

/**
 * The number of an earlier attempt of a job, set aside when the job was run
 * again in place (R109-3), from its path.
 *
 * @param path a job node's path
 * @returns `<n>` of `<job>.files/.attempts/<n>`, else null
 */
export function attemptNumber(path: string): number | null {
  const m = ATTEMPT_PATH.exec(path);
  return m === null ? null : Number(m[1]);
}

/**
 * The default label of a job: `<workflow>/<task> <shortId>` when its info
 * names both, else the short id; an earlier attempt of a job (R109-3):
 * `attempt <n> (<status>)`.
 *
 * @param job workflow facts
 * @returns the label
 */
export function jobLabel(job: JobSummary): string {
  if (job.attempt !== undefined) {
    return `attempt ${job.attempt}${job.status === null ? "" : ` (${job.status})`}`;
  }
  return job.workflow !== null && job.task !== null
    ? `${job.workflow}/${job.task} ${job.shortId}`
    : job.shortId;
}

/** The run number in the port's name of an ask job's rerun ({@link NAME_PREFIX}). */
const RERUN = /^(?:tools-[0-9a-f]{12}-)?rerun-(\d+)_(?=[0-9a-f]{8})/;

/**
 * The run a job's name says it is: `<n>` of the port's `rerun-<n>_<digest>`
 * and `tools-<12 hex>-rerun-<n>_<digest>` (`src/agent/ask_jobs.ts`), else
 * null (a first run, a user's `--jobname`).
 *
 * @param path job path
 * @returns the run number, or null
 */
export function jobRerun(path: string): number | null {
  const m = RERUN.exec(basename(path));
  return m === null ? null : Number(m[1]);
}

/**
 * The reruns the views mark (R111-3): a job named as a rerun
 * ({@link jobRerun}) whose label another job of the report shares — the
 * failed run it was made for, another rerun — else the two read alike in
 * every view ({@link jobShortId} drops the rerun prefix, R87-1). A rerun
 * with no such sibling is not marked, so its label stays as it was.
 *
 * @param jobs the job summaries by node (null for chats)
 * @param paths the node paths
 * @returns run numbers by node index (only the marked jobs)
 */
export function rerunMarks(
  jobs: readonly (JobSummary | null)[],
  paths: readonly string[],
): Map<number, number> {
  const reruns = new Map<number, number>();
  jobs.forEach((job, i) => {
    const n = job === null ? null : jobRerun(paths[i]!);
    if (n !== null) reruns.set(i, n);
  });
  if (reruns.size === 0) return reruns; // (most reports: no label is made)
  // how many jobs have each label a rerun has
  const count = new Map<string, number>();
  for (const i of reruns.keys()) count.set(jobLabel(jobs[i]!), 0);
  for (const job of jobs) {
    const label = job === null ? null : jobLabel(job);
    const n = label === null ? undefined : count.get(label);
    if (n !== undefined) count.set(label!, n + 1);
  }
  for (const i of reruns.keys()) if (count.get(jobLabel(jobs[i]!))! < 2) reruns.delete(i);
  return reruns;
}

/** `…/log/agent.chat` (also with doubled or trailing slashes, as `node:path` reads them). */
const AGENT_LOG = /(?:^|\/)log\/+agent\.chat\/*$/;

/**
 * Whether a chat is a job's top-level agent log: its basename is
 * `agent.chat` and its directory's is `log`. Tested without making the
 * basenames (one test per node of a big store's report).
 *
 * @param path a chat's path
 * @returns true for `…/log/agent.chat`
 */
export function isTopLevelAgentLog(path: string): boolean {
  return AGENT_LOG.test(path);
}

/** What a job's log chats' paths have after the job's. */
const LOG_DIR = ".files/log/";

/** The innermost `society/<Agent>/<conversation>.chat` of a log path (nested societies too). */
const SOCIETY_LOG = /(?:^|\/)society\/([^/]+)\/([^/]+)\.chat$/;

/**
 * The agent and conversation a society log belongs to: the innermost
 * `society/<Agent>/<conversation>.chat` of its path (`agents.md` §7.7).
 * The one reading of that layout for labels, tool calls and roll-ups.
 *
 * @param path a chat path
 * @returns agent and conversation, or null for another chat
 */
export function societyLog(path: string): { agent: string; conversation: string } | null {
  const m = SOCIETY_LOG.exec(path);
  return m === null ? null : { agent: m[1]!, conversation: m[2]! };
}

/**
 * A log's label ([DIVERGE] issue 14 item 4): a society log is named by its
 * agent and conversation (`Critic · default`, the innermost of nested
 * societies); another log by its path below the owning job's `log/`
 * directory; a chat outside any job by its path relative to the root's
 * directory.
 *
 * @param path canonical path of the log
 * @param ownerPath path of the job whose log it is, or null
 * @param rootDir directory of the root node (for chats outside jobs)
 * @returns the label
 */
export function logLabel(path: string, ownerPath: string | null, rootDir?: string): string {
  const society = societyLog(path);
  if (society) return `${society.agent} · ${society.conversation}`;
  // (no `ownerPath + ".files/log/"` string: one per node of a big store, read once)
  if (
    ownerPath !== null && path.startsWith(ownerPath) && path.startsWith(LOG_DIR, ownerPath.length)
  ) return path.slice(ownerPath.length + LOG_DIR.length);
  return rootDir === undefined ? path : relative(rootDir, path);
}

/** An open file descriptor's path: `/dev/fd/N`, or what it resolves to (`/proc/<pid>/fd/N`). */
const FD_PATH = /^\/(?:dev|proc\/(?:self|thread-self|\d+)(?:\/task\/\d+)?)\/fd\/(\d+)$/;

/**
 * The root chat's label: its file name; a pipe given as `<(…)` — a file
 * descriptor's path, `/dev/fd/63`, which the canonical path makes
 * `/proc/<pid>/fd/63` — is labelled `/dev/fd/63` as the shell named it,
 * not `63` (R94-10).
 *
 * @param path canonical path of the root chat
 * @returns the label
 */
export function rootChatLabel(path: string): string {
  const fd = FD_PATH.exec(path);
  return fd === null ? basename(path) : `/dev/fd/${fd[1]}`;
}

/** Labels longer than this are shortened in the middle by {@link middleShorten}. */
export const LABEL_MAX = 60;

/**
 * Shortens a label in the middle (`head…tail`), keeping its end — the file
 * name, the short id — whole; labels up to `max` characters are unchanged.
 *
 * @param label the label
 * @param max the longest label kept whole
 * @returns the label, at most `max` characters
 */
export function middleShorten(label: string, max = LABEL_MAX): string {
  // a label is often a rope or a substring of its path: `length` (UTF-16 units,
  // never fewer than its characters) answers most calls without reading it
  if (label.length <= max) return label;
  const chars = [...label];
  if (chars.length <= max) return label;
  const tail = Math.ceil((max - 1) / 2);
  const head = max - 1 - tail;
  return chars.slice(0, head).join("") + "…" + chars.slice(chars.length - tail).join("");
}
