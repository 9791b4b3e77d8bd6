/**
 * The process-wide config store: `$SCOUT_HOME/etc/config`, loaded on first
 * use, plus every entry added at run time (chat `config:` lines compiled
 * without an explicit store).
 *
 * @module
 */
import { type ConfigStore, loadConfig } from "./store.ts";
import { scoutHome } from "./home.ts";

let processStore: ConfigStore | null = null;

/**
 * The shared store, loaded from `$SCOUT_HOME/etc/config` on first call.
 *
 * @param env environment used to find `SCOUT_HOME` on first load
 * @returns the store (same object on every call)
 * @throws ScoutError `config` when the config file exists but cannot be read or parsed
 */
export function processConfig(
  env: Record<string, string | undefined> = process.env,
): ConfigStore {
  processStore ??= loadConfig(scoutHome(env));
  return processStore;
}
