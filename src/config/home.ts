/**
 * `SCOUT_HOME`: the root of scout-ai's user files (default `~/.scout`, shared
 * with the Ruby Scout). Config files live in `etc/`, jobs in `var/jobs/`, the
 * inference cache in `var/cache/ask/`, locks in `tmp/persist_locks/`. The
 * `etc/` roots scout-ai reads settings from are {@link etcDirs}.
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

/** Where to look for Scout's `etc` files. */
export interface EtcDirsOptions {
  /** Working directory for `./etc/` (default `process.cwd()`). */
  cwd?: string;
  /** Environment (for `SCOUT_HOME`; default `process.env`). */
  env?: Record<string, string | undefined>;
}

/**
 * The `etc` directories of Scout's resource path, highest priority first
 * (scout-essentials `Path.path_maps` in `Path.map_order`, the roots scout-ai
 * models): `./etc` (`current`), `$SCOUT_HOME/etc` (`user`, `~/.scout/etc`),
 * `/usr/local/etc/scout` (`local`), `/etc/scout` (`global`). Endpoint files
 * are searched in their `AI/` subdirectories, `config` files are read from
 * all of them.
 *
 * @param opts cwd and env
 * @returns absolute directory paths (they need not exist)
 */
export function etcDirs(opts: EtcDirsOptions = {}): string[] {
  const cwd = opts.cwd ?? process.cwd();
  return [
    join(resolve(cwd), "etc"),
    join(scoutHome(opts.env ?? process.env), "etc"),
    "/usr/local/etc/scout",
    "/etc/scout",
  ];
}
