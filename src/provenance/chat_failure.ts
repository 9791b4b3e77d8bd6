/**
 * Whether a chat's last inference failed for good (R127-2, [TS-FIX]: Ruby's
 * `prov` shows no status): its last meta record that is not a projection
 * marker (`job=`) says `incomplete=true` — the record an ask writes for a
 * reply cut short for good (`reason=interrupted|timeout|stream_cut|error`,
 * `src/llm/incomplete_meta.ts`) and a failed specialist's conversation ends
 * with (`reason=error error="…"`, `src/agent/ask_notes.ts`). A retried
 * attempt's record is followed by the attempt that answered, and a chat
 * asked again after a failure by its new answer's record: neither is a
 * failure. The views mark such a chat as they mark a failed job.
 *
 * @module
 */
import type { Message } from "../chat/types.ts";
import { parseMeta } from "../chat/meta.ts";
import { nonEmpty } from "../chat/trace.ts";

/** A chat whose last inference record says it did not complete. */
export interface ChatFailure {
  /** As a job's status: `aborted` for an interrupted ask (Ctrl-C), else `error`. */
  status: "error" | "aborted";
  /** The record's `reason` (`error`, `timeout`, `stream_cut`, `interrupted`; `unknown` when absent). */
  reason: string;
  /** The record's `error` message (a failed specialist's), else null. */
  error: string | null;
}

/**
 * The failure a chat's last inference record tells, or null when its last
 * one completed (or it has none). Only that one record is parsed.
 *
 * @param messages the chat, as parsed
 * @returns the failure, or null
 *
 * @example
 * ```ts
 * import { chatFailure } from "./chat_failure.ts";
 * chatFailure([
 *   { role: "user", content: "Are you hot?" },
 *   { role: "meta", content: 'incomplete=true reason=error error="HTTP 400"' },
 * ]); // { status: "error", reason: "error", error: "HTTP 400" }
 * ```
 */
export function chatFailure(messages: readonly Message[]): ChatFailure | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "meta" || typeof m.content !== "string") continue;
    const marker = m.content.includes("job=");
    if (!marker && !m.content.includes("incomplete=")) return null; // a completed record
    const meta = parseMeta(m.content);
    if (marker && nonEmpty(meta.job)) continue; // a projection marker: no inference
    if (String(meta.incomplete) !== "true") return null;
    const reason = nonEmpty(meta.reason) ? String(meta.reason) : "unknown";
    return {
      status: reason === "interrupted" ? "aborted" : "error",
      reason,
      error: nonEmpty(meta.error) ? String(meta.error) : null,
    };
  }
  return null;
}

/**
 * The failed chats among a report's nodes, by node index.
 *
 * @param kinds each node's kind
 * @param paths each node's canonical path
 * @param failures the chats read whose last inference failed, by path
 * @returns node index → failure (empty when none failed)
 */
export function nodeFailures(
  kinds: readonly string[],
  paths: readonly string[],
  failures: ReadonlyMap<string, ChatFailure>,
): Map<number, ChatFailure> {
  const out = new Map<number, ChatFailure>();
  if (failures.size === 0) return out;
  for (let i = 0; i < paths.length; i++) {
    const f = kinds[i] === "chat" ? failures.get(paths[i]!) : undefined;
    if (f !== undefined) out.set(i, f);
  }
  return out;
}
