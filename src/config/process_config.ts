/**
 * The process-wide config store: the `etc/config` files (`./etc/config`,
 * `$SCOUT_HOME/etc/config`, … — see `loadConfig`), loaded on first use, plus
 * every entry added at run time (chat `config:` lines compiled without an
 * explicit store).
 *
 * @module
 */
import { type ConfigStore, loadConfig } from "./store.ts";

let processStore: ConfigStore | null = null;

/**
 * The shared store, loaded on first call from the config files seen from the
 * process's working directory.
 *
 * @param env environment used to find `SCOUT_HOME` on first load
 * @returns the store (same object on every call)
 * @throws ScoutError `config` when a config file exists but cannot be read
 */
export function processConfig(
  env: Record<string, string | undefined> = process.env,
): ConfigStore {
  processStore ??= loadConfig({ env });
  return processStore;
}
