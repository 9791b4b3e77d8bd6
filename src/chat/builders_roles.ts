/**
 * Message builders for roles, options, endpoint and model.
 * Re-exported by `builders.ts` (`chat.md` §8).
 *
 * @module
 */
import type { Chat, Message } from "./types.ts";

/**
 * Appends `{role, content}`.
 *
 * @param chat messages (modified)
 * @param role role name (stored as a string)
 * @param content message body
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { message } from "./builders.ts";
 * message([], "user", "hi"); // [{ role: "user", content: "hi" }]
 * ```
 */
export function message(chat: Message[], role: string, content: unknown): Chat {
  chat.push({ role: String(role), content });
  return chat;
}

/**
 * Appends a `user` message.
 *
 * @param chat messages (modified)
 * @param text the text
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { user } from "./builders.ts";
 * user([], "What is 2+2?");
 * ```
 */
export function user(chat: Message[], text: unknown): Chat {
  return message(chat, "user", text);
}

/**
 * Appends a `system` message.
 *
 * @param chat messages (modified)
 * @param text the text
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { system } from "./builders.ts";
 * system([], "You are a careful assistant.");
 * ```
 */
export function system(chat: Message[], text: unknown): Chat {
  return message(chat, "system", text);
}

/**
 * Appends an `assistant` message.
 *
 * @param chat messages (modified)
 * @param text the text
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { assistant } from "./builders.ts";
 * assistant([], "4");
 * ```
 */
export function assistant(chat: Message[], text: unknown): Chat {
  return message(chat, "assistant", text);
}

/**
 * Appends a non-sticky `option: name value` (reset by the next assistant
 * reply). A null/undefined value gives `name ` (empty value, kept).
 *
 * @param chat messages (modified)
 * @param name option name
 * @param value option value
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { option } from "./builders.ts";
 * option([], "temperature", 0.2); // [{ role: "option", content: "temperature 0.2" }]
 * ```
 */
export function option(chat: Message[], name: string, value: unknown): Chat {
  return message(chat, "option", `${name} ${value ?? ""}`);
}

/**
 * Appends a `sticky_option: name value` (survives assistant replies).
 *
 * @param chat messages (modified)
 * @param name option name
 * @param value option value
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { stickyOption } from "./builders.ts";
 * stickyOption([], "reasoning_effort", "low");
 * ```
 */
export function stickyOption(chat: Message[], name: string, value: unknown): Chat {
  return message(chat, "sticky_option", `${name} ${value ?? ""}`);
}

/**
 * Appends a sticky `endpoint:` message ([DIVERGE D14]: Ruby emits a
 * non-sticky `option: endpoint …`).
 *
 * @param chat messages (modified)
 * @param name endpoint name
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { endpoint } from "./builders.ts";
 * endpoint([], "local"); // [{ role: "endpoint", content: "local" }]
 * ```
 */
export function endpoint(chat: Message[], name: string): Chat {
  return message(chat, "endpoint", name);
}

/**
 * Appends a sticky `model:` message ([DIVERGE D14]).
 *
 * @param chat messages (modified)
 * @param name model name
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { model } from "./builders.ts";
 * model([], "gpt-4o-mini");
 * ```
 */
export function model(chat: Message[], name: string): Chat {
  return message(chat, "model", name);
}
