/**
 * The value of a `socialize:` line (agents.md §3.1): Ruby's truth test of
 * the text, `true TRUE True T 1`, turns delegation on; anything else leaves
 * it off. A value that is neither one of those nor a plain false (`false
 * FALSE False F 0`) — `yes`, `on` — is told once, with its line (§2.3: never
 * fail silently), and still leaves delegation off, as in Ruby.
 *
 * @module
 */
import type { Message } from "../chat/types.ts";
import { writtenAt } from "../chat/written_at.ts";

/** The values of `socialize:` that turn delegation on. */
export const TRUE_WORDS: ReadonlySet<string> = new Set(["true", "TRUE", "True", "T", "1"]);

/** The values that turn it off without a word. */
const FALSE_WORDS: ReadonlySet<string> = new Set(["false", "FALSE", "False", "F", "0"]);

/**
 * Warnings for the `socialize:` lines of a start chat whose value is neither
 * true nor false.
 *
 * @param chat the compiled start chat
 * @param file its file, when its messages carry no line
 * @returns one `{id, message}` per such line
 */
export function socializeValueWarnings(
  chat: readonly Message[],
  file: string,
): { id: string; message: string }[] {
  const out: { id: string; message: string }[] = [];
  for (const m of chat) {
    if (m.role !== "socialize") continue;
    const value = String(m.content).trim();
    if (TRUE_WORDS.has(value) || FALSE_WORDS.has(value)) continue;
    const at = writtenAt(m);
    const where = at ? `${at.file}:${at.line}` : file;
    out.push({
      id: `socialize:${where}`,
      message: `"socialize: ${value}" is not true (true, TRUE, True, T or 1): ` +
        `it does not give this agent the ask tool (${where})`,
    });
  }
  return out;
}
