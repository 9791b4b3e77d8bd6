/**
 * Job projections and checkpoints (`provenance.md` §4.6, §1.2): a chat task
 * projects its answer into the caller's chat as a `meta job=<short path>`
 * marker followed by the answer without token metas; the marker is how the
 * provenance walker finds the producing job.
 *
 * @module
 */
import type { Message } from "./types.ts";
import { type MetaRecord, serializeMeta } from "./meta.ts";
import { currentMeta } from "./meta_chat.ts";

/**
 * Projects messages produced by a job: drops every `meta` message and
 * prepends one `meta job=<jobShortPath>` marker. Empty input (after
 * dropping) → `[]`. Messages are shallow-copied.
 *
 * @param jobShortPath `Workflow/task/Name` of the producing job
 * @param messages what the job produced
 * @returns the projection
 *
 * @example
 * ```ts
 * import { project } from "./project.ts";
 * project("Planner/ask/Default_a1.chat", [{ role: "meta", content: "pt=1" }, { role: "assistant", content: "ok" }]);
 * // [{role:"meta", content:"job=Planner/ask/Default_a1.chat"}, {role:"assistant", content:"ok"}]
 * ```
 */
export function project(jobShortPath: string, messages: readonly Message[]): Message[] {
  const kept = messages.filter((m) => m.role !== "meta").map((m) => ({ ...m }));
  if (kept.length === 0) return [];
  return [{ role: "meta", content: serializeMeta({ job: jobShortPath }) }, ...kept];
}

/**
 * The chat's token checkpoint (`provenance.md` §4.6): {@link currentMeta} —
 * the last meta record with its `_c` keys from the last meta that has any, so
 * a trailing `meta job=…` marker keeps the chat totals — or null when the chat
 * has no meta at all.
 *
 * @param messages the chat
 * @returns the checkpoint record, or null when the chat has no meta
 *
 * @example
 * ```ts
 * import { metaCheckpoint } from "./project.ts";
 * metaCheckpoint([{ role: "meta", content: "pt=10 pt_c=10" }, { role: "meta", content: "job=W/t/x" }]);
 * // {job: "W/t/x", pt_c: 10}
 * ```
 */
export function metaCheckpoint(messages: readonly Message[]): MetaRecord | null {
  return messages.some((m) => m.role === "meta") ? currentMeta(messages) : null;
}
