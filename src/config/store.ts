/**
 * The configuration store (Ruby `Scout::Config`): entries `key [value] [scope…]`
 * read from every `etc/config` of Scout's resource path (one entry per line,
 * `#` comments) or added at run time (the chat `config:` role). Lookups name a
 * key and an ordered list of scope tokens and match as Ruby's
 * `Scout::Config.get` does (see {@link configGet}): an entry is found only
 * through its scope tokens and its implicit `key:<key>` token, which only a
 * lookup without scopes searches — so an entry without scopes is not global,
 * no scoped lookup reads it.
 *
 * Plain data plus functions: a store is `{ entries: ConfigEntry[] }`.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ScoutError } from "../errors.ts";
import { etcDirs, type EtcDirsOptions } from "./home.ts";
import { type SettingSource, sourceOfEntry } from "./setting_source.ts";
import { warnUnreadEntry } from "./unscoped.ts";

/** One config entry. */
export interface ConfigEntry {
  /** Key, e.g. `max_tool_chars`. */
  key: string;
  /**
   * Raw value text (`false`, `nil`, `env:A,B` are interpreted by
   * {@link configGet}); null for a line with a key only (Ruby's nil).
   */
  value: string | null;
  /**
   * Scope tokens, e.g. `["prompt"]` or `["ask::5"]` (an explicit priority);
   * empty = read only by a lookup without scopes.
   */
  tokens: string[];
  /** Where it came from (file:line, `chat`, `cli`…). */
  source?: string;
}

/** A config store. */
export interface ConfigStore {
  /** Entries in the order they were added (the last added wins among equals). */
  entries: ConfigEntry[];
  /** The files {@link loadConfig} read, highest priority first. */
  files?: string[];
}

/**
 * Creates an empty store.
 *
 * @returns `{ entries: [] }`
 */
export function emptyConfig(): ConfigStore {
  return { entries: [] };
}

/**
 * Parses config text: `key [value] [scope…]` per line, whitespace-separated;
 * blank lines and `#` comments skipped (Ruby `Scout::Config.load_file`). A
 * line with a key only is an entry whose value is null (Ruby's nil).
 *
 * @param text file text
 * @param source name used in entries' `source`
 * @returns the entries
 */
export function parseConfigText(text: string, source = "config"): ConfigEntry[] {
  const out: ConfigEntry[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const [key, value, ...tokens] = line.split(/\s+/) as [string, ...string[]];
    out.push({ key, value: value ?? null, tokens, source: `${source}:${i + 1}` });
  });
  return out;
}

/** Where to look for `etc/config` files. */
export interface ConfigLoadOptions extends EtcDirsOptions {
  /** Explicit `etc` directories, highest priority first (replaces {@link etcDirs}). */
  dirs?: string[];
}

/**
 * The config files scout-ai reads, highest priority first: `config` in each
 * of {@link etcDirs} (`./etc/config`, `$SCOUT_HOME/etc/config`,
 * `/usr/local/etc/scout/config`, `/etc/scout/config`), each path once.
 *
 * @param opts cwd/env or explicit dirs
 * @returns absolute paths (they need not exist)
 */
export function configFiles(opts: ConfigLoadOptions = {}): string[] {
  const dirs = opts.dirs ? opts.dirs.map((d) => resolve(d)) : etcDirs(opts);
  return [...new Set(dirs.map((d) => join(d, "config")))];
}

/**
 * Loads every existing {@link configFiles} file, the lowest priority first
 * (Ruby `Path.setup("etc").config.find_all.reverse`), so at equal priority an
 * entry of `./etc/config` beats one of `$SCOUT_HOME/etc/config`. Missing
 * files are skipped.
 *
 * @param opts cwd/env or explicit dirs
 * @returns the store; `files` lists the files read, highest priority first
 * @throws ScoutError `config` when a file exists but cannot be read
 */
export function loadConfig(opts: ConfigLoadOptions = {}): ConfigStore {
  const entries: ConfigEntry[] = [];
  const files: string[] = [];
  for (const file of configFiles(opts).reverse()) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") continue;
      throw new ScoutError("config", `Cannot read config file "${file}": ${(e as Error).message}`, {
        file,
      });
    }
    files.unshift(file);
    entries.push(...parseConfigText(text, file));
  }
  return { entries, files };
}

/**
 * Adds an entry (returns the same store, mutated: stores are the one stateful thing here).
 *
 * @param store the store
 * @param entry key, raw value (null: nil), scope tokens (default none) and where it came from
 * @returns the store
 *
 * @example
 * ```ts
 * import { addConfigEntry, configGet, emptyConfig } from "./store.ts";
 * const store = addConfigEntry(emptyConfig(), { key: "epoch_size", value: "40", tokens: ["prompt"] });
 * configGet(store, "epoch_size", ["prompt"]); // "40"
 * ```
 */
export function addConfigEntry(
  store: ConfigStore,
  entry: { key: string; value: string | null; tokens?: string[]; source?: string },
): ConfigStore {
  const { key, value, tokens = [], source } = entry;
  store.entries.push(
    source === undefined ? { key, value, tokens } : { key, value, tokens, source },
  );
  return store;
}

/** Options of {@link configGet}. */
export interface ConfigGetOptions {
  /** Environment variables consulted, in order, when no entry matches. */
  env?: readonly string[];
  /** Environment to read (default `process.env`). */
  environment?: Record<string, string | undefined>;
}

/** A resolved config value: a string, `false`, or `null` (`nil`). */
export type ConfigValue = string | false | null;

/**
 * A token's name and priority (Ruby `Scout::Config.token_priority`; lower
 * wins): `name::N` → N (Ruby's `to_i`: a leading integer, else 0); else by
 * prefix — `workflow:` 4, `task:` 3, `file:` 2, `line:` 1, `key:` 20,
 * anything else 10.
 *
 * @param token an entry's scope token
 * @returns `[name, priority]`
 */
export function tokenPriority(token: string): [string, number] {
  const sep = token.indexOf("::");
  const name = sep === -1 ? token : token.slice(0, sep);
  const explicit = sep === -1 ? "" : token.slice(sep + 2);
  if (explicit !== "") {
    const m = /^\s*([+-]?\d+(?:_\d+)*)/.exec(explicit);
    return [name, m ? Number.parseInt(m[1]!.replaceAll("_", ""), 10) : 0];
  }
  const colon = name.indexOf(":");
  const type = colon === -1 ? name : name.slice(0, colon);
  return [name, TYPE_PRIORITY.get(type) ?? 10];
}

/** A Map: a scope token `constructor` is no member of Object.prototype (R112-5). */
const TYPE_PRIORITY = new Map([["workflow", 4], ["task", 3], ["file", 2], ["line", 1], [
  "key",
  20,
]]);

/** The best (lowest) priority at which `entry` answers lookup token `wanted`, or undefined. */
function entryPriority(entry: ConfigEntry, wanted: string): number | undefined {
  // Ruby `add_entry` appends `key:<key>` unless the entry already names it
  const keyToken = `key:${entry.key}`;
  let best: number | undefined;
  let named = false;
  for (const t of entry.tokens) {
    if (t === keyToken) named = true;
    const [name, prio] = tokenPriority(t);
    if (name === wanted && (best === undefined || prio < best)) best = prio;
  }
  if (!named && wanted === keyToken && (best === undefined || best > 20)) best = 20;
  return best;
}

/**
 * Looks up `key` as Ruby's `Scout::Config.get` does. The lookup tokens are
 * `tokens`, or `key:<key>` when there are none. Every entry of the key also
 * carries the token `key:<key>` (priority 20), so an entry without scopes
 * answers only a lookup without scopes, and such a lookup finds every entry of
 * the key. Among the entries sharing a token with the lookup (at that token's
 * {@link tokenPriority}), the lowest priority wins, then the earliest lookup
 * token, then the latest entry. Without a match: the first set env var of
 * `opts.env`, else `undefined`. Values `false` → false, `nil` (or a line
 * without a value) → null, `env:A,B` → the first set of those env vars
 * (undefined if none). (Ruby also adds `file:`/`line:` tokens naming its
 * caller's source line; scout-ai has no Ruby caller, so it adds none.) A
 * lookup with scopes that matches nothing while `etc/config` holds an entry
 * of the key without a scope warns once about that entry (`unscoped.ts`).
 *
 * @param store the store
 * @param key key
 * @param tokens scope tokens in priority order
 * @param opts env fallbacks
 * @returns the value, or undefined when nothing is configured
 *
 * @example
 * ```ts
 * import { configGet, parseConfigText } from "./store.ts";
 * const store = { entries: parseConfigText("endpoint a\nendpoint b llm\nendpoint c ask") };
 * configGet(store, "endpoint", ["ask", "llm"]); // "c": the earlier lookup token
 * configGet(store, "endpoint", ["other"]); // undefined: "a" has no scope
 * configGet(store, "endpoint"); // "c": no scopes, every entry, the last wins
 * ```
 */
export function configGet(
  store: ConfigStore,
  key: string,
  tokens: readonly string[] = [],
  opts: ConfigGetOptions = {},
): ConfigValue | undefined {
  return configSetting(store, key, tokens, opts).value;
}

/** A config value and where it came from ({@link configSetting}). */
export interface ConfigSetting {
  /** The value, as {@link configGet} returns it. */
  value: ConfigValue | undefined;
  /**
   * Where it came from: the entry's file and line, the environment variable
   * read (a fallback of `opts.env`, or an `env:VAR` entry's, with the entry's
   * line); undefined when nothing is configured.
   */
  source?: SettingSource;
}

/**
 * {@link configGet} with where its value came from (R128-1): an error about
 * the value names that file and line, or that environment variable
 * (`setting_source.ts`).
 *
 * @param store the store
 * @param key key
 * @param tokens scope tokens in priority order
 * @param opts env fallbacks
 * @returns the value and its source
 *
 * @example
 * ```ts
 * import { configSetting, parseConfigText } from "./store.ts";
 * const store = { entries: parseConfigText("backend opnai ask", "/h/etc/config") };
 * configSetting(store, "backend", ["ask"]);
 * // { value: "opnai", source: { file: "/h/etc/config", line: 1 } }
 * configSetting({ entries: [] }, "backend", ["ask"], { env: ["B"], environment: { B: "x" } });
 * // { value: "x", source: { variable: "B" } }
 * ```
 */
export function configSetting(
  store: ConfigStore,
  key: string,
  tokens: readonly string[] = [],
  opts: ConfigGetOptions = {},
): ConfigSetting {
  const environment = opts.environment ?? process.env;
  const best = configEntryFor(store, key, tokens);
  if (best !== undefined) {
    const { value, variable } = interpret(best.value, environment);
    const at = sourceOfEntry(best.source);
    return { value, source: variable === undefined ? at : { ...at, variable } };
  }
  warnUnreadEntry(store, key, tokens, environment);
  for (const name of opts.env ?? []) {
    const v = environment[name];
    if (v !== undefined && v !== "") return { value: v, source: { variable: name } };
  }
  return { value: undefined };
}

/**
 * The entry that answers a lookup of `key` with `tokens`, as
 * {@link configGet} chooses it (its value not interpreted).
 *
 * @param store the store
 * @param key key
 * @param tokens scope tokens in priority order
 * @returns the entry, or undefined when none matches
 */
export function configEntryFor(
  store: ConfigStore,
  key: string,
  tokens: readonly string[] = [],
): ConfigEntry | undefined {
  const lookup = tokens.length ? tokens : [`key:${key}`];
  let best: ConfigEntry | undefined;
  let bestPrio = Infinity;
  let bestToken = Infinity;
  for (const e of store.entries) {
    if (e.key !== key) continue;
    for (let i = 0; i < lookup.length; i++) {
      const prio = entryPriority(e, lookup[i]!);
      if (prio === undefined) continue;
      // entries come in load order: a later one wins at equal (priority, token)
      if (prio < bestPrio || (prio === bestPrio && i <= bestToken)) {
        best = e;
        bestPrio = prio;
        bestToken = i;
      }
    }
  }
  return best;
}

function interpret(
  value: string | null,
  environment: Record<string, string | undefined>,
): { value: ConfigValue | undefined; variable?: string } {
  if (value === "false") return { value: false };
  if (value === null || value === "nil") return { value: null };
  if (value.startsWith("env:")) {
    for (const name of value.slice(4).split(",")) {
      const v = environment[name.trim()];
      if (v !== undefined && v !== "") return { value: v, variable: name.trim() };
    }
    return { value: undefined };
  }
  return { value };
}
