/**
 * Reading a conversation's outcome (`chat.md` §8): the final message, its
 * content, and role filters.
 *
 * @module
 */
import type { Chat, Message } from "./types.ts";
import { purge } from "./clear.ts";

const TOOLING_ROLES = new Set(["introduce", "tool", "mcp", "kb"]);

/**
 * The last message once `previous_response_id` messages are set aside. It may
 * be a `meta`, a tool output… whatever came last.
 *
 * @param chat messages
 * @returns the message, or undefined for a chat without one
 *
 * @example
 * ```ts
 * import { final } from "./answer.ts";
 * final([{ role: "assistant", content: "4" }, { role: "previous_response_id", content: "r1" }]);
 * // { role: "assistant", content: "4" }
 * ```
 */
export function final(chat: readonly Message[]): Message | undefined {
  for (let i = chat.length - 1; i >= 0; i--) {
    const m = chat[i]!;
    if (String(m.role) !== "previous_response_id") return m;
  }
  return undefined;
}

/**
 * The content of {@link final}.
 *
 * @param chat messages
 * @returns the content, or undefined for a chat without a final message
 *
 * @example
 * ```ts
 * import { answer } from "./answer.ts";
 * answer([{ role: "user", content: "2+2?" }, { role: "assistant", content: "4" }]); // "4"
 * ```
 */
export function answer(chat: readonly Message[]): unknown {
  return final(chat)?.content;
}

/**
 * `[final]`: the chat shed of everything but its final message.
 *
 * @param chat messages
 * @returns a one-message chat (empty if there is no final message)
 *
 * @example
 * ```ts
 * import { shed } from "./answer.ts";
 * shed([{ role: "user", content: "q" }, { role: "assistant", content: "a" }]); // [{ role: "assistant", … }]
 * ```
 */
export function shed(chat: readonly Message[]): Chat {
  const m = final(chat);
  return m === undefined ? [] : [m];
}

/**
 * The chat without `previous_response_id` messages (Ruby instance `purge`).
 *
 * @param chat messages
 * @returns a new array
 *
 * @example
 * ```ts
 * import { purged } from "./answer.ts";
 * purged([{ role: "previous_response_id", content: "r" }, { role: "user", content: "q" }]);
 * ```
 */
export function purged(chat: readonly Message[]): Chat {
  return purge(chat);
}

/**
 * The messages of one role, in order.
 *
 * @param chat messages
 * @param role role to keep
 * @returns a new array
 *
 * @example
 * ```ts
 * import { roleMessages } from "./answer.ts";
 * roleMessages([{ role: "user", content: "q" }, { role: "assistant", content: "a" }], "user");
 * ```
 */
export function roleMessages(chat: readonly Message[], role: string): Chat {
  return chat.filter((m) => String(m.role) === role);
}

/**
 * The tool-declaring messages (`introduce`, `tool`, `mcp`, `kb`).
 *
 * @param chat messages
 * @returns a new array
 *
 * @example
 * ```ts
 * import { tooling } from "./answer.ts";
 * tooling([{ role: "tool", content: "Baking" }, { role: "user", content: "q" }]); // [{ role: "tool", … }]
 * ```
 */
export function tooling(chat: readonly Message[]): Chat {
  return chat.filter((m) => TOOLING_ROLES.has(String(m.role)));
}
