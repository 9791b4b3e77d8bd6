/**
 * Tool directives of a chat (`chat.md` §4.4, §6.4, §9.3): `tool:`, `mcp:`,
 * `kb:`, `association:`, `clear_associations:` and `introduce:` lines. They are
 * position-independent declarations that never reach the provider; this pure
 * step takes them out and splits their content into shell words. Resolving
 * them into tool definitions (workflows, MCP servers…) is the tools layer's job.
 *
 * @module
 */
import type { Chat, Message } from "./types.ts";
import { locateAt, type WrittenAt, writtenAt } from "./written_at.ts";
import { shellWords } from "../util/shell_words.ts";

/** Roles that declare tools (or, for `introduce`, documentation). */
export const TOOL_DIRECTIVES: ReadonlySet<string> = new Set([
  "tool",
  "mcp",
  "kb",
  "association",
  "clear_associations",
  "introduce",
]);

/** One tool directive taken out of a chat. */
export interface ToolDirective {
  /** The directive role (`tool`, `mcp`, `kb`, `association`, `clear_associations`, `introduce`). */
  role: string;
  /** Content as written (trimmed). */
  content: string;
  /** Content split into shell words. */
  words: string[];
  /** Index in the returned chat where the directive stood (where an `introduce` expands). */
  position: number;
  /** Where the line was written (a compiled chat's line), for errors about it. */
  at?: WrittenAt;
}

/** Directive content is split into POSIX shell words by `util/shell_words.ts`. */
export { shellWords };

/**
 * Takes the tool directives out of a chat (one forward pass; Ruby `Chat.tools`).
 * The input is not mutated.
 *
 * @param chat compiled messages
 * @returns the directives in order, and the chat without them
 * @throws ScoutError `invalid_input` when a directive has an unbalanced quote (naming
 *   its file and line when the chat was compiled from one)
 *
 * @example
 * ```ts
 * import { extractTools } from "./tool_directives.ts";
 * const { directives, chat } = extractTools([
 *   { role: "tool", content: "Baking whisk eggs" },
 *   { role: "user", content: "go" },
 * ]);
 * // directives[0].words = ["Baking", "whisk", "eggs"]; chat = [{role:"user",content:"go"}]
 * ```
 */
export function extractTools(
  chat: readonly Message[],
): { directives: ToolDirective[]; chat: Chat } {
  const directives: ToolDirective[] = [];
  const rest: Chat = [];
  for (const m of chat) {
    if (!TOOL_DIRECTIVES.has(m.role)) {
      rest.push(m);
      continue;
    }
    const content = (typeof m.content === "string" ? m.content : String(m.content ?? "")).trim();
    const at = writtenAt(m);
    let words: string[];
    try {
      words = shellWords(content);
    } catch (e) {
      throw locateAt(e, at);
    }
    const directive: ToolDirective = { role: m.role, content, words, position: rest.length };
    directives.push(at === undefined ? directive : { ...directive, at });
  }
  return { directives, chat: rest };
}
