/**
 * The process's config stores: one per set of `etc/config` files read
 * (`./etc/config` of a working directory, `$SCOUT_HOME/etc/config`, … — see
 * `configFiles`), each loaded on first use, plus every entry added to it at
 * run time (a chat's `config:` lines compiled with that `cwd` and `env` and no
 * explicit store). Two homes (or two working directories) in one process each
 * get their own settings; asks with the same `cwd` and `env` share a store,
 * read once.
 *
 * @module
 */
import { configFiles, type ConfigStore, loadConfig } from "./store.ts";

const stores = new Map<string, ConfigStore>();

/**
 * The shared store of the config files seen from `cwd` with `env`, loaded
 * the first time those files are asked for (the same object afterwards: the
 * files are not read again, and entries added to it stay).
 *
 * @param env environment: where `SCOUT_HOME` is read (default `process.env`)
 * @param cwd working directory: where `./etc/config` is read (default
 *   `process.cwd()`)
 * @returns the store (same object for the same files)
 * @throws ScoutError `config` when a config file exists but cannot be read
 *
 * @example
 * ```ts ignore
 * import { processConfig } from "./process_config.ts";
 * const a = processConfig({ SCOUT_HOME: "/tmp/homeA" }, "/tmp");
 * const b = processConfig({ SCOUT_HOME: "/tmp/homeB" }, "/tmp"); // another store
 * ```
 */
export function processConfig(
  env: Record<string, string | undefined> = process.env,
  cwd: string = process.cwd(),
): ConfigStore {
  const files = configFiles({ env, cwd });
  const key = files.join("\0");
  let store = stores.get(key);
  if (store === undefined) {
    store = loadConfig({ env, cwd });
    stores.set(key, store);
  }
  return store;
}
