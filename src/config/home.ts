/**
 * `SCOUT_HOME`: the root of scout-ai's user files (default `~/.scout`, shared
 * with the Ruby Scout). Config files live in `etc/`, jobs in `var/jobs/`, the
 * inference cache in `var/cache/ask/`, locks in `tmp/persist_locks/`.
 *
 * @module
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/**
 * Resolves `SCOUT_HOME` (absolute), defaulting to `~/.scout`.
 *
 * @param env environment to read (default `process.env`)
 * @returns absolute path
 */
export function scoutHome(env: Record<string, string | undefined> = process.env): string {
  const h = env.SCOUT_HOME;
  if (h !== undefined && h !== "") return resolve(expandHome(h, env));
  return join(userHome(env), ".scout");
}

/**
 * The user's home directory (`HOME`, else the OS's).
 *
 * @param env environment to read
 * @returns absolute path
 */
export function userHome(env: Record<string, string | undefined> = process.env): string {
  return env.HOME !== undefined && env.HOME !== "" ? env.HOME : homedir();
}

/**
 * Expands a leading `~/` (or a bare `~`) to the user's home.
 *
 * @param path a path
 * @param env environment to read
 * @returns the expanded path
 */
export function expandHome(
  path: string,
  env: Record<string, string | undefined> = process.env,
): string {
  if (path === "~") return userHome(env);
  if (path.startsWith("~/")) return join(userHome(env), path.slice(2));
  return path;
}
