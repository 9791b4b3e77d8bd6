/**
 * Configuration: `SCOUT_HOME`, the config store (`etc/config`, chat
 * `config:` lines) and, as they land, endpoint files (`etc/AI/<name>.yaml`).
 *
 * @module
 */
export { expandHome, scoutHome, userHome } from "./home.ts";
export { addConfigEntry, configGet, emptyConfig, loadConfig, parseConfigText } from "./store.ts";
export type { ConfigEntry, ConfigGetOptions, ConfigStore, ConfigValue } from "./store.ts";
