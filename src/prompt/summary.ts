/**
 * What a strategy did to one prompt, for logs and `scout-ai chat prompt`:
 * messages kept, truncated, dropped and added, and the size before and after.
 *
 * @module
 */
import type { Message } from "../chat/types.ts";
import { codePointLength } from "./shorten_string.ts";
import { CALL, OUTPUT, toolInfo } from "./tool_messages.ts";

/** Counts of {@link promptSummary}. */
export interface PromptSummary {
  /** Messages before the strategies. */
  messagesBefore: number;
  /** Messages after. */
  messagesAfter: number;
  /** Input messages passed through unchanged (same object). */
  kept: number;
  /** Tool messages replaced by a shortened copy. */
  truncated: number;
  /** Input messages with no counterpart in the output. */
  dropped: number;
  /** Output messages that are neither input messages nor truncations of one (notices). */
  added: number;
  /** Characters (code points) of all contents before; non-strings count as their JSON. */
  charsBefore: number;
  /** Characters after. */
  charsAfter: number;
}

/**
 * Compares a prompt before and after the strategies. A message counts as
 * truncated when the output holds a different object of the same tool role
 * with the same `id` in its JSON content; as kept when the output holds the
 * same object.
 *
 * @param before the messages given to `preparePrompt`
 * @param after its result
 * @returns the counts
 *
 * @example
 * ```ts
 * import { promptSummary } from "./summary.ts";
 * const a = [{ role: "user", content: "hi" }];
 * promptSummary(a, a.slice()).kept; // 1
 * ```
 */
export function promptSummary(
  before: readonly Message[],
  after: readonly Message[],
): PromptSummary {
  const inputs = new Set(before);
  const byKey = new Map<string, number>();
  for (const m of before) {
    const k = toolKey(m);
    if (k !== null) byKey.set(k, (byKey.get(k) ?? 0) + 1);
  }
  let kept = 0;
  let truncated = 0;
  let added = 0;
  for (const m of after) {
    if (inputs.has(m)) {
      kept++;
      continue;
    }
    const k = toolKey(m);
    if (k !== null && (byKey.get(k) ?? 0) > 0) {
      byKey.set(k, byKey.get(k)! - 1);
      truncated++;
    } else added++;
  }
  return {
    messagesBefore: before.length,
    messagesAfter: after.length,
    kept,
    truncated,
    dropped: before.length - kept - truncated,
    added,
    charsBefore: chars(before),
    charsAfter: chars(after),
  };
}

function toolKey(m: Message): string | null {
  if (m.role !== CALL && m.role !== OUTPUT) return null;
  const info = toolInfo(m); // memoised: the strategies already parsed these
  return info !== null && "id" in info.json ? `${m.role}\u0000${String(info.id)}` : null;
}

function chars(ms: readonly Message[]): number {
  let n = 0;
  for (const m of ms) {
    const c = m.content;
    if (typeof c === "string") n += codePointLength(c);
    else if (c !== null && c !== undefined) n += codePointLength(JSON.stringify(c) ?? "");
  }
  return n;
}
