/**
 * `system clean --keep CHAT`: the jobs a chat's provenance reaches, walked
 * with `llm prov`'s traversal (`provenance/traverse.ts`, every relation):
 * its `job=` markers and tool-call receipts, their dependencies, logs and
 * result chats, at any depth. A chat that is itself a job's result, or a log
 * under a job's `.files/`, keeps that job too.
 *
 * What the walk cannot read (a chat or an `.info` it cannot open) stops the
 * clean before anything is removed: its references are unknown. What it
 * finds gone (a reference to no job) is warned about and passed.
 *
 * @module
 */
import { ScoutError } from "../errors.ts";
import type { Io } from "./io.ts";
import { warn } from "./io.ts";

/** Problems that leave a chat's provenance unknown: the clean stops. */
const UNREADABLE = new Set(["chat_unreadable", "job_info_unreadable", "log_dir_unreadable"]);

/** The job a chat path belongs to, when it is under a job's `.files/` (`<job>.files/log/…`). */
function owningJob(path: string): string | null {
  const at = path.lastIndexOf(".files/");
  return at > 0 ? path.slice(0, at) : null;
}

/**
 * Canonical paths of the jobs the given chats' provenance reaches.
 *
 * @param chats chat files (as given; relative to `io.cwd`)
 * @param jobRoots job roots short references resolve in
 * @param io cwd, env, and where warnings go
 * @returns canonical job paths to keep
 * @throws ScoutError `root_not_found` for a chat that does not exist, or the
 *   walk's problem when part of a chat's provenance cannot be read
 */
export async function keptJobs(
  chats: readonly string[],
  jobRoots: readonly string[],
  io: Io,
): Promise<Set<string>> {
  const keep = new Set<string>();
  if (chats.length === 0) return keep;
  const { canonicalPath, traverseProvenance } = await import("../provenance/mod.ts");
  for (const chat of chats) {
    const walk = traverseProvenance(chat, {
      cwd: io.cwd,
      env: io.env,
      jobRoots,
      onError: (e) => {
        if (UNREADABLE.has(e.code)) {
          throw new ScoutError(
            e.code,
            `Cannot tell which jobs --keep ${chat} keeps: ${e.message}; nothing removed`,
            { file: e.nodePath, cause: e },
          );
        }
        warn(io, `--keep ${chat}: ${e.message}`);
      },
    });
    keep.add(canonicalPath(chat, io.cwd));
    for (const r of walk) {
      if (!r.firstVisit) continue;
      keep.add(r.node.path);
      const owner = r.node.kind === "chat" ? owningJob(r.node.path) : null;
      if (owner !== null) keep.add(owner);
    }
  }
  return keep;
}
