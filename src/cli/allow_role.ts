/**
 * `--allow-role ROLES`, one flag for every command that compiles the user's
 * chat text (`chat compile`, `chat prompt`, `llm ask`, `agent
 * ask`): roles accepted besides the chat roles, as the config entry
 * `allow_roles` adds them. Compile's unknown-role error names the flag on
 * those commands only (they pass {@link ALLOW_ROLE_FLAG} as `allowRoleFlag`).
 *
 * @module
 */

/** The flag, as the unknown-role error names it. */
export const ALLOW_ROLE_FLAG = "--allow-role";

/** The flag's help line. */
export const ALLOW_ROLE_HELP =
  'accept these roles besides the chat roles (comma list; repeatable; or config "allow_roles")';

/**
 * Commander's parser of the flag: each value's roles (`todo,note` or
 * `todo note`) after the earlier ones.
 *
 * @param value one `--allow-role` value
 * @param previous the roles of the earlier ones
 * @returns all the roles so far
 * @example
 * ```ts
 * import { collectRoles } from "./allow_role.ts";
 * collectRoles("make", collectRoles("todo,note", [])); // ["todo", "note", "make"]
 * ```
 */
export function collectRoles(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(/[,\s]+/).filter((v) => v !== "")];
}
