/**
 * Context control (`chat.md` §5.4): `clear` cuts history at the last cut
 * marker, `clean` drops empty messages (and one role), `purge`/`pull`/
 * `removeRole` take a role out. All but `pull`/`removeRole` are pure: they
 * return new arrays and never touch the input or its messages.
 *
 * @module
 */
import type { Chat, Message } from "./types.ts";
import { rubyStrip } from "./text.ts";

const TOOL_CALL_ROLES = new Set(["function_call", "function_call_output"]);
const CLEAN_ROLE_MARKERS = new Set(["clean_role", "clear_role"]);

/** Roles {@link clear} acts on (with its default cut role): each changes what comes before it. */
export const CLEAR_STAGE_ROLES: ReadonlySet<string> = new Set([
  "clear",
  "clear_tools",
  ...CLEAN_ROLE_MARKERS,
]);

/**
 * Drops the last `cutRole` message and everything before it; consumes
 * `clear_tools` (tool-call history before a `clear_tools` that is not exactly
 * `false` is dropped) and `clean_role`/`clear_role` markers (that role is
 * removed from the kept part, with empty-string messages).
 *
 * With the port's parser a bare `clear:` block survives as `{clear, ""}`
 * ([DIVERGE D8]), so it cuts too.
 *
 * @param chat messages (not modified)
 * @param cutRole the role that cuts (default `clear`; `previous_response_id` for follow-ups)
 * @returns the kept messages, in order
 *
 * @example
 * ```ts
 * import { clear } from "./clear.ts";
 * clear([
 *   { role: "user", content: "a" },
 *   { role: "clear", content: "x" },
 *   { role: "user", content: "b" },
 * ]); // [{ role: "user", content: "b" }]
 * ```
 */
export function clear(chat: readonly Message[], cutRole = "clear"): Chat {
  const kept: Chat = [];
  const cleanRoles: string[] = [];
  let dropCalls = false;
  for (let i = chat.length - 1; i >= 0; i--) {
    const m = chat[i]!;
    const role = String(m.role);
    if (role === cutRole) break;
    if (role === "clear_tools") {
      dropCalls = String(m.content) !== "false";
    } else if (TOOL_CALL_ROLES.has(role)) {
      if (!dropCalls) kept.push(m);
    } else if (CLEAN_ROLE_MARKERS.has(role)) {
      cleanRoles.push(rubyStrip(String(m.content ?? "")));
    } else {
      kept.push(m);
    }
  }
  kept.reverse();
  let out = kept;
  for (const role of cleanRoles) out = clean(out, role);
  return out;
}

/**
 * Drops messages whose content is the empty string (`null` survives) and,
 * when given, every message of `role` (or of any of `roles`). Without a role
 * nothing else is removed: Ruby's default `skip` removal is dead code ([D9];
 * `compile` drops `skip` itself).
 *
 * @param chat messages (not modified)
 * @param role a role or roles to remove as well
 * @returns the kept messages
 *
 * @example
 * ```ts
 * import { clean } from "./clear.ts";
 * clean([{ role: "user", content: "" }, { role: "skip", content: "x" }]); // [{ role: "skip", content: "x" }]
 * ```
 */
export function clean(chat: readonly Message[], role?: string | readonly string[]): Chat {
  const roles = role === undefined ? null : new Set(typeof role === "string" ? [role] : role);
  return chat.filter((m) => m.content !== "" && !(roles?.has(String(m.role)) ?? false));
}

/**
 * A copy of `chat` without the messages of `role`.
 *
 * @param chat messages (not modified)
 * @param role role to drop (default `previous_response_id`)
 * @returns the other messages
 *
 * @example
 * ```ts
 * import { purge } from "./clear.ts";
 * purge([{ role: "previous_response_id", content: "r1" }, { role: "user", content: "hi" }]);
 * // [{ role: "user", content: "hi" }]
 * ```
 */
export function purge(chat: readonly Message[], role = "previous_response_id"): Chat {
  return chat.filter((m) => String(m.role) !== role);
}

/**
 * Removes every message of `role` from `chat` **in place** and returns a copy
 * of the last one removed.
 *
 * @param chat messages (modified)
 * @param role role to pull out
 * @returns a shallow copy of the last removed message, or null if there was none
 *
 * @example
 * ```ts
 * import { pull } from "./clear.ts";
 * const chat = [{ role: "format", content: "json" }, { role: "user", content: "hi" }];
 * pull(chat, "format"); // { role: "format", content: "json" }; chat is now [{ role: "user", … }]
 * ```
 */
export function pull(chat: Message[], role: string): Message | null {
  const removed = removeRole(chat, role);
  const last = removed[removed.length - 1];
  return last === undefined ? null : { ...last };
}

/**
 * Removes every message of `role` from `chat` **in place**.
 *
 * @param chat messages (modified)
 * @param role role to remove (default `clear`)
 * @returns the removed messages, in order
 *
 * @example
 * ```ts
 * import { removeRole } from "./clear.ts";
 * const chat = [{ role: "clear", content: "x" }, { role: "user", content: "hi" }];
 * removeRole(chat); // [{ role: "clear", content: "x" }]
 * ```
 */
export function removeRole(chat: Message[], role = "clear"): Chat {
  const removed: Chat = [];
  let w = 0;
  for (const m of chat) {
    if (String(m.role) === role) removed.push(m);
    else chat[w++] = m;
  }
  chat.length = w;
  return removed;
}
