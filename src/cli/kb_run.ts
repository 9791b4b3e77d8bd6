/**
 * The work of `kb register|list|query` and `agent kb` (loaded lazily by
 * `kb.ts`): registering a TSV file in a knowledge base's `config/registry`,
 * listing its databases, and querying one (children, or with `--reverse`
 * parents) with the field values of each association.
 *
 * @module
 */
import { join, resolve } from "node:path";
import {
  associationDetails,
  children,
  databaseInfo,
  databaseNames,
  databaseStore,
  type KnowledgeBase,
  openKnowledgeBase,
  parents,
} from "../kb/mod.ts";
import { knowledgeBaseOfAgent, registerDatabase } from "../kb/resolve.ts";
import type { DatabaseOptions } from "../kb/registry.ts";
import { commandLineError, isScoutError, ScoutError, usageError } from "../errors.ts";
import { isDirectory } from "../util/fs.ts";
import { pathKind } from "../util/path_kind.ts";
import type { Io } from "./io.ts";
import { paint, warn, warnSink } from "./io.ts";
import { columnWidth, padToWidth } from "../util/display_width.ts";
import { jsonText } from "../util/json_text.ts";

/** Version of the `kb list --json` and `kb query --json` shapes. */
export const KB_JSON_VERSION = 1;

/** Options of `kb register`. */
export interface KbRegisterOptions {
  /** Knowledge base directory (created when missing). */
  dir: string;
  /** Database name. */
  name: string;
  /** The TSV file. */
  file: string;
  /** Source field. */
  source?: string;
  /** Target field. */
  target?: string;
  /** Info fields to keep, comma-separated. */
  fields?: string;
  /** Both directions. */
  undirected?: boolean;
  /** Description. */
  description?: string;
}

/**
 * The file of `kb register`, which the registry keeps by path and reads
 * later: `-` (stdin) or a pipe, FIFO or terminal (`<(…)`, read once) is
 * refused, as `--inline` refuses one (R94-2).
 *
 * @throws ScoutError a usage error saying why
 */
function checkKeptFile(file: string, path: string): void {
  const later = "the knowledge base keeps the path and reads it later (save it to a file first)";
  if (file === "-") throw usageError(`Cannot register "-" (stdin): ${later}`);
  if (pathKind(path) === "stream") {
    throw usageError(`Cannot register "${file}": it is a pipe or a terminal, read once; ${later}`);
  }
}

/**
 * `kb register`: checks the TSV header and writes the registry entry; the
 * file must be one that can be read again (see {@link checkKeptFile}).
 *
 * @param opts the options
 * @param io injected I/O
 * @returns exit code
 */
export function runKbRegister(opts: KbRegisterOptions, io: Io): number {
  const file = resolve(io.cwd, opts.file);
  checkKeptFile(opts.file, file);
  const options: DatabaseOptions = {};
  if (opts.source !== undefined) options.source = opts.source;
  if (opts.target !== undefined) options.target = opts.target;
  if (opts.fields !== undefined) options.fields = opts.fields.split(/,\s*/).filter(Boolean);
  if (opts.undirected) options.undirected = true;
  if (opts.description !== undefined) options.description = opts.description;
  const info = registerDatabase(
    resolve(io.cwd, opts.dir),
    opts.name,
    file,
    options,
  );
  io.stdout.write(`${info.name}\t${describe(info)}\n`);
  return 0;
}

function describe(
  info: { source: string; target: string; fields: string[]; undirected: boolean },
): string {
  const arrow = info.undirected ? "<->" : "->";
  const fields = info.fields.length ? `  [${info.fields.join(", ")}]` : "";
  return `${info.source} ${arrow} ${info.target}${fields}`;
}

/** A database as `kb list` shows it: its info once every row was read, or why it cannot be. */
function listed(kb: KnowledgeBase, name: string) {
  try {
    const info = databaseInfo(kb, name);
    databaseStore(kb, name); // every row read (the index built or found current), not only the header
    return { ...info, error: null as string | null };
  } catch (e) {
    if (!isScoutError(e)) throw e;
    return { name, error: e.message + (e.line ? ` (${e.file}:${e.line})` : "") };
  }
}

function knowledgeBaseDir(dir: string, io: Io): string {
  const abs = resolve(io.cwd, dir);
  if (!isDirectory(abs)) {
    throw new ScoutError("not_found", `Knowledge base directory not found "${dir}"`);
  }
  return abs;
}

/**
 * `kb list`: one line per database (`NAME  SOURCE -> TARGET  [fields]`), or
 * JSON. A database that cannot be read is reported and makes the exit 1.
 * Between two databases a timer turn lets a signal caught during a build
 * (synchronous: its listener waits) end the command before the next build
 * (R112-4).
 *
 * @param dir knowledge base directory
 * @param json print JSON
 * @param io injected I/O
 * @returns exit code
 */
export async function runKbList(dir: string, json: boolean, io: Io): Promise<number> {
  const kb = openKnowledgeBase(knowledgeBaseDir(dir, io), io.env, warnSink(io));
  const rows = [];
  for (const name of databaseNames(kb)) {
    if (rows.length > 0) await new Promise((r) => setTimeout(r, 0));
    rows.push(listed(kb, name));
  }
  const failed = rows.some((r) => r.error !== null);
  if (json) {
    const out = { version: KB_JSON_VERSION, knowledge_base: kb.dir, databases: rows };
    io.stdout.write(jsonText(out, 2) + "\n");
    return failed ? 1 : 0;
  }
  if (rows.length === 0) {
    warn(io, `No databases in "${dir}" (register one with 'scout-ai kb register')`);
  }
  const width = columnWidth(rows.map((r) => r.name));
  for (const r of rows) {
    if (r.error !== null) {
      io.stdout.write(
        `${padToWidth(r.name, width)}  ${paint(io, "stdout", "red", "unreadable:")} ${r.error}\n`,
      );
    } else if ("source" in r) {
      io.stdout.write(`${padToWidth(r.name, width)}  ${describe(r)}\n`);
    }
  }
  return failed ? 1 : 0;
}

/** Options of `kb query`. */
export interface KbQueryOptions {
  /** Knowledge base directory. */
  dir: string;
  /** Database. */
  database: string;
  /** Entities (sources, or targets with `reverse`). */
  entities: string[];
  /** Find the sources of target entities (keys come back `target~source`). */
  reverse?: boolean;
  /** Print JSON. */
  json?: boolean;
}

/**
 * `kb query`: the associations of the entities, one per line with the field
 * values tab-separated, or JSON (`{version, database, reverse, fields,
 * associations: [{key, source, target, values}]}`). No match is exit 0 with
 * nothing printed.
 *
 * @param opts the options
 * @param io injected I/O
 * @returns exit code
 */
export function runKbQuery(opts: KbQueryOptions, io: Io): number {
  const kb = openKnowledgeBase(knowledgeBaseDir(opts.dir, io), io.env, warnSink(io));
  const info = databaseInfo(kb, opts.database);
  const keys = opts.reverse
    ? parents(kb, opts.database, opts.entities)
    : children(kb, opts.database, opts.entities);
  const details = associationDetails(kb, opts.database, keys);
  const rows = keys.map((key) => {
    const i = key.indexOf("~");
    const [a, b] = [key.slice(0, i), key.slice(i + 1)];
    const [source, target] = opts.reverse && !info.undirected ? [b, a] : [a, b];
    return { key, source, target, values: (details[key] ?? {}) as Record<string, string> };
  });
  if (opts.json) {
    const out = {
      version: KB_JSON_VERSION,
      database: opts.database,
      reverse: Boolean(opts.reverse),
      fields: info.fields,
      associations: rows,
    };
    io.stdout.write(jsonText(out, 2) + "\n");
    return 0;
  }
  for (const r of rows) {
    const values = info.fields.map((f) => r.values[f] ?? "");
    io.stdout.write([r.key, ...values].join("\t") + "\n");
  }
  return 0;
}

/**
 * The knowledge base directory of an agent (`agent kb`): the one its
 * location gives (`knowledgeBaseOfAgent`, as loading the agent and a
 * `kb: <name>` line do), else its agent directory's `knowledge_base/`, which
 * `register` creates.
 *
 * @param name agent name or path
 * @param io injected I/O
 * @returns the directory
 * @throws ScoutError `invalid_input` for a bad name, `agent_not_found` when there is no agent
 */
export async function agentKnowledgeBaseDir(name: string, io: Io): Promise<string> {
  const { findAgent } = await import("../agent/find.ts");
  let loc: ReturnType<typeof findAgent>;
  try {
    loc = findAgent(name, { cwd: io.cwd, env: io.env });
  } catch (e) {
    // `agent kb NAME` naming no agent: a mistake of the command line, as in `agent ask`
    const bad = isScoutError(e, "agent_not_found") || isScoutError(e, "invalid_input");
    throw bad ? commandLineError(e) : e;
  }
  return knowledgeBaseOfAgent(loc) ?? join(loc.agentDir ?? loc.path, "knowledge_base");
}
