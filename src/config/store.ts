/**
 * The configuration store (Ruby `Scout::Config`): entries `key [value] [scope…]`
 * read from `$SCOUT_HOME/etc/config` (one entry per line, `#` comments) or added
 * at run time (the chat `config:` role). Lookups name a key and an ordered list
 * of scope tokens; an entry matches when it has no scope (global) or shares a
 * token; the entry matching the earliest token wins, then global entries; among
 * equals the latest added wins.
 *
 * Plain data plus functions: a store is `{ entries: ConfigEntry[] }`.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ScoutError } from "../errors.ts";
import { scoutHome } from "./home.ts";

/** One config entry. */
export interface ConfigEntry {
  /** Key, e.g. `max_tool_chars`. */
  key: string;
  /**
   * Raw value text (`false`, `nil`, `env:A,B` are interpreted by
   * {@link configGet}); null for a line with a key only (Ruby's nil).
   */
  value: string | null;
  /** Scope tokens, e.g. `["prompt"]`; empty = global. */
  tokens: string[];
  /** Where it came from (file:line, `chat`, `cli`…). */
  source?: string;
}

/** A config store. */
export interface ConfigStore {
  /** Entries in the order they were added. */
  entries: ConfigEntry[];
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

/**
 * Loads `<home>/etc/config` (missing file → empty store).
 *
 * @param home `SCOUT_HOME` (default {@link scoutHome})
 * @returns the store
 */
export function loadConfig(home: string = scoutHome()): ConfigStore {
  const file = join(home, "etc", "config");
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return emptyConfig();
    throw new ScoutError("config", `Cannot read config file "${file}": ${(e as Error).message}`, {
      file,
    });
  }
  return { entries: parseConfigText(text, file) };
}

/**
 * Adds an entry (returns the same store, mutated: stores are the one stateful thing here).
 *
 * @param store the store
 * @param entry key, raw value (null: nil), scope tokens (default none: global) and where it came from
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
  env?: string[];
  /** Environment to read (default `process.env`). */
  environment?: Record<string, string | undefined>;
}

/** A resolved config value: a string, `false`, or `null` (`nil`). */
export type ConfigValue = string | false | null;

/**
 * Looks up `key`: best matching entry (see module doc), else the first set
 * env var of `opts.env`, else `undefined`. Values `false` → false, `nil` (or a
 * line without a value) → null,
 * `env:A,B` → the first set of those env vars (undefined if none).
 *
 * @param store the store
 * @param key key
 * @param tokens scope tokens in priority order
 * @param opts env fallbacks
 * @returns the value, or undefined when nothing is configured
 */
export function configGet(
  store: ConfigStore,
  key: string,
  tokens: readonly string[] = [],
  opts: ConfigGetOptions = {},
): ConfigValue | undefined {
  const environment = opts.environment ?? process.env;
  let best: ConfigEntry | undefined;
  let bestRank = Infinity;
  for (const e of store.entries) {
    if (e.key !== key) continue;
    let rank: number;
    if (e.tokens.length === 0) rank = tokens.length;
    else {
      rank = Infinity;
      for (const t of e.tokens) {
        const i = tokens.indexOf(t);
        if (i !== -1 && i < rank) rank = i;
      }
      if (rank === Infinity) continue;
    }
    if (rank <= bestRank) {
      best = e;
      bestRank = rank;
    }
  }
  if (best !== undefined) return interpret(best.value, environment);
  for (const name of opts.env ?? []) {
    const v = environment[name];
    if (v !== undefined && v !== "") return v;
  }
  return undefined;
}

function interpret(
  value: string | null,
  environment: Record<string, string | undefined>,
): ConfigValue | undefined {
  if (value === "false") return false;
  if (value === null || value === "nil") return null;
  if (value.startsWith("env:")) {
    for (const name of value.slice(4).split(",")) {
      const v = environment[name.trim()];
      if (v !== undefined && v !== "") return v;
    }
    return undefined;
  }
  return value;
}
