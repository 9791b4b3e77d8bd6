/**
 * The environment a batch job's script sets itself (`command.batch`): SLURM
 * may pass on nothing of the submitting shell's (`--export=NONE`, a site's
 * `SBATCH_EXPORT=NONE`), and without `SCOUT_HOME` the job would look for its
 * graph in the compute node's `~/.scout`. So the script exports
 * `SCOUT_HOME` (resolved) and every other `SCOUT_*` setting of the
 * submitting shell — never one named like a credential or holding a key.
 *
 * @module
 */
import { scoutHome } from "../../config/home.ts";
import { isSecretName, looksLikeKey } from "../../util/secrets.ts";

/** `SCOUT_*` variables the script never sets: the command line already holds this program. */
const NOT_PASSED = new Set(["SCOUT_AI_SELF"]);

/**
 * The variables a batch job's script exports, in a stable order:
 * `SCOUT_HOME` first (absolute, `~/.scout` when unset), then the other
 * `SCOUT_*` ones set here, by name, leaving out credentials.
 *
 * @param env the submitting environment
 * @returns `[name, value]` pairs
 *
 * @example
 * ```ts
 * import { batchEnv } from "./slurm_env.ts";
 * batchEnv({ SCOUT_HOME: "/shared/scout", SCOUT_OFFLINE: "1", SCOUT_API_KEY: "x" });
 * // [["SCOUT_HOME", "/shared/scout"], ["SCOUT_OFFLINE", "1"]]
 * ```
 */
export function batchEnv(env: Record<string, string | undefined>): [string, string][] {
  const out: [string, string][] = [["SCOUT_HOME", scoutHome(env)]];
  const names = Object.keys(env).filter((n) =>
    n.startsWith("SCOUT_") && n !== "SCOUT_HOME" && !NOT_PASSED.has(n)
  ).sort();
  for (const name of names) {
    const value = env[name];
    if (value === undefined || value === "" || isSecretName(name) || looksLikeKey(value)) continue;
    out.push([name, value]);
  }
  return out;
}
