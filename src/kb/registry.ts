/**
 * A knowledge base's registry (`agents.md` §6.2): `<kb>/config/registry`, a
 * YAML map of database name → `[TSV path, options]`. Files written by Ruby
 * (`:name:` symbol keys, `:undirected:` option keys, `!ruby/…` tags, a path
 * dumped as a `str:` mapping) are read; this port writes plain string keys,
 * which both implementations read. Descriptions come from the registered
 * `description`, then `<kb>/<db>.md`, then the `# <db>` section of
 * `<kb>/README.md` (or the README beside the TSV file).
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { expandHome } from "../config/home.ts";
import { ScoutError } from "../errors.ts";
import { isFile } from "../util/fs.ts";
import { danglingLinkEnd, writeInPlaceSync } from "../util/in_place.ts";
import { parseRubyYaml, stringifyRubyYaml } from "../util/ruby_yaml.ts";
import { warnBooleanScalars } from "./registry_scalars.ts";
import { yamlErrorParts } from "../util/yaml_error.ts";

/** Options of a registered database. */
export interface DatabaseOptions {
  /** Source field (default: the key column). */
  source?: string;
  /** Target field (default: the first other column). */
  target?: string;
  /** Info fields to keep (default: every other column). */
  fields?: string[];
  /** Both directions (also when source and target are the same field). */
  undirected?: boolean;
  /** What the database holds (tool descriptions). */
  description?: string;
  /** Anything else Scout stored (`identifiers`, `namespace`…), kept as read. */
  [option: string]: unknown;
}

/** One registry entry. */
export interface RegistryEntry {
  /** The TSV file as registered (absolute, `~/…`, or relative). */
  file: string;
  /** Its options. */
  options: DatabaseOptions;
}

/** A registry: name → entry, in file order. */
export type Registry = Map<string, RegistryEntry>;

/**
 * The registry file of a knowledge base.
 *
 * @param kbDir the knowledge base directory
 * @returns `<kb>/config/registry`
 */
export function registryPath(kbDir: string): string {
  return join(kbDir, "config", "registry");
}

function stripColon(k: string): string {
  return k.startsWith(":") ? k.slice(1) : k;
}

function plainValue(v: unknown): unknown {
  if (typeof v === "string") return v.startsWith(":") && /^:\w+$/.test(v) ? v.slice(1) : v;
  if (Array.isArray(v)) return v.map(plainValue);
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    // A Ruby string with instance variables dumps as a mapping holding `str`.
    if (typeof o.str === "string") return o.str;
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [stripColon(k), plainValue(x)]));
  }
  return v;
}

/**
 * Reads a knowledge base's registry (empty when there is none).
 *
 * @param kbDir the knowledge base directory
 * @returns the registry
 * @throws ScoutError `invalid_input` for unreadable YAML or a malformed entry, naming the file
 */
export function readRegistry(kbDir: string): Registry {
  const file = registryPath(kbDir);
  const out: Registry = new Map();
  if (!isFile(file)) return out;
  let data: unknown;
  let text = "";
  try {
    text = readFileSync(file, "utf8");
    // Unknown `!ruby/…` tags are warnings (the value is read as plain YAML); errors throw.
    data = parseRubyYaml(text);
  } catch (e) {
    const { text: what, line } = yamlErrorParts(e);
    throw new ScoutError(
      "invalid_input",
      `Cannot read the knowledge-base registry "${file}": ${what}`,
      { file, ...(line ? { line } : {}), cause: e },
    );
  }
  if (data === null || data === undefined) return out;
  warnBooleanScalars(text, file); // `on:` read as true, kept as Psych reads it, said once
  if (typeof data !== "object" || Array.isArray(data)) {
    throw new ScoutError("invalid_input", `The registry "${file}" is not a YAML map`, { file });
  }
  for (const [rawName, rawValue] of Object.entries(data as Record<string, unknown>)) {
    const name = stripColon(rawName);
    const value = plainValue(rawValue);
    const [path, opts] = Array.isArray(value) ? value : [value, {}];
    if (typeof path !== "string") {
      throw new ScoutError(
        "not_available",
        `Database "${name}" in "${file}" is not registered from a file (a Ruby block?): it cannot be read here`,
        { file },
      );
    }
    const options = (opts && typeof opts === "object" ? opts : {}) as DatabaseOptions;
    if (typeof options.fields === "string") options.fields = String(options.fields).split(/,\s*/);
    out.set(name, { file: path, options });
  }
  return out;
}

/**
 * Writes a registry atomically (plain string keys); a symbolic link is
 * written through, its target replaced.
 *
 * @param kbDir the knowledge base directory
 * @param registry the registry
 */
export function writeRegistry(kbDir: string, registry: Registry): void {
  const data: Record<string, unknown> = {};
  for (const [name, { file, options }] of registry) {
    const opts = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
    data[name] = [file, opts];
  }
  mkdirSync(join(kbDir, "config"), { recursive: true });
  // a link is written through (its target replaced atomically), as Ruby's Open.write does (R88-4)
  const file = registryPath(kbDir);
  writeInPlaceSync(danglingLinkEnd(file), Buffer.from(stringifyRubyYaml(data)), file);
}

/**
 * Where a registered TSV file is: absolute and `~/` paths as they are, a
 * relative path under the knowledge base, then the working directory.
 *
 * @param kbDir the knowledge base directory
 * @param file the registered path
 * @param env environment (`HOME`)
 * @returns the path to read
 */
export function databaseFile(
  kbDir: string,
  file: string,
  env: Record<string, string | undefined> = process.env,
): string {
  const expanded = expandHome(file, env);
  if (isAbsolute(expanded)) return expanded;
  const inKb = join(kbDir, expanded);
  return isFile(inKb) ? inKb : resolve(expanded);
}

/**
 * Database names present only as Scout's TokyoCabinet files (`<db>.database`):
 * listed so they are reported, never read.
 *
 * @param kbDir the knowledge base directory
 * @returns names
 */
export function tokyoCabinetOnly(kbDir: string): string[] {
  try {
    return readdirSync(kbDir).filter((f) => f.endsWith(".database")).map((f) =>
      basename(f, ".database")
    );
  } catch {
    return [];
  }
}

/**
 * The `# <name>` sections of a README (Scout's `parse_knowledge_base_doc`):
 * lower-cased heading → trimmed text, empty sections dropped.
 *
 * @param text README text
 * @returns sections
 */
export function readmeSections(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const parts = text.split(/^# (.*)$/m);
  for (let i = 1; i + 1 < parts.length; i += 2) {
    const body = parts[i + 1]!.trim();
    if (body !== "") out.set(parts[i]!.trim().toLowerCase(), body);
  }
  return out;
}

/**
 * A database's description: registered, then `<kb>/<db>.md`, then the
 * `# <db>` section of `<kb>/README.md` or of the README beside its TSV file.
 *
 * @param kbDir the knowledge base directory
 * @param name the database
 * @param entry its registry entry
 * @param tsvFile its resolved TSV file
 * @returns the description, or null
 */
export function databaseDescription(
  kbDir: string,
  name: string,
  entry: RegistryEntry | undefined,
  tsvFile: string | null,
): string | null {
  const registered = entry?.options.description;
  if (typeof registered === "string" && registered !== "") return registered;
  const md = join(kbDir, `${name}.md`);
  if (isFile(md)) return readFileSync(md, "utf8");
  const readmes = [join(kbDir, "README.md")];
  if (tsvFile) readmes.push(join(dirname(tsvFile), "README.md"));
  const readme = readmes.find(isFile);
  if (!readme) return null;
  return readmeSections(readFileSync(readme, "utf8")).get(name.toLowerCase()) ?? null;
}
