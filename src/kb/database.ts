/**
 * Databases of a knowledge base (`agents.md` §6.2): which TSV columns make
 * an association (Scout's defaults: source = the key column, target = the
 * first other column, the rest are fields; undirected when asked or when
 * source and target are the same field), the index built on first use and
 * rebuilt when the TSV file or the registered options change, and Scout's
 * queries: `children`, `parents` (keys reversed, as Ruby returns them) and
 * association details.
 *
 * @module
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { ScoutError } from "../errors.ts";
import { currentIndex, indexPath, vouched } from "./index_place.ts";
import {
  databaseDescription,
  databaseFile,
  type DatabaseOptions,
  readableEntry,
  readRegistry,
  type Registry,
  tokyoCabinetOnly,
} from "./registry.ts";
import type { AssociationStore } from "./store.ts";
import { INDEX_VERSION, type IndexMeta } from "./store_format.ts";
import { eachAssociation, fieldIndex, readTsvHeader, type TsvHeader } from "./tsv.ts";
import { changedAhead } from "../util/racy_stat.ts";
import { warnOnce, withWarningSink } from "../util/warn_once.ts";

export { indexCachePath, indexPath } from "./index_place.ts";

/** An open knowledge base: its directory and registry. */
export interface KnowledgeBase {
  /** The directory. */
  dir: string;
  /** Its registry (`config/registry`). */
  registry: Registry;
  /** Environment (`HOME` for `~/` paths, `SCOUT_HOME`, `TMPDIR`). */
  env: Record<string, string | undefined>;
  /**
   * Where a warning goes — an index kept only until the process exits
   * (`index_place.ts`); default: stderr, `scout-ai: warning: …`.
   */
  warn?: (message: string) => void;
}

/** What a database is, from its registry entry and its TSV header. */
export interface DatabaseInfo {
  /** Database name. */
  name: string;
  /** The TSV file read. */
  file: string;
  /** Source field. */
  source: string;
  /** Target field. */
  target: string;
  /** Info fields (the values of each association). */
  fields: string[];
  /** Both directions. */
  undirected: boolean;
  /** Description, or null. */
  description: string | null;
}

/**
 * Opens a knowledge base directory (reads its registry).
 *
 * @param dir the directory
 * @param env environment
 * @param warn where its warnings go, each once (default: the enclosing
 *   `withWarningSink`, else the process-wide sink, else stderr)
 * @returns the knowledge base
 */
export function openKnowledgeBase(
  dir: string,
  env: Record<string, string | undefined> = process.env,
  warn?: (message: string) => void,
): KnowledgeBase {
  // the registry's own warnings (an unquoted `on:`) go to `warn` too
  const registry = withWarningSink(warn, () => readRegistry(dir));
  return { dir, registry, env, ...(warn ? { warn } : {}) };
}

/**
 * Every database name: registered ones, then those present only as Scout's
 * TokyoCabinet files (not readable here; {@link databaseInfo} says so).
 *
 * @param kb the knowledge base
 * @returns names
 */
export function databaseNames(kb: KnowledgeBase): string[] {
  return [...new Set([...kb.registry.keys(), ...tokyoCabinetOnly(kb.dir)])];
}

function entryOf(kb: KnowledgeBase, name: string) {
  const entry = kb.registry.get(name);
  if (entry) return readableEntry(kb.dir, name, entry); // a Ruby block's: not_available, at its line
  if (tokyoCabinetOnly(kb.dir).includes(name)) {
    throw new ScoutError(
      "not_available",
      `Database "${name}" of "${kb.dir}" exists only as Scout's TokyoCabinet file "${name}.database", ` +
        `which cannot be read here: register its TSV file`,
      { file: join(kb.dir, `${name}.database`) },
    );
  }
  const known = databaseNames(kb);
  throw new ScoutError(
    "not_found",
    `Unknown database "${name}" in knowledge base "${kb.dir}"` +
      (known.length ? ` (databases: ${known.join(", ")})` : " (it has no databases)"),
    { file: join(kb.dir, "config", "registry") },
  );
}

function translation(spec: string | undefined): boolean {
  return typeof spec === "string" && spec.includes("=>");
}

function columns(header: TsvHeader, options: DatabaseOptions, file: string) {
  const { fields } = header;
  for (const k of ["source", "target"] as const) {
    if (translation(options[k]) || options[`${k}_format`] !== undefined) {
      throw new ScoutError(
        "not_available",
        `Identifier translation ("${options[k] ?? options[`${k}_format`]}") is not available here`,
        { file },
      );
    }
  }
  const find = (spec: string, what: string) => {
    const i = fieldIndex(fields, spec);
    if (i < 0) {
      throw new ScoutError(
        "invalid_input",
        `No ${what} field "${spec}" in "${file}" (fields: ${fields.join(", ")})`,
        { file, line: header.headerLine },
      );
    }
    return i;
  };
  let source = options.source !== undefined ? find(String(options.source), "source") : -1;
  let target = options.target !== undefined ? find(String(options.target), "target") : -1;
  if (source < 0 && target < 0) [source, target] = [0, 1];
  else if (source < 0) source = target === 0 ? 1 : 0;
  else if (target < 0) target = source === 1 ? 0 : 1;
  let info = fields.map((_, i) => i).filter((i) => i !== source && i !== target);
  if (Array.isArray(options.fields) && options.fields.length) {
    const wanted = options.fields.map((f) => find(String(f), "info"));
    info = info.filter((i) => wanted.includes(i));
  }
  const undirected = options.undirected === true || String(options.undirected) === "true" ||
    fields[source] === fields[target];
  return { source, target, info, undirected };
}

/**
 * A database's description: fields, direction, description (reads only the
 * TSV header).
 *
 * @param kb the knowledge base
 * @param name the database
 * @returns its info
 * @throws ScoutError `not_found` for an unknown database, `invalid_input` for a bad TSV header
 */
export function databaseInfo(kb: KnowledgeBase, name: string): DatabaseInfo {
  const entry = entryOf(kb, name);
  const file = databaseFile(kb.dir, entry.file, kb.env);
  const header = readTsvHeader(file);
  const c = columns(header, entry.options, file);
  return {
    name,
    file,
    source: header.fields[c.source]!,
    target: header.fields[c.target]!,
    fields: c.info.map((i) => header.fields[i]!),
    undirected: c.undirected,
    description: databaseDescription(kb.dir, name, entry, file),
  };
}

/** Open indexes by path, with what they were checked against (TSV stat, registry entry). */
const stores = new Map<string, { store: AssociationStore; checked: string }>();

/**
 * Closes every open index (they reopen on the next query).
 */
export function closeStores(): void {
  for (const s of stores.values()) s.store.close();
  stores.clear();
}

/**
 * The index of a database: opened when current, (re)built from its TSV file
 * when missing or stale (the file's size, mtime, ctime or inode, or the
 * registered options, changed) — in the knowledge base, or under
 * `$SCOUT_HOME/var/cache/kb/` when that directory refuses it, or in a
 * temporary directory removed at exit when both do, with a warning
 * (`index_place.ts`).
 *
 * @param kb the knowledge base
 * @param name the database
 * @returns the store
 */
export function databaseStore(kb: KnowledgeBase, name: string): AssociationStore {
  const entry = entryOf(kb, name);
  const file = databaseFile(kb.dir, entry.file, kb.env);
  const readAtMs = Date.now();
  let st;
  try {
    st = statSync(file);
  } catch (e) {
    throw new ScoutError(
      "not_found",
      `TSV file "${file}" of database "${name}" not found (registered in ${
        join(kb.dir, "config", "registry")
      })`,
      { cause: e },
    );
  }
  if (changedAhead(readAtMs, st)) aheadWarning(kb, file, readAtMs, st.ctimeMs);
  const path = indexPath(kb, name);
  // The TSV file unchanged and the same registry entry: the open index is current.
  const checked = JSON.stringify([file, st.size, st.mtimeMs, st.ctimeMs, st.ino, entry.options]);
  const cached = stores.get(path);
  // (not when it was built from a file changed just before: racy stats, rebuilt until aged)
  if (cached?.checked === checked && vouched(cached.store.meta)) return cached.store;
  const header = readTsvHeader(file);
  const c = columns(header, entry.options, file);
  const want: Omit<IndexMeta, "count"> = {
    version: INDEX_VERSION,
    tsv: file,
    size: st.size,
    mtimeMs: st.mtimeMs,
    ctimeMs: st.ctimeMs,
    ino: st.ino,
    readAtMs,
    optionsKey: JSON.stringify([header.fields, header.type, header.sep, c]),
    source: header.fields[c.source]!,
    target: header.fields[c.target]!,
    fields: c.info.map((i) => header.fields[i]!),
    undirected: c.undirected,
  };
  cached?.store.close();
  stores.delete(path);
  const store = currentIndex(kb, name, want, {
    each: (emit) => eachAssociation(file, header, c, emit),
  });
  stores.set(path, { store, checked });
  return store;
}

/**
 * Tells, once per file, that a TSV's change time is ahead of this clock (a
 * file server's clock ahead of this machine's): until the clock passes it,
 * its stats cannot vouch for an index (`util/racy_stat.ts`), rebuilt on each use.
 */
function aheadWarning(kb: KnowledgeBase, file: string, readAtMs: number, ctimeMs: number): void {
  const at = (ms: number) => new Date(ms).toISOString();
  warnOnce(
    `${file} changed ahead`,
    `TSV file "${file}" changed at ${at(ctimeMs)}, ahead of this machine's clock ` +
      `(${at(readAtMs)}): its index is rebuilt on each use until then`,
    kb.warn,
  );
}

/**
 * Scout's `children`: for each entity in order, the keys `entity~target`
 * (undirected databases: `entity~partner`), in key order.
 *
 * @param kb the knowledge base
 * @param name the database
 * @param entities source entities
 * @returns association keys
 */
export function children(kb: KnowledgeBase, name: string, entities: readonly string[]): string[] {
  const store = databaseStore(kb, name);
  return entities.flatMap((e) => store.match(e));
}

/**
 * Scout's `parents`: for each target entity, its associations as Ruby
 * returns them — reversed keys `target~source`.
 *
 * @param kb the knowledge base
 * @param name the database
 * @param entities target entities
 * @returns reversed association keys
 */
export function parents(kb: KnowledgeBase, name: string, entities: readonly string[]): string[] {
  const store = databaseStore(kb, name);
  return entities.flatMap((e) => store.match(e, true));
}

/**
 * Field values of associations: each known key → `{field: value}`, or with
 * `fields` the selected values in that order. Unknown keys are omitted; in
 * a directed database a reversed key (`target~source`, as `parents`
 * returns) finds its association too.
 *
 * @param kb the knowledge base
 * @param name the database
 * @param associations `source~target` keys
 * @param fields optional field selection
 * @returns key → values
 * @throws ScoutError `invalid_input` for an unknown field
 */
export function associationDetails(
  kb: KnowledgeBase,
  name: string,
  associations: readonly string[],
  fields?: readonly string[],
): Record<string, Record<string, string> | string[]> {
  const store = databaseStore(kb, name);
  const names = store.meta.fields;
  const positions = fields?.map((f) => {
    const i = fieldIndex(names, f);
    if (i < 0) {
      throw new ScoutError(
        "invalid_input",
        `Unknown field "${f}" of database "${name}" (fields: ${names.join(", ") || "none"})`,
      );
    }
    return i;
  });
  const out: Record<string, Record<string, string> | string[]> = {};
  for (const a of associations) {
    let values = store.get(a);
    if (values === null && !store.meta.undirected && a.includes("~")) {
      const i = a.indexOf("~");
      values = store.get(`${a.slice(i + 1)}~${a.slice(0, i)}`);
    }
    if (values === null) continue;
    out[a] = positions
      ? positions.map((p) => values![p] ?? "")
      : Object.fromEntries(names.map((n, i) => [n, values![i] ?? ""]));
  }
  return out;
}
