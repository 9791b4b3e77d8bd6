/**
 * `shorten_tools` (`prompt-strategies.md` §4): the legacy strategy,
 * recomputed every round. Walking newest first, tool messages are kept whole
 * while a character budget lasts (or while they are among the newest few),
 * then truncated, then dropped — with the [TS-FIX] pairing rule so that no
 * call loses its output or output its call.
 *
 * @module
 */
import type { Message } from "../chat/types.ts";
import type { PromptSettings } from "./settings.ts";
import { CALL, compactMessage, contentChars, OUTPUT, pairToolMessages } from "./tool_messages.ts";

const enum Fate {
  Keep,
  Drop,
}

/**
 * Applies `shorten_tools`. Outputs are decided newest first with `k` (outputs
 * reached so far, counted before deciding) and `used` (chars of kept tool
 * JSON): whole if `k < fullToolOutputs` or `used < maxToolChars`, else dropped
 * if `k > maxToolOutputs`, else truncated (content to 400 chars). Calls use
 * the same rule with `fullToolCalls`/`maxToolCalls` (string arguments to 200
 * chars), except that a call whose output was dropped is dropped and a call
 * whose output was kept is never dropped (truncated instead).
 *
 * Unusable tool messages (non-string content, bad JSON, non-object) are kept
 * unchanged and count for nothing. The input is never mutated.
 *
 * @param messages the prompt messages
 * @param settings resolved settings (see `resolvePromptSettings`)
 * @returns a new list
 *
 * @example
 * ```ts
 * import { shortenTools } from "./shorten_tools.ts";
 * import { defaultPromptSettings } from "./settings.ts";
 * const msgs = [{ role: "user", content: "go" }];
 * shortenTools(msgs, defaultPromptSettings()); // [{ role: "user", content: "go" }]
 * ```
 */
export function shortenTools(
  messages: readonly Message[],
  settings: PromptSettings,
): Message[] {
  const { fullToolCalls, fullToolOutputs, maxToolCalls, maxToolOutputs, maxToolChars } = settings;
  const { infos, pairOf } = pairToolMessages(messages);
  const fate = new Uint8Array(messages.length); // Fate.Keep by default
  const out: Message[] = [];
  let k = 0;
  let used = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    const info = infos[i];
    if ((m.role !== CALL && m.role !== OUTPUT) || info === null || info === undefined) {
      out.push(m);
      continue;
    }
    let whole: boolean;
    let drop: boolean;
    if (m.role === OUTPUT) {
      k++;
      whole = k < fullToolOutputs || used < maxToolChars;
      drop = !whole && k > maxToolOutputs;
    } else {
      whole = k < fullToolCalls || used < maxToolChars;
      drop = !whole && k > maxToolCalls;
      const p = pairOf[i]!;
      if (p !== -1) {
        if (fate[p] === Fate.Drop) {
          whole = false;
          drop = true;
        } else if (drop) drop = false;
      }
    }
    if (drop) {
      fate[i] = Fate.Drop;
      continue;
    }
    if (whole) {
      used += contentChars(info);
      out.push(m);
      continue;
    }
    const truncated = compactMessage(m, info);
    if (truncated === null) out.push(m);
    else {
      used += info.compactedChars!;
      out.push(truncated);
    }
  }
  return out.reverse();
}
