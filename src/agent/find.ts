/**
 * Agents on disk (`agents.md` §2.2/§2.3): {@link findAgent}, which resolves
 * a name or path or says why it cannot, and the listing of every agent
 * found. Where agents live — search roots, kind order, name validation — is
 * `config/agent_dirs.ts`, which `kb/` reads too.
 *
 * @module
 */
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  AGENT_FILES,
  AGENT_KINDS,
  AGENT_NAME_CHARS,
  agentArgument,
  type AgentLocation,
  agentRoots,
  conventionalFiles,
  type FindAgentOptions,
  isAgentNameSegment,
  isAgentPath,
  locateAgent,
} from "../config/agent_dirs.ts";
import { expandHome } from "../config/home.ts";
import { isScoutError, ScoutError } from "../errors.ts";
import { presentStats } from "../util/fs.ts";
import { escapeLine } from "../util/one_line.ts";

export {
  AGENT_KINDS,
  agentRoots,
  checkAgentName,
  conventionalFiles,
  isAgentPath,
} from "../config/agent_dirs.ts";
import { compareNames } from "../util/name_order.ts";
import { nearNames } from "../util/edit_distance.ts";
export type { AgentLocation, FindAgentOptions } from "../config/agent_dirs.ts";

/**
 * Finds an agent by name or path (§2.2; {@link locateAgent}): a path must be
 * an existing directory; a name is looked up as `workflows/<name>` and, in
 * kind order, `Agent/<name>`, `var/Agent/<name>`, `chats/Agent/<name>`,
 * `chats/<name>` under every root, then as a directory under `cwd` holding
 * agent files (`Agent/Worker`, typed without `./`).
 *
 * @param given agent name (`Worker`) or directory path (`./Agent/Worker`); trailing slashes
 *   are dropped
 * @param opts cwd and env
 * @returns the location
 * @throws ScoutError `invalid_input` for a bad name, `agent_not_found` when nothing exists
 */
export function findAgent(given: string, opts: FindAgentOptions = {}): AgentLocation {
  const found = locateAgent(given, opts);
  if (found) return found;
  const nameOrPath = agentArgument(given);
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  if (isAgentPath(nameOrPath)) {
    const file = resolve(cwd, expandHome(nameOrPath, env));
    const st = presentStats(file);
    const what = st === null
      ? ""
      : `: it is ${st.isFile() ? "a file" : "something else"}, not a directory`;
    throw new ScoutError("agent_not_found", `No agent directory at "${nameOrPath}"${what}`, {
      file,
    });
  }
  const dir = resolve(cwd, nameOrPath);
  const hint = presentStats(dir)?.isDirectory()
    ? `; the directory ${dir} exists but holds none of ${AGENT_FILES.join(", ")}`
    : "";
  // the names `agent list` shows, for a typo's "did you mean" (R128-5)
  const near = nearNames(nameOrPath, agentNames({ cwd, env }));
  throw new ScoutError(
    "agent_not_found",
    `No agent found with name ${nameOrPath}` +
      (near.length > 0 ? `; did you mean ${near.map((n) => `"${n}"`).join(" or ")}?` : "") +
      ` (searched ${agentRoots({ cwd, env }).join(", ")})${hint}`,
    { name: nameOrPath },
  );
}

/**
 * The directory `agent find` prints (§5.2, "error if none"): {@link findAgent}'s
 * path. A path given must hold one of the agent files, as a name that only a
 * directory under the working directory matches must (`agent find /etc`
 * printed `/etc`); loading by path (`agent ask ./Dir`) still takes any
 * directory (§2.3 "loading by path must return an agent"), with a warning.
 *
 * @param given agent name or directory path
 * @param opts cwd and env
 * @returns the agent's directory
 * @throws ScoutError as {@link findAgent}; `agent_not_found` for a path without agent files
 */
export function findAgentDirectory(given: string, opts: FindAgentOptions = {}): string {
  const loc = findAgent(given, opts);
  const nameOrPath = agentArgument(given);
  if (isAgentPath(nameOrPath) && conventionalFiles(loc.path).length === 0) {
    throw new ScoutError(
      "agent_not_found",
      `No agent at "${nameOrPath}": the directory ${loc.path} exists but holds none of ${
        AGENT_FILES.join(", ")
      }`,
      { file: loc.path },
    );
  }
  return loc.path;
}

/** One agent of {@link listAgents}. */
export interface AgentListing {
  /** Name (what `agent ask NAME` takes). */
  name: string;
  /** Its directory (the one `find` resolves). */
  path: string;
  /** Kind (`Agent`, `var/Agent`, `chats/Agent`, `chats`, or `workflows` when only that exists). */
  kind: string;
  /** Search root it is under. */
  root: string;
  /** The conventional files present (`start_chat`, `workflow.ts`, `agent.rb`…), of all `dirs`. */
  files: string[];
  /**
   * The directories the agent is loaded from, each with its own files: `path`
   * first, then, when `path` is `workflows/<name>` and an agent directory
   * exists too, that one (its `start_chat` and `agent.ts` are used).
   */
  dirs: { path: string; files: string[] }[];
  /**
   * Why the agent cannot be found or read (`Permission denied: "<dir>"`), as
   * `agent find NAME` reports it, or loaded (`Is a directory, not a file:
   * "<dir>/workflow.ts"`), as `agent ask NAME` does; `path`, `kind` and `root` are then where
   * its name was seen, and no files are known. Absent for an agent that resolves.
   */
  error?: string;
}

/** A directory with agent files that {@link listAgents} leaves out, and why. */
export interface SkippedAgentDirectory {
  /** The directory (`…/Agent/Müller`). */
  path: string;
  /** Why it is not an agent `agent find` could take. */
  reason: string;
}

/** Options of {@link listAgents}. */
export interface ListAgentsOptions extends FindAgentOptions {
  /**
   * Told of each kind directory (`Agent/`…) under a root that cannot be
   * listed, and of each directory with agent files left out for its name.
   */
  warn?: (message: string) => void;
  /** Told of each directory with agent files left out for its name (`Agent/Müller`), once. */
  skipped?: (dir: SkippedAgentDirectory) => void;
}

/**
 * Every agent under the search roots, as `agent find`/`agent ask` resolve
 * it, sorted by name. A name is listed when some directory of it
 * (`workflows/<name>` or an agent kind) holds a conventional file; its
 * path, kind and root are then the ones {@link findAgent} resolves — so an
 * empty `Agent/<name>` that shadows a populated one is listed as what runs,
 * with no files.
 *
 * Nothing unreadable is left out without a word: a directory of a name that
 * cannot be looked in (mode 000), or a name whose lookup meets one, is
 * listed with the `error` `agent find` gives; a kind directory that cannot be
 * listed is told to `opts.warn`. Nor is a directory with agent files whose
 * name no agent can have (`Agent/Müller`: names are ASCII, §7.2): it is told
 * to `opts.warn` and `opts.skipped` (R162-6).
 *
 * @param opts cwd, env and where warnings go
 * @returns the agents
 */
export function listAgents(opts: ListAgentsOptions = {}): AgentListing[] {
  return sightings(opts).map(([name, at]) => listing(name, at, opts));
}

/**
 * The names {@link listAgents} lists, in its order, found by the same walk of
 * the search roots but not resolved one by one (`completion --list agents`
 * runs on every TAB).
 *
 * @param opts cwd, env and where warnings go
 * @returns the agents' names
 */
export function agentNames(opts: ListAgentsOptions = {}): string[] {
  return sightings(opts).map(([name]) => name);
}

/** Each name with agent files (or unreadable) under a kind directory of a root, where first seen; sorted. */
function sightings(opts: ListAgentsOptions): [string, Seen][] {
  const roots = agentRoots(opts);
  const seen = new Map<string, Seen>();
  for (const kind of ["workflows", ...AGENT_KINDS]) {
    for (const root of roots) {
      for (const name of entries(join(root, kind), opts.warn)) {
        const dir = join(root, kind, name);
        if (!isAgentNameSegment(name)) tellSkipped(dir, opts);
        else if (!seen.has(name) && mayBeAgent(dir)) seen.set(name, { dir, kind, root });
      }
    }
  }
  return [...seen].sort(([a], [b]) => compareNames(a, b));
}

/** Tells `opts` of `dir`, a directory of a name no agent can have, when it holds agent files. */
function tellSkipped(dir: string, opts: ListAgentsOptions): void {
  if (opts.warn === undefined && opts.skipped === undefined) return; // completion: no cost
  if (!mayBeAgent(dir)) return;
  const reason = `its name is not made of ${AGENT_NAME_CHARS}`;
  opts.warn?.(`Agent directory "${escapeLine(dir)}" is not listed: ${reason}`);
  opts.skipped?.({ path: dir, reason });
}

/** Where a listed name was first seen with agent files (or unreadable). */
interface Seen {
  dir: string;
  kind: string;
  root: string;
}

/** Whether `dir` holds agent files — or cannot be looked in, so may (an unreadable agent is listed, marked). */
function mayBeAgent(dir: string): boolean {
  try {
    return conventionalFiles(dir).length > 0;
  } catch (e) {
    if (isScoutError(e) && e.code === "io") return true;
    throw e;
  }
}

function listing(name: string, at: Seen, opts: FindAgentOptions): AgentListing {
  try {
    const loc = findAgent(name, opts);
    const paths = [loc.path, loc.agentDir, loc.workflowDir].filter((d): d is string => d !== null);
    const dirs = [...new Set(paths)].map((path) => ({ path, files: conventionalFiles(path) }));
    const files = [...new Set(dirs.flatMap((d) => d.files))];
    return { name, path: loc.path, kind: loc.kind, root: loc.root!, files, dirs };
  } catch (e) {
    // unreadable, or an agent file of the wrong kind (R142-5): listed, marked with why
    if (!isScoutError(e) || e.code !== "io") throw e;
    const { dir: path, kind, root } = at;
    return { name, path, kind, root, files: [], dirs: [{ path, files: [] }], error: e.message };
  }
}

/** The names in `dir`; none when it does not exist, a warning when it cannot be read. */
function entries(dir: string, warn?: (message: string) => void): string[] {
  try {
    return readdirSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException)?.code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    const why = code === "EACCES" || code === "EPERM" ? "permission denied" : (e as Error).message;
    warn?.(`Agents in "${dir}" are not listed: ${why}`);
    return [];
  }
}
