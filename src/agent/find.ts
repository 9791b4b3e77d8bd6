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
  agentArgument,
  type AgentLocation,
  agentRoots,
  conventionalFiles,
  type FindAgentOptions,
  isAgentPath,
  locateAgent,
} from "../config/agent_dirs.ts";
import { expandHome } from "../config/home.ts";
import { ScoutError } from "../errors.ts";
import { isDirectory } from "../util/fs.ts";

export {
  AGENT_KINDS,
  agentRoots,
  checkAgentName,
  conventionalFiles,
  isAgentPath,
} from "../config/agent_dirs.ts";
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
    throw new ScoutError("agent_not_found", `No agent directory at "${nameOrPath}"`, {
      file: resolve(cwd, expandHome(nameOrPath, env)),
    });
  }
  const dir = resolve(cwd, nameOrPath);
  const hint = isDirectory(dir)
    ? `; the directory ${dir} exists but holds none of ${AGENT_FILES.join(", ")}`
    : "";
  throw new ScoutError(
    "agent_not_found",
    `No agent found with name ${nameOrPath} (searched ${
      agentRoots({ cwd, env }).join(", ")
    })${hint}`,
    { name: nameOrPath },
  );
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
}

/**
 * Every agent under the search roots, as `agent find`/`agent ask` resolve
 * it, sorted by name. A name is listed when some directory of it
 * (`workflows/<name>` or an agent kind) holds a conventional file; its
 * path, kind and root are then the ones {@link findAgent} resolves — so an
 * empty `Agent/<name>` that shadows a populated one is listed as what runs,
 * with no files.
 *
 * @param opts cwd and env
 * @returns the agents
 */
export function listAgents(opts: FindAgentOptions = {}): AgentListing[] {
  const roots = agentRoots(opts);
  const names = new Set<string>();
  for (const kind of ["workflows", ...AGENT_KINDS]) {
    for (const root of roots) {
      for (const name of entries(join(root, kind))) {
        if (conventionalFiles(join(root, kind, name)).length > 0) names.add(name);
      }
    }
  }
  return [...names].sort((a, b) => a.localeCompare(b)).map((name) => {
    const loc = findAgent(name, opts);
    const paths = [loc.path, loc.agentDir, loc.workflowDir].filter((d): d is string => d !== null);
    const dirs = [...new Set(paths)].map((path) => ({ path, files: conventionalFiles(path) }));
    const files = [...new Set(dirs.flatMap((d) => d.files))];
    return { name, path: loc.path, kind: loc.kind, root: loc.root!, files, dirs };
  });
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => /^[A-Za-z0-9_.-]+$/.test(n) && !/^\.\.?$/.test(n));
  } catch {
    return [];
  }
}
