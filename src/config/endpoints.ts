/**
 * Endpoint files (`inference.md` §1.1–1.2): named settings files
 * `etc/AI/<name>.yaml` (or a file named exactly `<name>`), searched in Scout's
 * resource order — `./etc/AI/`, `$SCOUT_HOME/etc/AI/`, `/usr/local/etc/scout/AI/`,
 * `/etc/scout/AI/` — first hit wins. One flat YAML map per file.
 *
 * @module
 */
import { readdirSync, readFileSync, type Stats } from "node:fs";
import { join, resolve } from "node:path";
import { ScoutError } from "../errors.ts";
import { exists, fileStats, isFile } from "../util/fs.ts";
import { etcDirs } from "./home.ts";
import { nearNames } from "../util/edit_distance.ts";
import type { ConfigStore } from "./store.ts";
import { configSetting } from "./store.ts";
import type { SettingSource } from "./setting_source.ts";
import { statsVouch } from "../util/racy_stat.ts";
import { yamlErrorParts } from "../util/yaml_error.ts";
import { escapeLine } from "../util/one_line.ts";
import { ENDPOINT_ENV_VARS } from "./routing_env.ts";
import type { RubyYamlWithLines } from "../util/ruby_yaml.ts";

/** Where and how to look for endpoint files. */
export interface EndpointLookupOptions {
  /** Working directory for `./etc/AI/` (default `process.cwd()`). */
  cwd?: string;
  /** Environment (for `SCOUT_HOME`; default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Explicit search directories (replaces the default order). */
  dirs?: string[];
}

/** A loaded endpoint: its name, the file it came from and its settings. */
export interface Endpoint {
  /** The endpoint name as asked for. */
  name: string;
  /** Absolute path of the file read. */
  file: string;
  /** The file's map (`provider` folded into `backend`). */
  settings: Record<string, unknown>;
  /** The line of each setting's key in the file (`backend`: that of `provider` when folded). */
  lines: Record<string, number>;
}

/**
 * The endpoint search directories in priority order.
 *
 * @param opts cwd/env or explicit dirs
 * @returns absolute directory paths (they need not exist)
 */
export function endpointDirs(opts: EndpointLookupOptions = {}): string[] {
  if (opts.dirs) return opts.dirs.map((d) => resolve(d));
  return etcDirs(opts).map((d) => join(d, "AI"));
}

/**
 * Finds the file of endpoint `name`: in each directory, `<name>.yaml`, then
 * `<name>.yml`, then a file named exactly `<name>`.
 *
 * @param name endpoint name: one file name (no `/` or `\`, no leading `.`, no
 *   control characters); any other is never found
 * @param opts where to look
 * @returns the absolute path, or null when there is none
 */
export function findEndpointFile(name: string, opts: EndpointLookupOptions = {}): string | null {
  return locateEndpoint(name, opts)?.file ?? null;
}

/** {@link findEndpointFile} with the file's stats. */
function locateEndpoint(
  name: string,
  opts: EndpointLookupOptions,
): { file: string; stats: Stats } | null {
  if (endpointNameProblem(name) !== null) return null;
  for (const dir of endpointDirs(opts)) {
    // a directory that is not there costs one probe, not one per candidate:
    // every inference looks its endpoint up, usually past a missing ./etc/AI
    if (!exists(dir)) continue;
    for (const candidate of [`${name}.yaml`, `${name}.yml`, name]) {
      const file = join(dir, candidate);
      const stats = fileStats(file);
      if (stats !== null) return { file, stats };
    }
  }
  return null;
}

/** Settings read as text: a map or a list there (`!ruby/object:Foo {}`) is an error (R88-7). */
const TEXT_SETTINGS = [
  "backend",
  "provider",
  "model",
  "url",
  "key",
  "api_version",
  "relay",
  "previous_response_id",
];

function checkTextSettings(
  settings: Record<string, unknown>,
  file: string,
  doc: RubyYamlWithLines,
): void {
  for (const name of TEXT_SETTINGS) {
    const v = settings[name];
    if (v === null || typeof v !== "object") continue;
    const line = doc.lineOf([name]);
    throw new ScoutError(
      "config",
      `Endpoint setting "${name}" must be text, got ${Array.isArray(v) ? "a list" : "a map"}`,
      line === undefined ? { file } : { file, line },
    );
  }
}

/** C0 controls, DEL and C1: never part of a setting's name. */
// deno-lint-ignore no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Why `name` cannot be an endpoint's name, or null when it can (R162-2). A
 * name is one file name in an `etc/AI` directory, as Ruby's
 * `Scout.etc.AI[name]` makes it, so any letters do (`🤖モデル`, `Müller`);
 * refused are what would make it a path or a name the listing hides: a path
 * separator (`../x`), a leading `.` (`.`, `..`, hidden files, which
 * {@link listEndpointFiles} skips) and control characters (NUL ends a path).
 */
function endpointNameProblem(name: string): string | null {
  if (name === "") return "cannot be empty";
  if (/[\/\\]/.test(name)) return 'cannot hold "/" or "\\"';
  if (name.startsWith(".")) return 'cannot start with "."';
  if (CONTROL_CHARS.test(name)) return "cannot hold control characters";
  return null;
}

/**
 * Refuses a key with control characters (R142-7): a `mod\0el:` was no
 * `model`, and as any key the pipeline does not know, it would have gone to
 * the provider as a request parameter.
 */
function checkKeys(settings: Record<string, unknown>, file: string, doc: RubyYamlWithLines): void {
  for (const key of Object.keys(settings)) {
    if (!CONTROL_CHARS.test(key)) continue;
    const line = doc.lineOf([key]);
    throw new ScoutError(
      "config",
      `Endpoint setting "${escapeLine(key)}" has control characters in its name`,
      line === undefined ? { file } : { file, line },
    );
  }
}

/**
 * Parses endpoint file text: one flat YAML map, read as Ruby's Psych reads it
 * (YAML 1.1: `no` is false, `1_000` is 1000; `util/ruby_yaml.ts`). The YAML
 * parser is loaded on first use, keeping it off the start-up path of commands
 * that never read an endpoint file. `provider:` is accepted as an alias of
 * `backend:` (`backend` wins) — the Ruby docs show `provider`, which the Ruby
 * code never reads ([TS-FIX]). An empty file (no settings) is an error
 * naming it (R142-7): it was a map of nothing, and the ask went on to fail
 * for want of what it should have set ("No API key…") without naming it.
 *
 * @param text YAML text
 * @param file path used in errors
 * @returns the settings map
 * @throws ScoutError `config` naming the file (and line) for bad YAML, an
 *   empty file, a non-map, a map or list as a text setting (`model`, `url`,
 *   …), or a key with control characters (keys reach the provider as request
 *   parameters)
 *
 * @example
 * ```ts
 * import { parseEndpointText } from "./endpoints.ts";
 * await parseEndpointText("provider: anthropic\nmodel: claude-x\n", "e.yaml");
 * // {backend: "anthropic", model: "claude-x"}
 * ```
 */
export async function parseEndpointText(
  text: string,
  file: string,
): Promise<Record<string, unknown>> {
  const { parseRubyYamlWithLines } = await import("../util/ruby_yaml.ts");
  let doc: RubyYamlWithLines;
  try {
    doc = parseRubyYamlWithLines(text);
  } catch (e) {
    const { text: what, line } = yamlErrorParts(e);
    throw new ScoutError(
      "config",
      `Cannot parse endpoint file: ${what}`,
      line === undefined ? { file, cause: e } : { file, line, cause: e },
    );
  }
  const data = doc.value;
  if (data === null || data === undefined) {
    throw new ScoutError("config", "Endpoint file has no settings (expected a map)", { file });
  }
  if (typeof data !== "object" || Array.isArray(data)) {
    throw new ScoutError("config", "Endpoint file is not a map of settings", { file });
  }
  const settings = { ...(data as Record<string, unknown>) };
  checkKeys(settings, file, doc);
  checkTextSettings(settings, file, doc);
  const lines: Record<string, number> = {};
  for (const key of Object.keys(settings)) {
    const line = doc.lineOf([key]);
    if (line !== undefined) lines[key] = line;
  }
  if ("provider" in settings) {
    if (settings.backend === undefined || settings.backend === null) {
      settings.backend = settings.provider;
      if (lines.provider !== undefined) lines.backend = lines.provider;
    }
    delete settings.provider;
    delete lines.provider;
  }
  settingLines.set(settings, lines);
  return settings;
}

/** The key lines of each parsed settings map ({@link Endpoint.lines}), kept with the map. */
const settingLines = new WeakMap<Record<string, unknown>, Record<string, number>>();

/**
 * Loads endpoint `name`.
 *
 * @param name endpoint name
 * @param opts where to look
 * @returns the endpoint
 * @throws ScoutError `endpoint_not_found` ("Endpoint not found <name>") when no file exists,
 *   or when `name` cannot be one file name (a `/` or `\`, a leading `.`, control
 *   characters), saying why
 */
export async function loadEndpoint(
  name: string,
  opts: EndpointLookupOptions = {},
): Promise<Endpoint> {
  const found = locateEndpoint(name, opts);
  if (found === null) throw endpointNotFound(name, opts);
  const { file, stats } = found;
  const settings = unchanged(parsedEndpoints.get(file), stats) ?? await readEndpoint(file, stats);
  const lines = { ...settingLines.get(settings) };
  return { name, file, settings: structuredClone(settings), lines }; // a copy per caller
}

/**
 * The error for an endpoint without a file (R128-4): as the workflow and
 * agent lookups say, where it looked, the near names among the endpoints
 * there, and the file that would make one (`$SCOUT_HOME/etc/AI/<name>.yaml`,
 * the first of explicit `dirs`).
 */
function endpointNotFound(name: string, opts: EndpointLookupOptions): ScoutError {
  const searched = endpointDirs(opts);
  const problem = endpointNameProblem(name);
  // a name the lookup refuses is never suggested, nor a file for it made (R162-2)
  const usable = listEndpointFiles(opts).map((e) => e.name)
    .filter((n) => endpointNameProblem(n) === null);
  const near = nearNames(name, usable);
  const home = opts.dirs ? searched[0] : join(etcDirs(opts)[1]!, "AI");
  const make = problem === null && home !== undefined
    ? `; make one as ${join(home, `${name}.yaml`)}`
    : "";
  return new ScoutError(
    "endpoint_not_found",
    `Endpoint not found "${escapeLine(name)}"` +
      (problem === null ? "" : `: an endpoint name is one file name, so it ${problem}`) +
      (near.length > 0
        ? `; did you mean ${near.map((n) => `"${escapeLine(n)}"`).join(" or ")}?`
        : "") +
      ` (searched ${searched.join(", ")}${make})`,
    { endpoint: name, searched },
  );
}

/**
 * Each endpoint file's last text, its parsed settings, the stats it was read
 * with and when: every inference loads its endpoint, and an unchanged file is
 * neither read nor parsed again.
 */
const parsedEndpoints = new Map<string, KnownEndpoint>();
type KnownEndpoint = { text: string; settings: Record<string, unknown>; stats: Stats; at: number };

/**
 * The remembered settings when the file's stats are those it was read with
 * (same inode, size, modification and change times) and it had not changed
 * for `RACY_MS` before that read ({@link statsVouch}): a change within the
 * file system's timestamp granularity of the read could leave every stat
 * equal ("racy" as git calls it), so such a file is read again — and its
 * text compared — until it has aged.
 */
function unchanged(known: KnownEndpoint | undefined, now: Stats): Record<string, unknown> | null {
  if (known === undefined) return null;
  const then = known.stats;
  const same = now.ino === then.ino && now.dev === then.dev && now.size === then.size &&
    now.mtimeMs === then.mtimeMs && now.ctimeMs === then.ctimeMs;
  return same && statsVouch(known.at, then) ? known.settings : null;
}

async function readEndpoint(file: string, stats: Stats): Promise<Record<string, unknown>> {
  const at = Date.now();
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new ScoutError("io", `Cannot read endpoint file: ${(e as Error).message}`, {
      file,
      cause: e,
    });
  }
  const known = parsedEndpoints.get(file);
  const settings = known?.text === text ? known.settings : await parseEndpointText(text, file);
  if (parsedEndpoints.size >= 64 && !known) parsedEndpoints.clear();
  parsedEndpoints.set(file, { text, settings, stats, at });
  return settings;
}

/**
 * Names of all endpoint files visible from `opts` (first hit per name wins),
 * sorted by name.
 *
 * @param opts where to look
 * @returns `{name, file}` records
 */
export function listEndpointFiles(
  opts: EndpointLookupOptions = {},
): Array<{ name: string; file: string }> {
  const seen = new Map<string, string>();
  for (const dir of endpointDirs(opts)) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const entry of names.sort()) {
      if (entry.startsWith(".")) continue;
      const path = join(dir, entry);
      if (!isFile(path)) continue;
      const name = entry.replace(/\.ya?ml$/, "");
      if (!seen.has(name)) seen.set(name, path);
    }
  }
  return [...seen.entries()].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
    .map(([name, file]) => ({ name, file }));
}

export { ENDPOINT_ENV_VARS };

/** Which endpoint to use and who said so. */
export interface EndpointChoice {
  /** The endpoint name; `""` means "no endpoint". */
  name: string;
  /** `option`, `config`, or `env:<VAR>`. */
  source: string;
  /** For `config`: the entry's file and line (and the variable of an `env:VAR` value). */
  at?: SettingSource;
}

/**
 * Decides the endpoint name (§1.2): the `endpoint` option → config key
 * `endpoint` (scopes `ask`, `llm`) → first set env var of
 * {@link ENDPOINT_ENV_VARS} → none.
 *
 * @param option the `endpoint` option (chat line or call), if any
 * @param store config store
 * @param env environment
 * @returns the choice, or null when nothing names an endpoint
 */
export function chooseEndpoint(
  option: unknown,
  store: ConfigStore,
  env: Record<string, string | undefined> = process.env,
): EndpointChoice | null {
  if (option !== undefined && option !== null && option !== false) {
    return { name: String(option).trim(), source: "option" };
  }
  const { value: fromConfig, source: at } = configSetting(store, "endpoint", ["ask", "llm"], {
    environment: env,
  });
  if (typeof fromConfig === "string") {
    const name = fromConfig.trim();
    return at === undefined ? { name, source: "config" } : { name, source: "config", at };
  }
  if (fromConfig === false || fromConfig === null) return null;
  for (const v of ENDPOINT_ENV_VARS) {
    const value = env[v];
    if (value !== undefined && value !== "") return { name: value.trim(), source: `env:${v}` };
  }
  return null;
}
