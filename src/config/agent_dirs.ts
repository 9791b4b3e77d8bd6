/**
 * Where agents live on disk (`agents.md` §2.2/§2.3), for every part that
 * looks one up — `agent/` (loading, `agent find`) and `kb/` (an agent's
 * knowledge base): the search roots (`SCOUT_AGENT_PATH`, then `./`, then
 * `$SCOUT_HOME`), Ruby's kind order (`Agent/`, `var/Agent/`, `chats/Agent/`,
 * `chats/` — all roots for one kind before the next), `workflows/<name>`
 * beside them, and name validation ([TS-FIX] §7.2: digits allowed, no
 * `.`/`..` segments, no escape from a root).
 *
 * @module
 */
import { statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { ScoutError } from "../errors.ts";
import { escapeLine } from "../util/one_line.ts";
import { fileError, presentAs, presentStats } from "../util/fs.ts";
import { expandHome, scoutHome } from "./home.ts";

/** Where agent directories live under each root, in search order. */
export const AGENT_KINDS: readonly string[] = ["Agent", "var/Agent", "chats/Agent", "chats"];

/** Files that make a directory an agent directory. */
export const AGENT_FILES: readonly string[] = [
  "start_chat",
  "workflow.ts",
  "workflow.js",
  "workflow.mjs",
  "agent.ts",
  "agent.js",
  "agent.mjs",
  "workflow.rb",
  "agent.rb",
  "python",
  "knowledge_base",
];

/** Options of the lookups: working directory and environment. */
export interface FindAgentOptions {
  /** Working directory: the `./` root and relative paths (default `process.cwd()`). */
  cwd?: string;
  /** Environment: `SCOUT_HOME`, `SCOUT_AGENT_PATH` (default `process.env`). */
  env?: Record<string, string | undefined>;
}

/** Where an agent was found. */
export interface AgentLocation {
  /** The agent's name (the directory's last segment for a path). */
  name: string;
  /** The agent directory (`Agent/<name>`…), or null when only a workflow directory exists. */
  agentDir: string | null;
  /** The workflow directory `workflows/<name>`, if one exists. */
  workflowDir: string | null;
  /** The agent's path: `workflowDir` if it exists, else `agentDir` (§2.2 step 6). */
  path: string;
  /** Kind of the agent directory (`Agent`, `var/Agent`…; `path` for a path given). */
  kind: string;
  /** The search root it was found under (null for a path given). */
  root: string | null;
}

/**
 * The search roots, highest priority first: `SCOUT_AGENT_PATH` entries
 * (colon-separated), the working directory, `$SCOUT_HOME`. Duplicates dropped.
 *
 * @param opts cwd and env
 * @returns absolute directories
 */
export function agentRoots(opts: FindAgentOptions = {}): string[] {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const extra = (env.SCOUT_AGENT_PATH ?? "").split(":").filter((p) => p.trim() !== "");
  const all = [...extra.map((p) => resolve(cwd, expandHome(p, env))), resolve(cwd), scoutHome(env)];
  return [...new Set(all)];
}

/** What an agent name's segments are made of ([TS-FIX] §7.2), as messages say it. */
export const AGENT_NAME_CHARS = 'ASCII letters, digits, "_", "." and "-"';

/**
 * Whether `segment` can be one segment of an agent name ([TS-FIX] §7.2): of
 * `[A-Za-z0-9_.-]`, not `.` or `..`. `agent list` lists the directories whose
 * names are one such segment (and says which it skips).
 *
 * @param segment one `/`-separated part of a name, or a directory's name
 * @returns true when it can
 */
export function isAgentNameSegment(segment: string): boolean {
  return /^[A-Za-z0-9_.-]+$/.test(segment) && segment !== "." && segment !== "..";
}

/**
 * Checks an agent name ([TS-FIX] §7.2): segments of `[A-Za-z0-9_.-]`
 * separated by `/`, none of them `.` or `..`. The letters are ASCII ones, and
 * the message says so (R162-6): `Müller` was told to "use letters".
 *
 * @param name the name
 * @throws ScoutError `invalid_input` naming the value
 */
export function checkAgentName(name: string): void {
  if (name !== "" && name.split("/").every(isAgentNameSegment)) return;
  throw new ScoutError(
    "invalid_input",
    `Invalid agent name "${escapeLine(name)}": use ${AGENT_NAME_CHARS} (no "." or ".." segments)`,
    { name },
  );
}

/**
 * Whether `nameOrPath` is a path rather than a name: absolute, or starting
 * with `./`, `../` or `~/`.
 *
 * @param nameOrPath the argument
 * @returns true for a path
 */
export function isAgentPath(nameOrPath: string): boolean {
  return isAbsolute(nameOrPath) || /^(\.{1,2}|~)([/\\]|$)/.test(nameOrPath);
}

/**
 * An agent argument without trailing slashes (`Agent/Helper/`, as a shell's
 * completion gives a directory, is `Agent/Helper`; `/` stays `/`).
 *
 * @param given the argument
 * @returns the name or path to look up
 */
export function agentArgument(given: string): string {
  return given.replace(/(?<=[^/])\/+$/, "");
}

/**
 * Locates an agent by name or path (§2.2): a path must be an existing
 * directory; a name is looked up as `workflows/<name>` and, in kind order,
 * `Agent/<name>`, `var/Agent/<name>`, `chats/Agent/<name>`, `chats/<name>`
 * under every root. A name that none of those resolves but that names a
 * directory under `cwd` holding agent files (`Agent/Worker`, typed without
 * `./`) is that directory, as Ruby's step 1 takes any existing path.
 *
 * Only a missing entry is "not there": a candidate that cannot be looked at
 * (a kind directory this user may not search, a symbolic link loop) would
 * decide which agent is found, and the agent directory found must be one
 * this user may look inside — else the agent would run without its start
 * chat (its system prompt, its `endpoint:`) or another one would run instead.
 *
 * @param given agent name or directory path (trailing slashes dropped)
 * @param opts cwd and env
 * @returns the location, or null when nothing exists
 * @throws ScoutError `invalid_input` for a bad name; `io` naming the path
 *   that cannot be looked at (`Permission denied: "<dir>"`)
 */
export function locateAgent(given: string, opts: FindAgentOptions = {}): AgentLocation | null {
  const nameOrPath = agentArgument(given);
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  if (isAgentPath(nameOrPath)) {
    const dir = resolve(cwd, expandHome(nameOrPath, env));
    return directoryAt(dir) ? atPath(searchable(dir)) : null;
  }
  checkAgentName(nameOrPath);
  const byName = findByName(nameOrPath, agentRoots({ cwd, env }));
  if (byName) return byName;
  const dir = resolve(cwd, nameOrPath);
  return conventionalFiles(dir).length > 0 ? atPath(dir) : null;
}

function atPath(dir: string): AgentLocation {
  const name = dir.split(sep).filter(Boolean).at(-1) ?? dir;
  return { name, agentDir: dir, workflowDir: null, path: dir, kind: "path", root: null };
}

function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

function firstDir(roots: string[], rel: string): { dir: string; root: string } | null {
  for (const root of roots) {
    const dir = join(root, rel);
    if (within(root, dir) && directoryAt(dir)) return { dir: searchable(dir), root };
  }
  return null;
}

/** The name's workflow and agent directories under the roots (§2.2 step 2), or null. */
function findByName(name: string, roots: string[]): AgentLocation | null {
  const wf = firstDir(roots, join("workflows", name));
  let found: { dir: string; root: string; kind: string } | null = null;
  for (const kind of AGENT_KINDS) {
    const hit = firstDir(roots, join(kind, name));
    if (hit) {
      found = { ...hit, kind };
      break;
    }
  }
  if (!wf && !found) return null;
  return {
    name,
    agentDir: found?.dir ?? null,
    workflowDir: wf?.dir ?? null,
    path: wf?.dir ?? found!.dir,
    kind: found?.kind ?? "workflows",
    root: (found ?? wf)!.root,
  };
}

/** The agent files that are directories; the others are files. */
const AGENT_DIRS: ReadonlySet<string> = new Set(["python", "knowledge_base"]);

/**
 * The conventional agent files a directory holds (`start_chat`, `workflow.ts`,
 * `agent.ts`, `knowledge_base/`, Ruby's `workflow.rb`…), none when it is no
 * directory. One of the wrong kind (a directory `start_chat`, a file
 * `knowledge_base`) or a link to nothing is an error naming it, not a file
 * missing (R142-5): the agent would run without its start chat or its tools.
 *
 * @param dir the directory
 * @returns the names present
 * @throws ScoutError `io` naming the directory when it cannot be looked in
 *   (`Permission denied: "<dir>"`): an unreadable directory is not an empty
 *   one; `io` naming an entry of the wrong kind (`Is a directory, not a file: "<path>"`)
 */
export function conventionalFiles(dir: string): string[] {
  if (!directoryAt(dir)) return [];
  searchable(dir);
  return AGENT_FILES.filter((f) =>
    presentAs(join(dir, f), AGENT_DIRS.has(f) ? "directory" : "file") !== null
  );
}

/** Whether `path` is a directory: false when nothing (or a file) is there; throws when it cannot be looked at. */
function directoryAt(path: string): boolean {
  return presentStats(path)?.isDirectory() ?? false;
}

/**
 * `dir`, once known to be one this user may look inside (search permission:
 * `stat` of `dir/.`), so that the absence of its files is real.
 *
 * @throws ScoutError `io` naming `dir` (`Permission denied: "<dir>"`)
 */
function searchable(dir: string): string {
  try {
    statSync(`${dir}${sep}.`);
  } catch (e) {
    throw fileError(dir, e);
  }
  return dir;
}
