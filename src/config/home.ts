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
import { ScoutError } from "../errors.ts";

/**
 * Resolves `SCOUT_HOME` (absolute), defaulting to `~/.scout`.
 *
 * @param env environment to read (default `process.env`)
 * @returns absolute path
 * @throws ScoutError `no_home` when `SCOUT_HOME` is unset and there is no home
 */
export function scoutHome(env: Record<string, string | undefined> = process.env): string {
  const h = env.SCOUT_HOME;
  if (h !== undefined && h !== "") return resolve(expandHome(h, env));
  return join(userHome(env), ".scout");
}

/**
 * The user's home directory (`HOME`, else the OS's), or null when there is
 * none: `HOME` unset and the user without a passwd entry (a container run
 * with `--user 54321`). The one place scout-ai asks the OS for a home;
 * callers that can do without one (the `~/.rbbt` jobs root, the `~` path
 * maps of job identities) skip what needs it.
 *
 * @param env environment to read
 * @returns absolute path, or null
 * @example
 * ```ts
 * import { homeDir } from "./home.ts";
 * homeDir({ HOME: "/h" }); // "/h"
 * ```
 */
export function homeDir(env: Record<string, string | undefined> = process.env): string | null {
  if (env.HOME !== undefined && env.HOME !== "") return env.HOME;
  try {
    // Bun (and Node) throw "uv_os_homedir" ENOENT when getpwuid finds no entry; Deno returns null
    const h: unknown = homedir();
    return typeof h === "string" && h !== "" ? h : null;
  } catch {
    return null;
  }
}

/**
 * The user's home directory where one is truly needed ({@link homeDir}).
 *
 * @param env environment to read
 * @returns absolute path
 * @throws ScoutError `no_home` when there is none
 * @example
 * ```ts
 * import { userHome } from "./home.ts";
 * userHome({ HOME: "/h" }); // "/h"
 * ```
 */
export function userHome(env: Record<string, string | undefined> = process.env): string {
  const h = homeDir(env);
  if (h === null) throw new ScoutError("no_home", "No home directory: set SCOUT_HOME or HOME");
  return h;
}

/**
 * Expands a leading `~/` (or a bare `~`) to the user's home.
 *
 * @param path a path
 * @param env environment to read
 * @returns the expanded path
 * @throws ScoutError `no_home` when the path starts with `~` and there is no home
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
