/**
 * `shorten_tools_epoch` (`prompt-strategies.md` §5), the default strategy:
 * compaction whose boundaries move only once per epoch of `epochSize` new
 * tool calls, so every prompt within an epoch is a byte-identical extension
 * of the previous one and provider prompt caches keep hitting.
 *
 * @module
 */
import type { Message } from "../chat/types.ts";
import type { PromptSettings } from "./settings.ts";
import {
  CALL,
  callKey,
  compactMessage,
  OUTPUT,
  pairToolMessages,
  type ToolPairing,
} from "./tool_messages.ts";

/** Where the epoch boundaries lie for `T` tool outputs (counts in pairs). */
export interface EpochRegions {
  /** Usable `function_call_output` messages. */
  total: number;
  /** Index of the epoch (0-based). */
  epoch: number;
  /** `threshold + epoch × size`: the pinned count the regions derive from. */
  pinned: number;
  /** Pairs that arrived after the boundary (1 … size). */
  newCalls: number;
  /** Newest pairs kept whole: `newCalls + full`. */
  keepFull: number;
  /** Pairs not dropped: `keepFull + compacted`. */
  truncateTo: number;
}

/**
 * The region arithmetic of §5 step 3, or null when the strategy leaves the
 * messages alone (`T ≤ threshold`, nothing to keep, or `size ≤ 0`).
 *
 * @param total number of usable tool outputs `T`
 * @param settings resolved settings
 * @returns the boundaries, or null
 *
 * @example
 * ```ts
 * import { epochRegions } from "./shorten_tools_epoch.ts";
 * import { defaultPromptSettings } from "./settings.ts";
 * epochRegions(111, defaultPromptSettings())?.pinned; // 110
 * ```
 */
export function epochRegions(total: number, settings: PromptSettings): EpochRegions | null {
  const threshold = settings.epochToolCallThreshold;
  const full = settings.epochFullToolCalls;
  const compacted = settings.epochCompactedToolCalls;
  const size = settings.epochSize;
  if (total <= threshold || (full === 0 && compacted === 0) || size <= 0) return null;
  const overflow = total - threshold;
  const epoch = Math.floor((overflow - 1) / size);
  const pinned = threshold + epoch * size;
  const newCalls = total - pinned;
  const keepFull = newCalls + full;
  return { total, epoch, pinned, newCalls, keepFull, truncateTo: keepFull + compacted };
}

/**
 * The notice inserted when anything was compacted or removed. Same counts →
 * same bytes (the notice sits inside the cached prefix).
 *
 * @param compacted messages whose content was truncated
 * @param removed messages dropped (a pair counts 2)
 * @returns the notice text
 */
export function compactionNotice(compacted: number, removed: number): string {
  return [
    "=== Context Management ===",
    "",
    "To fit within the model context window, this conversation has been compacted: " +
    "some tool call arguments and tool call outputs have been truncated, and some have been " +
    "removed entirely.",
    "",
    `Compacted: ${compacted}`,
    `Removed: ${removed}`,
    "",
    "Earlier tool results may no longer be present in the visible conversation history. " +
    "If information appears to be missing, it may have been removed during context compaction " +
    "rather than never existing. The absence of an earlier tool result in the current " +
    "conversation does not necessarily mean that the tool has not already been executed.",
    "",
    "Repeated tool calls with the same arguments are protected: the most recent instance of " +
    "each is kept in full.",
  ].join("\n");
}

/** Where each tool message stands (`r`, 1 = newest output) and the positions kept whole as repeats. */
interface ToolPositions {
  /** Position per message index (0 for non-tool messages). */
  position: Int32Array;
  /** Positions of the newest instance of each call made twice or more (§5.6). */
  protectedPositions: Set<number>;
}

/** How many usable tool outputs there are (`T`). */
function countOutputs(messages: readonly Message[], infos: ToolPairing["infos"]): number {
  let total = 0;
  for (let i = 0; i < messages.length; i++) {
    if (infos[i] && messages[i]!.role === OUTPUT) total++;
  }
  return total;
}

/**
 * Positions per message (an output counted from the newest, a call taking
 * its output's, an unpaired call the number of outputs after it), and the
 * repeated-call protection (§5.6).
 */
function toolPositions(
  messages: readonly Message[],
  { infos, pairOf }: ToolPairing,
  total: number,
): ToolPositions {
  const n = messages.length;
  const position = new Int32Array(n);
  const seen = new Map<string, { count: number; last: number }>();
  let forward = 0;
  for (let i = 0; i < n; i++) {
    const info = infos[i];
    if (!info) continue;
    if (messages[i]!.role === OUTPUT) {
      forward++;
      position[i] = total - forward + 1;
      const call = pairOf[i]!;
      if (call !== -1) {
        const key = callKey(infos[call]!);
        const s = seen.get(key);
        if (s === undefined) seen.set(key, { count: 1, last: forward });
        else {
          s.count++;
          s.last = forward;
        }
      }
    } else position[i] = pairOf[i] === -1 ? total - forward : -1; // paired: filled below
  }
  for (let i = 0; i < n; i++) {
    if (position[i] === -1) position[i] = position[pairOf[i]!]!;
  }
  const protectedPositions = new Set<number>();
  for (const s of seen.values()) if (s.count >= 2) protectedPositions.add(total - s.last + 1);
  return { position, protectedPositions };
}

/** The messages after the regions apply, what changed, and where the notice goes. */
interface Shortened {
  out: Message[];
  compacted: number;
  removed: number;
  /** Index in `out` of the first kept tool message, or -1. */
  firstTool: number;
}

/** Keeps, compacts or drops each tool message by its position. */
function applyRegions(
  messages: readonly Message[],
  infos: ToolPairing["infos"],
  { position, protectedPositions }: ToolPositions,
  regions: EpochRegions,
): Shortened {
  const out: Message[] = [];
  let compacted = 0;
  let removed = 0;
  let firstTool = -1;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const info = infos[i];
    const isTool = m.role === CALL || m.role === OUTPUT;
    if (!info) {
      if (isTool && firstTool === -1) firstTool = out.length;
      out.push(m);
      continue;
    }
    const r = position[i]!;
    if (r > regions.truncateTo && !protectedPositions.has(r)) {
      removed++;
      continue;
    }
    if (firstTool === -1) firstTool = out.length;
    if (r <= regions.keepFull || protectedPositions.has(r)) {
      out.push(m);
      continue;
    }
    const c = compactMessage(m, info);
    if (c === null) out.push(m);
    else {
      compacted++;
      out.push(c);
    }
  }
  return { out, compacted, removed, firstTool };
}

/**
 * Applies `shorten_tools_epoch`. Positions count usable outputs from the
 * newest (`r = 1`); a call takes its paired output's position (an unpaired
 * call: the number of outputs after it). Regions: `r ≤ keepFull` whole,
 * `r ≤ truncateTo` compacted, older dropped; the newest instance of every
 * call repeated with identical name and arguments is kept whole. If anything
 * changed, one `user` notice goes right **before** the first kept tool
 * message ([TS-FIX]: Ruby puts it between a call and its output).
 *
 * @param messages the prompt messages
 * @param settings resolved settings (see `resolvePromptSettings`)
 * @returns a new list (a copy of the input when nothing applies)
 *
 * @example
 * ```ts
 * import { shortenToolsEpoch } from "./shorten_tools_epoch.ts";
 * import { defaultPromptSettings } from "./settings.ts";
 * shortenToolsEpoch([{ role: "user", content: "go" }], defaultPromptSettings()).length; // 1
 * ```
 */
export function shortenToolsEpoch(
  messages: readonly Message[],
  settings: PromptSettings,
): Message[] {
  const pairing = pairToolMessages(messages);
  const total = countOutputs(messages, pairing.infos);
  const regions = epochRegions(total, settings);
  if (regions === null) return messages.slice();
  const positions = toolPositions(messages, pairing, total);
  const { out, compacted, removed, firstTool } = applyRegions(
    messages,
    pairing.infos,
    positions,
    regions,
  );
  if (compacted + removed > 0) {
    const notice: Message = { role: "user", content: compactionNotice(compacted, removed) };
    out.splice(firstTool === -1 ? out.length : firstTool, 0, notice);
  }
  return out;
}
