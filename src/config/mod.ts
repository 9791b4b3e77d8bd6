/**
 * Configuration: `SCOUT_HOME`, the config store (`etc/config`, chat
 * `config:` lines) and, as they land, endpoint files (`etc/AI/<name>.yaml`).
 *
 * @module
 */
export { etcDirs, expandHome, homeDir, scoutHome, userHome } from "./home.ts";
export type { EtcDirsOptions } from "./home.ts";
export {
  addConfigEntry,
  configFiles,
  configGet,
  configSetting,
  emptyConfig,
  loadConfig,
  parseConfigText,
  tokenPriority,
} from "./store.ts";
export type {
  ConfigEntry,
  ConfigGetOptions,
  ConfigLoadOptions,
  ConfigSetting,
  ConfigStore,
  ConfigValue,
} from "./store.ts";
export {
  chooseEndpoint,
  ENDPOINT_ENV_VARS,
  endpointDirs,
  findEndpointFile,
  listEndpointFiles,
  loadEndpoint,
  parseEndpointText,
} from "./endpoints.ts";
export type { Endpoint, EndpointChoice, EndpointLookupOptions } from "./endpoints.ts";
export * from "./allow_paths.ts";
export { checkSetting, locateSetting, sourceOfEntry } from "./setting_source.ts";
export type { SettingSource } from "./setting_source.ts";
export { processConfig } from "./process_config.ts";
export { urlScopes, withUrlScopes } from "./url_scopes.ts";
export { BACKEND_ENV_VARS, PERSIST_ENV_VARS, ROUTING_ENV_VARS } from "./routing_env.ts";
