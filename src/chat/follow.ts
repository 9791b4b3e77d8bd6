/**
 * Joining chats (`chat.md` §8): `follow` continues a conversation after
 * another one, carrying a remote `previous_response_id` to the front;
 * `append`/`prepend` do it in place; `branch` copies.
 *
 * @module
 */
import type { Chat, Message } from "./types.ts";
import { clear } from "./clear.ts";
import { extractOptions } from "./options.ts";

/**
 * Joins `intro` and `coda` (machine-checked C8). If the options of `coda`
 * carry a `previous_response_id` (the last one; `nil` cancels it), the result
 * is that id **first**, then `intro`, then what follows the last id message in
 * `coda`; otherwise the plain concatenation.
 *
 * @param intro the earlier messages
 * @param coda the later messages
 * @returns a new array (messages shared, not copied)
 *
 * @example
 * ```ts
 * import { follow } from "./follow.ts";
 * follow([{ role: "system", content: "s" }], [
 *   { role: "previous_response_id", content: "r1" },
 *   { role: "user", content: "q" },
 * ]);
 * // [{ role: "previous_response_id", content: "r1" }, { role: "system", … }, { role: "user", … }]
 * ```
 */
export function follow(intro: readonly Message[], coda: readonly Message[]): Chat {
  const id = extractOptions(coda, { resolveFormat: (v) => v }).options.previous_response_id;
  if (id === undefined) return [...intro, ...coda];
  return [
    { role: "previous_response_id", content: id },
    ...intro,
    ...clear(coda, "previous_response_id"),
  ];
}

/**
 * Appends `coda` to `chat` in place, the {@link follow} way.
 *
 * @param chat messages (modified)
 * @param coda messages or a single message to add after
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { append } from "./follow.ts";
 * const chat = [{ role: "user", content: "q" }];
 * append(chat, { role: "assistant", content: "a" }); // chat has 2 messages
 * ```
 */
export function append(chat: Message[], coda: readonly Message[] | Message): Chat {
  return replaceContents(chat, follow(chat, asList(coda)));
}

/**
 * Puts `intro` before `chat` in place, the {@link follow} way (a single message
 * is wrapped: [DIVERGE D11], Ruby crashes).
 *
 * @param chat messages (modified)
 * @param intro messages or a single message to put first
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { prepend } from "./follow.ts";
 * const chat = [{ role: "user", content: "q" }];
 * prepend(chat, { role: "system", content: "s" }); // [system:s, user:q]
 * ```
 */
export function prepend(chat: Message[], intro: readonly Message[] | Message): Chat {
  return replaceContents(chat, follow(asList(intro), chat));
}

/**
 * A shallow copy of `chat`: a new array sharing the message objects (treat
 * them as immutable).
 *
 * @param chat messages
 * @returns the copy
 *
 * @example
 * ```ts
 * import { branch } from "./follow.ts";
 * const chat = [{ role: "user", content: "q" }];
 * const alt = branch(chat);
 * alt.push({ role: "assistant", content: "a" }); // chat still has 1 message
 * ```
 */
export function branch(chat: readonly Message[]): Chat {
  return [...chat];
}

function asList(m: readonly Message[] | Message): readonly Message[] {
  return Array.isArray(m) ? m : [m as Message];
}

function replaceContents(chat: Message[], next: Chat): Chat {
  chat.length = 0;
  for (const m of next) chat.push(m);
  return chat;
}
