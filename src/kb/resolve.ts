/**
 * Finding and creating knowledge bases: `kb: <name>` resolution
 * (`agents.md` §6.1/§6.2 — a workflow's `knowledge_base/`, a plain word as
 * `var/knowledge_base/<name>` under the search roots, otherwise a directory
 * path; a knowledge base without databases falls back to the agent of that
 * name's `knowledge_base/`), and registering a TSV file as a database.
 *
 * @module
 */
import { resolve } from "node:path";
import { join } from "node:path";
import { expandHome, scoutHome } from "../config/home.ts";
import { ScoutError } from "../errors.ts";
import { isDirectory } from "../util/fs.ts";
import { type DatabaseOptions, readRegistry, writeRegistry } from "./registry.ts";
import { databaseInfo, databaseNames, openKnowledgeBase } from "./database.ts";
import type { DatabaseInfo } from "./database.ts";

/** Working directory and environment of a lookup. */
export interface KbLookupOptions {
  /** Working directory (default `process.cwd()`). */
  cwd?: string;
  /** Environment (`SCOUT_HOME`, `SCOUT_AGENT_PATH`). */
  env?: Record<string, string | undefined>;
}

function roots(opts: KbLookupOptions): string[] {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const extra = (env.SCOUT_AGENT_PATH ?? "").split(":").filter((p) => p.trim() !== "");
  return [
    ...new Set([
      ...extra.map((p) => resolve(cwd, expandHome(p, env))),
      resolve(cwd),
      scoutHome(env),
    ]),
  ];
}

const AGENT_KINDS = ["Agent", "var/Agent", "chats/Agent", "chats"];

/**
 * The `knowledge_base/` of the agent called `name` (Ruby's kind order: all
 * roots for `Agent/`, then `var/Agent/`…; `workflows/<name>` last), or null.
 *
 * @param name agent name
 * @param opts cwd and env
 * @returns the directory, or null
 */
export function agentKnowledgeBase(name: string, opts: KbLookupOptions = {}): string | null {
  const rs = roots(opts);
  for (const kind of AGENT_KINDS) {
    for (const r of rs) {
      const d = join(r, kind, name, "knowledge_base");
      if (isDirectory(d)) return d;
    }
  }
  for (const r of rs) {
    const d = join(r, "workflows", name, "knowledge_base");
    if (isDirectory(d)) return d;
  }
  return null;
}

/**
 * Resolves the knowledge base of a `kb: <name>` line: a workflow's
 * `workflows/<name>/knowledge_base`, then for a plain word (`^\w+$`)
 * `var/knowledge_base/<name>` under the search roots, otherwise the path
 * itself; when that has no databases, the agent `<name>`'s knowledge base.
 *
 * @param name the token after `kb:`
 * @param opts cwd and env
 * @returns the directory
 * @throws ScoutError `not_found` when nothing with databases is found
 */
export function resolveKnowledgeBase(name: string, opts: KbLookupOptions = {}): string {
  const env = opts.env ?? process.env;
  const rs = roots(opts);
  const candidates: string[] = [];
  for (const r of rs) candidates.push(join(r, "workflows", name, "knowledge_base"));
  if (/^\w+$/.test(name)) {
    for (const r of rs) candidates.push(join(r, "var", "knowledge_base", name));
  } else {
    candidates.push(resolve(opts.cwd ?? process.cwd(), expandHome(name, env)));
  }
  const hasDatabases = (d: string) =>
    isDirectory(d) && databaseNames(openKnowledgeBase(d, env)).length > 0;
  const found = candidates.find(hasDatabases);
  if (found) return found;
  const agent = /^[\w.-]+$/.test(name) ? agentKnowledgeBase(name, opts) : null;
  if (agent && hasDatabases(agent)) return agent;
  throw new ScoutError(
    "not_found",
    `Knowledge base not found "${name}" (looked for databases in ${
      [...candidates, ...(agent ? [agent] : [])].join(", ")
    })`,
  );
}

/**
 * Registers a TSV file as a database of a knowledge base (creating the
 * directory and `config/registry`), after checking that its header names
 * the fields asked for. The path is stored absolute.
 *
 * @param kbDir the knowledge base directory
 * @param name database name
 * @param file the TSV file
 * @param options source, target, undirected, description…
 * @returns the database's info
 */
export function registerDatabase(
  kbDir: string,
  name: string,
  file: string,
  options: DatabaseOptions = {},
): DatabaseInfo {
  if (!/^[^\s/~]+$/.test(name)) {
    throw new ScoutError(
      "invalid_input",
      `Invalid database name "${name}": use letters, digits, "_" or "-" (no spaces, "/" or "~")`,
    );
  }
  const abs = resolve(file);
  const registry = readRegistry(kbDir);
  registry.set(name, { file: abs, options });
  const info = databaseInfo({ dir: kbDir, registry, env: process.env }, name); // checks header, fields
  writeRegistry(kbDir, registry);
  return info;
}
