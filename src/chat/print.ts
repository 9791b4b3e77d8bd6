/**
 * The `.chat` printer (`chat.md` §3): the Ruby format with the port's
 * [DIVERGE D1, D2] fixes and the guards of `docs/spec-notes/chat.md`
 * (D26–D29), so that for any messages with `[a-z0-9_]+` roles
 * `parse(print(m))` gives `m` back — contents as trimmed strings, with the
 * parser's leading empty `user` message — and `print` is a fixed point of
 * `print ∘ parse`.
 *
 * @module
 */
import { ScoutError } from "../errors.ts";
import type { Message } from "./types.ts";
import { KEEP_EMPTY_BLOCK, lastCloserOffsets } from "./parse.ts";
import { guardBody, type GuardContext } from "./print_guard.ts";
import { rubyStrip } from "./text.ts";

/** Roles printed on one line (`role: content`) when their content is single-line. */
export const INLINE_ROLES: ReadonlySet<string> = new Set([
  "option",
  "previous_response_id",
  "function_call",
  "function_call_output",
  "meta",
]);

/** A role the parser reads back: a header word. */
const HEADER_WORD = /^[a-z0-9_]+$/;

/** The body of an empty message other than `clear`/`clear_tools`/`skip` (D27). */
const EMPTY_MARKER = "[[\n]]";

/**
 * The text a message's content prints as, before escapes: objects as compact
 * JSON, null/undefined as empty, anything else as a trimmed string.
 */
function bodyText(content: unknown): string {
  if (content === null || content === undefined) return "";
  if (isStructured(content)) return JSON.stringify(content) ?? "";
  return rubyStrip(String(content));
}

/** Object or array content, printed as JSON in block form. */
function isStructured(content: unknown): boolean {
  return content !== null && typeof content === "object";
}

/** The message's role, checked to be a header word (D28). */
function checkedRole(m: Message, index: number | null): string {
  const role = m.role as unknown;
  if (typeof role === "string" && HEADER_WORD.test(role)) return role;
  const which = index === null ? "a message" : `message ${index}`;
  const shown = typeof role === "string" ? JSON.stringify(role) : String(role);
  throw new ScoutError(
    "chat_print",
    `Cannot print ${which}: role ${shown} is not a header word [a-z0-9_]+`,
    index === null ? { role } : { index, role },
  );
}

/**
 * Prints one message whose role is checked and body computed; `inline` says
 * the role may print on one line (not for structured content, §3.1).
 */
function render(role: string, body: string, inline: boolean, ctx: GuardContext): string {
  if (body === "") return KEEP_EMPTY_BLOCK.has(role) ? `${role}:` : `${role}:\n\n${EMPTY_MARKER}`;
  if (inline && INLINE_ROLES.has(role) && !body.includes("\n")) return `${role}: ${body}`;
  return `${role}:\n\n${guardBody(body, ctx)}`;
}

/**
 * The closing tags of a printed chat, for the guards' xml rules: the last
 * message holding each `</tag>`, found on first use.
 */
function chatContext(bodies: readonly string[]): (i: number) => GuardContext {
  let last: Map<string, number> | null = null;
  const lastMessage = () => {
    if (last !== null) return last;
    last = new Map();
    for (let j = 0; j < bodies.length; j++) {
      if (!bodies[j]!.includes("</")) continue;
      for (const tag of lastCloserOffsets(bodies[j]!).keys()) last.set(tag, j);
    }
    return last;
  };
  return (i) => ({
    closedLater: (tag) => (lastMessage().get(tag) ?? -1) > i,
    closedAnywhere: (tag) => lastMessage().has(tag),
  });
}

/**
 * Prints a chat as text (`chat.md` §3.3 and the D26–D29 notes). Never
 * compiles. A leading `{role: "user", content: ""}` followed by other
 * messages is left out: the parser adds it back.
 *
 * @param chat messages; every role must be a header word `[a-z0-9_]+`
 * @returns chat text, starting with `\n`
 * @throws {ScoutError} `chat_print` naming the message index and role when a
 *   role is not a header word
 *
 * @example
 * ```ts
 * import { print } from "./print.ts";
 * print([{ role: "system", content: "you are a robot" }, { role: "user", content: "hi" }]);
 * // "\nsystem:\n\nyou are a robot\n\nuser:\n\nhi"
 * ```
 */
export function print(chat: readonly Message[]): string {
  const roles = chat.map((m, i) => checkedRole(m, i));
  const bodies = chat.map((m) => bodyText(m.content));
  const leadingEmpty = roles[0] === "user" && bodies[0] === "";
  if (leadingEmpty && chat.length === 1) return "\nuser:";
  const context = chatContext(bodies);
  let out = "\n";
  for (let i = leadingEmpty ? 1 : 0; i < chat.length; i++) {
    if (out.length > 1) out += "\n\n";
    out += render(roles[i]!, bodies[i]!, !isStructured(chat[i]!.content), context(i));
  }
  return out;
}

/**
 * Prints one message on its own (no surrounding blank lines), as {@link print}
 * would if it were the only message after another.
 *
 * @param m message
 * @returns its text form
 * @throws {ScoutError} `chat_print` when the role is not a header word
 *
 * @example
 * ```ts
 * import { printMessage } from "./print.ts";
 * printMessage({ role: "meta", content: "pt=1" }); // "meta: pt=1"
 * ```
 */
export function printMessage(m: Message): string {
  const role = checkedRole(m, null);
  const body = bodyText(m.content);
  return render(role, body, !isStructured(m.content), chatContext([body])(0));
}

/**
 * Escapes the lines of one message's text that the parser would otherwise read
 * as syntax or that would leave a block open (D26), assuming no other message
 * follows it.
 *
 * @param content trimmed message text
 * @returns the text to print after the message's header
 *
 * @example
 * ```ts
 * import { escapeContent } from "./print.ts";
 * escapeContent("```\nuser: in a fence\n```\nuser: out"); // "```\nuser: in a fence\n```\n\\user: out"
 * ```
 */
export function escapeContent(content: string): string {
  return guardBody(content, chatContext([content])(0));
}
