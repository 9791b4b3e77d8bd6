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
import { roleNameLength, rubyStrip } from "./text.ts";

/** Roles printed on one line (`role: content`) when their content is single-line. */
export const INLINE_ROLES: ReadonlySet<string> = new Set([
  "option",
  "previous_response_id",
  "function_call",
  "function_call_output",
  "meta",
]);

/** The body of an empty message other than `clear`/`clear_tools`/`skip` (D27). */
const EMPTY_MARKER = "[[\n]]";

/** Object or array content, printed as JSON in block form. */
function isStructured(content: unknown): boolean {
  return content !== null && typeof content === "object";
}

/**
 * The text a message's content prints as, before escapes: objects as compact
 * JSON, null/undefined as empty, anything else as a trimmed string. It is
 * also what the parser reads back.
 *
 * @param content message content
 * @returns the content as printed text
 */
export function bodyText(content: unknown): string {
  if (content === null || content === undefined) return "";
  if (isStructured(content)) return JSON.stringify(content) ?? "";
  return rubyStrip(String(content));
}

/**
 * Whether `role` is a header word `[a-z0-9_]+` (D28), the roles a chat can
 * print.
 *
 * @param role a message's role
 * @returns whether it prints as a header
 */
export function isHeaderWord(role: unknown): role is string {
  return typeof role === "string" && role.length > 0 && roleNameLength(role) === role.length;
}

/** The message's role, checked to be a header word `[a-z0-9_]+` (D28). */
function checkedRole(m: Message, index: number | null): string {
  const role = m.role as unknown;
  if (isHeaderWord(role)) return role;
  const which = index === null ? "a message" : `message ${index}`;
  const shown = typeof role === "string" ? JSON.stringify(role) : String(role);
  throw new ScoutError(
    "chat_print",
    `Cannot print ${which}: role ${shown} is not a header word [a-z0-9_]+`,
    index === null ? { role } : { index, role },
  );
}

/** A guard context over a chat, for the message at `index` (moved by the caller). */
interface ChatContext extends GuardContext {
  index: number;
}

/**
 * The closing tags of a printed chat, for the guards' xml rules: the last
 * message holding each `</tag>`, found on first use; `before` is text printed
 * ahead of the chat (its closing tags count for Ruby's row 7).
 */
function chatContext(chat: readonly Message[], before = ""): ChatContext {
  let earlier: Map<string, number> | null = null;
  let last: Map<string, number> | null = null;
  const lastMessage = () => {
    if (last !== null) return last;
    last = new Map();
    for (let j = 0; j < chat.length; j++) {
      const body = bodyText(chat[j]!.content);
      if (!body.includes("</")) continue;
      for (const tag of lastCloserOffsets(body).keys()) last.set(tag, j);
    }
    return last;
  };
  const ctx: ChatContext = {
    index: 0,
    closedLater: (tag) => (lastMessage().get(tag) ?? -1) > ctx.index,
    closedAnywhere: (tag) =>
      lastMessage().has(tag) || (earlier ??= lastCloserOffsets(before)).has(tag),
  };
  return ctx;
}

/** Prints one message whose role is checked (see {@link print}). */
function render(role: string, content: unknown, ctx: GuardContext): string {
  const body = bodyText(content);
  if (body === "") return KEEP_EMPTY_BLOCK.has(role) ? `${role}:` : `${role}:\n\n${EMPTY_MARKER}`;
  if (INLINE_ROLES.has(role) && !isStructured(content) && !body.includes("\n")) {
    return `${role}: ${body}`;
  }
  return `${role}:\n\n${guardBody(body, ctx)}`;
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
  return printMessages(chat, {});
}

/** Options of {@link printMessages}. */
export interface PrintOptions {
  /**
   * The text goes after other messages (appending): print a leading empty
   * `user` message too, since no parser adds it there.
   */
  keepLeadingEmpty?: boolean;
  /** Print the first message, a `user` one, as text before any header. */
  headerlessFirst?: boolean;
  /** Text that will precede the printed messages (its closing tags count, D26). */
  before?: string;
}

/**
 * {@link print} with options for text that is not a whole chat file on its
 * own (see {@link PrintOptions}).
 *
 * @param chat messages; every role must be a header word `[a-z0-9_]+`
 * @param opts options
 * @returns chat text, starting with `\n` unless `headerlessFirst`
 * @throws {ScoutError} `chat_print` when a role is not a header word
 */
export function printMessages(chat: readonly Message[], opts: PrintOptions): string {
  const n = chat.length;
  let start = 0;
  if (
    !opts.keepLeadingEmpty && n > 0 && checkedRole(chat[0]!, 0) === "user" &&
    bodyText(chat[0]!.content) === ""
  ) {
    if (n === 1) return "\nuser:";
    start = 1;
  }
  const ctx = chatContext(chat, opts.before);
  let out = "\n";
  for (let i = start; i < n; i++) {
    const m = chat[i]!;
    const role = checkedRole(m, i);
    ctx.index = i;
    if (i === 0 && opts.headerlessFirst && role === "user") {
      out = guardBody(bodyText(m.content), ctx);
      continue;
    }
    if (i > start) out += "\n\n";
    out += render(role, m.content, ctx);
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
  return render(checkedRole(m, null), m.content, chatContext([m]));
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
 * ````ts
 * import { escapeContent } from "./print.ts";
 * escapeContent("```\nuser: in a fence\n```\nuser: out"); // "```\nuser: in a fence\n```\n\\user: out"
 * ````
 */
export function escapeContent(content: string): string {
  return guardBody(content, chatContext([{ role: "user", content }]));
}
