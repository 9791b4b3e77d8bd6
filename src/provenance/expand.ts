/**
 * Expanding one node of the traversal (`provenance.md` §2.3): a chat's
 * `job` markers and receipt jobs, a job's dependencies, logs and result.
 * Problems go to the walk's `report`; children to its `push`.
 *
 * @module
 */
import { isScoutError } from "../errors.ts";
import { receiptProblem } from "../chat/receipts.ts";
import type { ChatFacts } from "./chat_facts.ts";
import type { ChatReader } from "./facts_pool.ts";
import type { ChatRef, JobRef, NodeRef, Relation, TraversalRecord } from "./types.ts";
import { failure, provenanceError, receiptError } from "./errors.ts";
import { canonicalPath } from "./paths.ts";
import { attemptsDir, keptAttempts } from "../workflow/attempts.ts";
import {
  dependencyReference,
  directJobChatFiles,
  jobDependencies,
  jobResultChatFile,
} from "./jobs.ts";

/** A queued edge of the walk. */
export interface Pending {
  /** The child. */
  node: NodeRef;
  /** The parent, null for the root. */
  parent: NodeRef | null;
  /** The relation, null for the root. */
  relation: Relation | null;
  /** The receipt entry of an `agent_job` edge. */
  detail: TraversalRecord["detail"];
}

/** What expanding a node needs from the walk. */
export interface ExpandContext {
  /** Relations followed. */
  follow: Set<Relation>;
  /** Reads chats. */
  reader: ChatReader;
  /** Receives each chat's facts once. */
  onFacts?: (facts: ChatFacts) => void;
  /** Resolves a job reference (memoised per walk). */
  resolve: (ref: string | number) => JobRef | null;
  /** Whether a resolved job lies inside a job root (a chat's `job=` must). */
  insideRoots: (jobPath: string) => boolean;
  /** Reports a problem (throws when strict). */
  report: (error: ReturnType<typeof provenanceError>, node: NodeRef) => void;
  /** Queues a child of the node being expanded. */
  push: (node: NodeRef, relation: Relation, detail?: Pending["detail"]) => void;
}

/**
 * Expands a chat: reads its facts, then follows its `job` markers and receipt jobs.
 *
 * @param chat the chat
 * @param incoming the relation that reached it (null for the root)
 * @param c the walk's context
 */
export function expandChat(
  chat: ChatRef,
  incoming: Relation | null,
  c: ExpandContext,
): void {
  let facts: ChatFacts;
  try {
    facts = c.reader.read(chat.path);
  } catch (e) {
    // a bug, not the file; a UTF-16 chat is one the walk cannot read (R133-1)
    if (!(["not_found", "io", "chat_encoding"] as const).some((c) => isScoutError(e, c))) throw e;
    const cause = (e as { cause?: unknown }).cause ?? e; // the file system's error, or the why
    c.report(
      provenanceError(
        "chat_unreadable",
        `Cannot read chat "${chat.path}": ${failure(cause)} (chat_unreadable)`,
        { kind: "chat", nodePath: chat.path, relation: incoming, reference: chat.path, cause },
      ),
      chat,
    );
    return;
  }
  c.onFacts?.(facts);

  if (c.follow.has("job")) followJobMarkers(chat, facts, c);
  if (c.follow.has("agent_job")) followReceiptJobs(chat, facts, c);
}

/** `job` edges: each `meta job=` marker that resolves inside a job root (§2.3 step 2). */
function followJobMarkers(chat: ChatRef, facts: ChatFacts, c: ExpandContext): void {
  for (const ref of facts.jobReferences) {
    const job = c.resolve(ref);
    if (job !== null && c.insideRoots(job.path)) {
      c.push(job, "job");
    } else {
      const why = job === null
        ? "does not resolve to a job"
        : `resolves to "${job.path}", outside every job root`;
      c.report(
        provenanceError(
          "unresolved_job_reference",
          `Job reference "${ref}" in chat "${chat.path}" ${why} (unresolved_job_reference)`,
          { kind: "chat", nodePath: chat.path, relation: "job", reference: ref },
        ),
        chat,
      );
    }
  }
}

/** `agent_job` edges: receipt problems first, then each receipt's job (§2.3 step 3). */
function followReceiptJobs(chat: ChatRef, facts: ChatFacts, c: ExpandContext): void {
  for (const problem of facts.evidence.receiptProblems) {
    c.report(receiptError(problem, chat.path), chat);
  }
  for (const ref of facts.receiptJobs) {
    const job = c.resolve(ref.job);
    if (job !== null && c.insideRoots(job.path)) {
      c.push(job, "agent_job", ref);
      continue;
    }
    const problem = receiptProblem({
      reason: "unresolved_job_reference",
      source: ref.source,
      outputAddress: ref.outputAddress,
      evidenceAddress: ref.evidenceAddress,
      callId: ref.callId,
      toolName: ref.toolName,
      agentMetaIndex: ref.agentMetaIndex,
      rawEntry: ref.rawMessage,
      reference: ref.job,
      detail: job === null
        ? `job "${ref.job}" not found under the working directory or any job root`
        : `job "${ref.job}" resolves to "${job.path}", outside every job root`,
    });
    c.report(receiptError(problem, chat.path), chat);
  }
}

/**
 * Expands a job: an unreadable `.info` reported, then dependencies, logs,
 * result, and its earlier attempts (oldest first).
 *
 * @param job the job
 * @param infoError why its `.info` could not be read, if so
 * @param c the walk's context
 */
export function expandJob(job: JobRef, infoError: string | undefined, c: ExpandContext): void {
  if (infoError !== undefined) {
    c.report(
      provenanceError(
        "job_info_unreadable",
        `${infoError} (job_info_unreadable)`,
        { kind: "job", nodePath: job.path, relation: "dependency", reference: job.path + ".info" },
      ),
      job,
    );
  }
  if (c.follow.has("dependency")) {
    for (const entry of jobDependencies(job.info)) {
      const ref = dependencyReference(entry);
      const dep = typeof ref === "string" || typeof ref === "number" ? c.resolve(ref) : null;
      if (dep !== null) {
        c.push(dep, "dependency");
      } else {
        c.report(
          provenanceError(
            "missing_dependency",
            `Dependency ${
              JSON.stringify(ref) ?? String(ref)
            } of job "${job.path}" does not resolve to a job (missing_dependency)`,
            { kind: "job", nodePath: job.path, relation: "dependency", reference: ref },
          ),
          job,
        );
      }
    }
  }
  if (c.follow.has("log")) {
    const logs = directJobChatFiles(job.path);
    for (const file of logs.files) c.push({ kind: "chat", path: file }, "log");
    for (const { link, target } of logs.skipped) {
      c.report(
        provenanceError(
          "log_chat_skipped",
          `Log "${link}" of job "${job.path}" links to "${target}", a system file, not a chat: not read (log_chat_skipped)`,
          { kind: "job", nodePath: job.path, relation: "log", reference: link },
        ),
        job,
      );
    }
    for (const err of logs.errors) {
      c.report(
        provenanceError(
          "log_dir_unreadable",
          `Cannot list log directory "${err.dir}" of job "${job.path}": ${err.message} (log_dir_unreadable)`,
          { kind: "job", nodePath: job.path, relation: "log", reference: err.dir },
        ),
        job,
      );
    }
  }
  if (c.follow.has("result")) {
    const result = jobResultChatFile(job);
    if (result !== null) c.push({ kind: "chat", path: result }, "result");
  }
  if (c.follow.has("attempt")) followAttempts(job, c);
}

/**
 * `attempt` edges ([TS-FIX] R109-3): the failed runs a job rerun in place
 * set aside, each read as a job of its own (its `.info`, its logs).
 */
function followAttempts(job: JobRef, c: ExpandContext): void {
  let attempts;
  try {
    attempts = keptAttempts(job.path);
  } catch (e) {
    const dir = attemptsDir(job.path);
    c.report(
      provenanceError(
        "log_dir_unreadable",
        `Cannot list the earlier attempts "${dir}" of job "${job.path}": ${
          failure(e)
        } (log_dir_unreadable)`,
        { kind: "job", nodePath: job.path, relation: "attempt", reference: dir, cause: e },
      ),
      job,
    );
    return;
  }
  for (const a of attempts) {
    c.push({ kind: "job", path: canonicalPath(a.path, "/"), info: null }, "attempt");
  }
}
