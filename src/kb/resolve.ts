/**
 * Finding and creating knowledge bases: `kb: <name>` resolution
 * (`agents.md` §6.1/§6.2 — a workflow's `knowledge_base/`, a plain word as
 * `var/knowledge_base/<name>` under the search roots, otherwise a directory
 * path; a knowledge base without databases falls back to the agent of that
 * name's `knowledge_base/`), and registering a TSV file as a database.
 *
 * @module
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  type AgentLocation,
  agentRoots,
  checkAgentName,
  isAgentPath,
  locateAgent,
} from "../config/agent_dirs.ts";
import { expandHome } from "../config/home.ts";
import { ScoutError } from "../errors.ts";
import { isDirectory } from "../util/fs.ts";
import { withFileLockSync } from "../util/file_lock.ts";
import { type DatabaseOptions, readRegistry, registryPath, writeRegistry } from "./registry.ts";
import { databaseInfo, databaseNames, openKnowledgeBase } from "./database.ts";
import type { DatabaseInfo } from "./database.ts";

/** Working directory and environment of a lookup. */
export interface KbLookupOptions {
  /** Working directory (default `process.cwd()`). */
  cwd?: string;
  /** Environment (`SCOUT_HOME`, `SCOUT_AGENT_PATH`). */
  env?: Record<string, string | undefined>;
}

/**
 * The knowledge base of an agent found (`agents.md` §2.2 step 4): its agent
 * directory's `knowledge_base/`, else its workflow directory's; null when
 * neither exists. The one rule for loading an agent, `agent kb` and the
 * `kb: <name>` fallback.
 *
 * @param loc the agent's directories (from `locateAgent`/`findAgent`)
 * @returns the directory, or null
 *
 * @example
 * ```ts
 * import { knowledgeBaseOfAgent } from "./resolve.ts";
 * knowledgeBaseOfAgent({ agentDir: "/w/Agent/Kin", workflowDir: null }); // null unless it exists
 * ```
 */
export function knowledgeBaseOfAgent(
  loc: Pick<AgentLocation, "agentDir" | "workflowDir">,
): string | null {
  const dirs = [loc.agentDir, loc.workflowDir].filter((d): d is string => d !== null);
  return dirs.map((d) => join(d, "knowledge_base")).find((d) => isDirectory(d)) ?? null;
}

/**
 * The knowledge base of the agent called `name`: the agent `agent find
 * NAME` resolves (`config/agent_dirs.ts`), then {@link knowledgeBaseOfAgent}.
 *
 * @param name agent name (not a path)
 * @param opts cwd and env
 * @returns the directory, or null when there is no such agent or it has none
 * @throws ScoutError `invalid_input` for a bad name (`..` segments, a path)
 */
export function agentKnowledgeBase(name: string, opts: KbLookupOptions = {}): string | null {
  checkAgentName(name);
  const loc = locateAgent(name, opts);
  return loc === null ? null : knowledgeBaseOfAgent(loc);
}

/**
 * Resolves the knowledge base of a `kb: <name>` line: for a name (no `/`,
 * not `.` or `..`) a workflow's `workflows/<name>/knowledge_base`; then for
 * a plain word (`^\w+$`) `var/knowledge_base/<name>` under the search roots,
 * otherwise the path itself; when that has no databases, for a name, the
 * agent `<name>`'s knowledge base.
 *
 * @param name the token after `kb:`
 * @param opts cwd and env
 * @returns the directory
 * @throws ScoutError `not_found` when nothing with databases is found
 */
export function resolveKnowledgeBase(name: string, opts: KbLookupOptions = {}): string {
  const env = opts.env ?? process.env;
  const rs = agentRoots(opts);
  // a name, not a path (`..` is one): only a name is looked up as a workflow or an agent
  const plain = /^[\w.-]+$/.test(name) && !isAgentPath(name);
  const candidates: string[] = [];
  if (plain) { for (const r of rs) candidates.push(join(r, "workflows", name, "knowledge_base")); }
  if (/^\w+$/.test(name)) {
    for (const r of rs) candidates.push(join(r, "var", "knowledge_base", name));
  } else {
    candidates.push(resolve(opts.cwd ?? process.cwd(), expandHome(name, env)));
  }
  const hasDatabases = (d: string) =>
    isDirectory(d) && databaseNames(openKnowledgeBase(d, env)).length > 0;
  const found = candidates.find(hasDatabases);
  if (found) return found;
  const agent = plain ? agentKnowledgeBase(name, opts) : null;
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
 * the fields asked for. The path is stored absolute. The registry is read,
 * changed and rewritten under `config/registry.lock`, so processes
 * registering at once each keep their database.
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
  const entry = { file: resolve(file), options };
  // checks the header and fields before anything is written
  const info = databaseInfo(
    { dir: kbDir, registry: new Map([[name, entry]]), env: process.env },
    name,
  );
  mkdirSync(join(kbDir, "config"), { recursive: true });
  // read, changed and rewritten under a lock: two registering at once keep both (R76-3)
  withFileLockSync(registryPath(kbDir), () => {
    const registry = readRegistry(kbDir);
    registry.set(name, entry);
    writeRegistry(kbDir, registry);
  });
  return info;
}
