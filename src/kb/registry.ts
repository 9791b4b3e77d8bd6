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
import { mkdirSync, readdirSync, readFileSync, type Stats, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { expandHome } from "../config/home.ts";
import { ScoutError } from "../errors.ts";
import { cannotText } from "../util/errno_text.ts";
import { danglingLinkError } from "../util/fs.ts";
import { danglingLinkEnd, writeInPlaceSync } from "../util/in_place.ts";
import {
  parseRubyYamlWithLines,
  type RubyYamlWithLines,
  stringifyRubyYaml,
} from "../util/ruby_yaml.ts";
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

/**
 * A registry entry that names no TSV file — a database Ruby registered from
 * a block (`[!ruby/object:Proc {}, options]`): listed, never read, and
 * written back as it was.
 */
export interface UnreadableEntry {
  /** Why it cannot be read. */
  unreadable: string;
  /** Its 1-based line in the registry, when known. */
  line?: number;
  /** The entry as written (`name:` through its value), kept when the registry is rewritten. */
  text: string;
  /** Its options, as read. */
  options: DatabaseOptions;
}

/** A registry: name → entry, in file order. */
export type Registry = Map<string, RegistryEntry | UnreadableEntry>;

/**
 * Whether a registry entry names no TSV file ({@link UnreadableEntry}).
 *
 * @param entry the entry
 * @returns true for an entry that cannot be read
 */
export function isUnreadable(entry: RegistryEntry | UnreadableEntry): entry is UnreadableEntry {
  return "unreadable" in entry;
}

/**
 * The entry of a database that can be read, or the error saying why it
 * cannot, at its line of the registry.
 *
 * @param kbDir the knowledge base directory
 * @param name the database
 * @param entry its registry entry
 * @returns the entry
 * @throws ScoutError `not_available` for an {@link UnreadableEntry}
 */
export function readableEntry(
  kbDir: string,
  name: string,
  entry: RegistryEntry | UnreadableEntry,
): RegistryEntry {
  if (!isUnreadable(entry)) return entry;
  const file = registryPath(kbDir);
  throw new ScoutError("not_available", `Database "${name}" ${entry.unreadable}`, {
    file,
    ...(entry.line !== undefined ? { line: entry.line } : {}),
  });
}

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
 * Whether `path` is a regular file (following links). Only a missing entry
 * (ENOENT; ENOTDIR, a parent that is a file) is "no": a path that cannot be
 * looked at (a directory another user keeps to themselves, a link loop), a
 * directory, or a symbolic link to nothing is an error, never taken for
 * absence (R142-5: a relative TSV path that is a directory was looked for
 * in the working directory). The registry alone takes a link to nothing
 * for a registry not made yet (`dangling: "absent"`): `kb register` writes
 * through it, creating its target (R88-4).
 *
 * @throws ScoutError `io`: `Cannot look at <what> "<path>": <reason>`
 */
function isPresentFile(
  path: string,
  what: string,
  dangling: "absent" | "error" = "error",
): boolean {
  let s: Stats | undefined;
  try {
    s = statSync(path, { throwIfNoEntry: false });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException)?.code;
    if (code !== "ENOENT" && code !== "ENOTDIR") {
      throw new ScoutError("io", cannotText(`look at ${what}`, path, e), { file: path, cause: e });
    }
  }
  if (s === undefined) {
    if (dangling === "error" && danglingLinkError(path) !== null) {
      throw notFile(path, what, "it is a symbolic link to nothing");
    }
    return false;
  }
  if (s.isFile()) return true;
  throw notFile(path, what, s.isDirectory() ? "it is a directory, not a file" : "it is not a file");
}

function notFile(path: string, what: string, why: string): ScoutError {
  return new ScoutError("io", `Cannot look at ${what} "${path}": ${why}`, { file: path });
}

/** A file's text; a failure is an error naming the file and the reason. */
function readText(path: string, what: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    throw new ScoutError("io", cannotText(`read ${what}`, path, e), { file: path, cause: e });
  }
}

function parseRegistry(file: string): RubyYamlWithLines | null {
  if (!isPresentFile(file, "the knowledge-base registry", "absent")) return null;
  const text = readText(file, "the knowledge-base registry");
  let parsed: RubyYamlWithLines;
  try {
    // Unknown `!ruby/…` tags are warnings (the value is read as plain YAML); errors throw.
    parsed = parseRubyYamlWithLines(text);
  } catch (e) {
    const { text: what, line } = yamlErrorParts(e);
    throw new ScoutError(
      "invalid_input",
      `Cannot read the knowledge-base registry "${file}": ${what}`,
      { file, ...(line ? { line } : {}), cause: e },
    );
  }
  // `on:` read as true, kept as Psych reads it, said once
  if (parsed.value !== null && parsed.value !== undefined) warnBooleanScalars(text, file);
  return parsed;
}

/**
 * Reads a knowledge base's registry (empty when there is none). An entry
 * that names no TSV file (Ruby's block-registered database) is kept as an
 * {@link UnreadableEntry}, the others read as usual.
 *
 * @param kbDir the knowledge base directory
 * @returns the registry
 * @throws ScoutError `invalid_input` for unreadable YAML or a registry that
 *   is not a map, `io` for a registry that cannot be looked at or read,
 *   each naming the file
 */
export function readRegistry(kbDir: string): Registry {
  const file = registryPath(kbDir);
  const out: Registry = new Map();
  const parsed = parseRegistry(file);
  const data = parsed?.value;
  if (parsed === null || data === null || data === undefined) return out;
  if (typeof data !== "object" || Array.isArray(data)) {
    throw new ScoutError("invalid_input", `The registry "${file}" is not a YAML map`, { file });
  }
  for (const [rawName, rawValue] of Object.entries(data as Record<string, unknown>)) {
    const name = stripColon(rawName);
    const value = plainValue(rawValue);
    const [path, opts] = Array.isArray(value) ? value : [value, {}];
    const options = (opts && typeof opts === "object" ? opts : {}) as DatabaseOptions;
    if (typeof path !== "string") {
      const line = parsed.lineOf([rawName]);
      out.set(name, {
        unreadable: "is not registered from a file (a Ruby block?): it cannot be read here",
        ...(line !== undefined ? { line } : {}),
        text: parsed.entryTextOf(rawName) ?? stringifyRubyYaml({ [rawName]: rawValue }),
        options,
      });
      continue;
    }
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
  mkdirSync(join(kbDir, "config"), { recursive: true });
  // a link is written through (its target replaced atomically), as Ruby's Open.write does (R88-4)
  const file = registryPath(kbDir);
  writeInPlaceSync(danglingLinkEnd(file), Buffer.from(registryText(registry)), file);
}

/** A registry's YAML: entries in order, an {@link UnreadableEntry} as it was written. */
function registryText(registry: Registry): string {
  const value = ({ file, options }: RegistryEntry) => [
    file,
    Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
  ];
  // own keys even for `__proto__` (an assignment would set the object's prototype)
  const entries = [...registry];
  if (!entries.some(([, e]) => isUnreadable(e))) {
    return stringifyRubyYaml(
      Object.fromEntries(entries.map(([name, e]) => [name, value(e as RegistryEntry)])),
    );
  }
  // Ruby's block entry kept byte for byte among entries written one by one (R112-1)
  return entries.map(([name, e]) =>
    isUnreadable(e) ? e.text : stringifyRubyYaml(Object.fromEntries([[name, value(e)]]))
  ).join("");
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
  return isPresentFile(inKb, "the TSV file") ? inKb : resolve(expanded);
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
  if (isPresentFile(md, "the description")) return readText(md, "the description");
  const readmes = [join(kbDir, "README.md")];
  if (tsvFile) readmes.push(join(dirname(tsvFile), "README.md"));
  const readme = readmes.find((f) => isPresentFile(f, "the README"));
  if (!readme) return null;
  return readmeSections(readText(readme, "the README")).get(name.toLowerCase()) ?? null;
}
