/**
 * The `.chat` printer (`chat.md` §3): the Ruby format with the port's
 * [DIVERGE D1, D2] fixes, so that print→parse round-trips for any role
 * `[a-z0-9_]+` and trimmed, non-empty string content whose blocks are balanced
 * within the message.
 *
 * @module
 */
import type { Message } from "./types.ts";
import { escapedHeaderDepth, isHeaderLine, rubyStrip } from "./text.ts";
import {
  CMD_CLOSE,
  CMD_OPEN,
  lastCloserOffsets,
  openSquare,
  XML_CLOSE,
  XML_OPEN,
} from "./parse.ts";

/** Roles printed on one line (`role: content`) when their content is single-line. */
export const INLINE_ROLES: ReadonlySet<string> = new Set([
  "option",
  "previous_response_id",
  "function_call",
  "function_call_output",
  "meta",
]);

const MAYBE_HEADER = /(?:^|\n)\\*[a-z0-9_]+:/;

/**
 * Prints a chat as text (`chat.md` §3.3). Never compiles.
 *
 * @param chat messages
 * @returns chat text, starting with `\n`
 *
 * @example
 * ```ts
 * import { print } from "./print.ts";
 * print([{ role: "system", content: "you are a robot" }, { role: "user", content: "hi" }]);
 * // "\nsystem:\n\nyou are a robot\n\nuser:\n\nhi"
 * ```
 */
export function print(chat: readonly Message[]): string {
  let out = "\n";
  for (let i = 0; i < chat.length; i++) {
    if (i > 0) out += "\n\n";
    out += printMessage(chat[i]!);
  }
  return out;
}

/**
 * Prints one message (no surrounding blank lines).
 *
 * @param m message
 * @returns its text form
 */
export function printMessage(m: Message): string {
  const r = String(m.role);
  const c = m.content;
  if (c !== null && typeof c === "object") return `${r}:\n\n${JSON.stringify(c)}`;
  if (c === null || c === undefined || c === "") return `${r}:`;
  const text = String(c);
  if (INLINE_ROLES.has(r) && !text.includes("\n")) return `${r}: ${text}`;
  return `${r}:\n\n${escapeContent(text)}`;
}

/**
 * Prefixes one backslash to every line of `content` that the parser would read
 * as a header (`^\\*[a-z0-9_]+:`) outside blocks; lines inside fences, `[[ ]]`,
 * command and xml blocks are left alone ([DIVERGE D1]).
 *
 * @param content message text
 * @returns escaped text
 */
export function escapeContent(content: string): string {
  if (!MAYBE_HEADER.test(content)) return content;
  const lines = content.split("\n");
  let mode: "none" | "fence" | "square" | "cmd" | "xml" = "none";
  let xmlTag = "";
  let closers: Map<string, number> | null = null;
  let offset = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const nextStart = offset + line.length + 1;
    const s = rubyStrip(line);
    switch (mode) {
      case "none":
        if (s.startsWith("```")) mode = "fence";
        else if (s.startsWith("[[")) mode = openSquare(line).closed ? "none" : "square";
        else if (line.includes(":-- ") && CMD_OPEN.test(s)) mode = "cmd";
        else if (s.startsWith("<") && XML_OPEN.test(s)) {
          const tag = XML_OPEN.exec(s)![1]!;
          closers ??= lastCloserOffsets(content);
          const last = closers.get(tag);
          if (!line.includes(`</${tag}>`) && last !== undefined && last >= nextStart) {
            mode = "xml";
            xmlTag = tag;
          }
        } else if (isHeaderLine(line) || escapedHeaderDepth(line) > 0) lines[i] = "\\" + line;
        break;
      case "fence":
        if (s.startsWith("```")) mode = "none";
        break;
      case "square":
        if (s.endsWith("]]")) mode = "none";
        break;
      case "cmd":
        if (CMD_CLOSE.test(s)) mode = "none";
        break;
      case "xml": {
        const m = XML_CLOSE.exec(s);
        if (m !== null && m[1] === xmlTag) mode = "none";
        break;
      }
    }
    offset = nextStart;
  }
  return lines.join("\n");
}
