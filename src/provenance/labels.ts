/**
 * Node labels of the `prov` report (`provenance.md` §10.2): a job's
 * `<workflow>/<task> <shortId>`, a log's path below its job's `log/`
 * directory, prefixed by the agent a society log belongs to.
 *
 * @module
 */
import { basename } from "node:path";
import type { JobInfo } from "./types.ts";
import type { JobSummary } from "./report_types.ts";

/**
 * The short id of a job: its basename without a leading `Default_`, first 8 characters.
 *
 * @param path job path
 * @returns the short id
 */
export function jobShortId(path: string): string {
  return basename(path).replace(/^Default_/, "").slice(0, 8);
}

function str(v: unknown): string | null {
  return typeof v === "string" && v !== "" ? v : null;
}

/**
 * The workflow facts of a job node, from its `.info`.
 *
 * @param path job path
 * @param info its info (null when missing or unreadable)
 * @returns the summary
 */
export function jobSummary(path: string, info: JobInfo | null): JobSummary {
  return {
    workflow: str(info?.workflow),
    task: str(info?.task_name),
    type: str(info?.type),
    status: str(info?.status),
    shortId: jobShortId(path),
  };
}

/**
 * The default label of a job: `<workflow>/<task> <shortId>` when its info
 * names both, else the short id.
 *
 * @param job workflow facts
 * @returns the label
 */
export function jobLabel(job: JobSummary): string {
  return job.workflow !== null && job.task !== null
    ? `${job.workflow}/${job.task} ${job.shortId}`
    : job.shortId;
}

/** The innermost `society/<Agent>/<conversation>.chat` of a log path (nested societies too). */
const SOCIETY_LOG = /(?:^|\/)society\/([^/]+)\/[^/]+\.chat$/;

/**
 * A log's label: its path below the owning job's `log/` directory, prefixed by the
 * agent it belongs to when it is a society log (`Critic (society/Critic/default.chat)`).
 *
 * @param path canonical path of the log
 * @param ownerPath path of the job whose log it is, or null
 * @returns the label
 */
export function logLabel(path: string, ownerPath: string | null): string {
  const prefix = ownerPath === null ? null : ownerPath + ".files/log/";
  const rel = prefix !== null && path.startsWith(prefix) ? path.slice(prefix.length) : path;
  const agent = SOCIETY_LOG.exec(rel)?.[1];
  return agent === undefined ? rel : `${agent} (${rel})`;
}

/**
 * Whether a label is a society log's (`Critic (society/Critic/default.chat)`):
 * the flow and DOT show it instead of the log's path, so the agent is named.
 *
 * @param label a node label
 * @returns true for an agent log's label
 */
export function isAgentLogLabel(label: string | null): boolean {
  return label !== null && /^[^ ]+ \((?:.*\/)?society\/[^/]+\/[^/]+\.chat\)$/.test(label);
}
