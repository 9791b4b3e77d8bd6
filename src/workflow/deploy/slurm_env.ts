/**
 * The environment a batch job's script sets itself (`command.batch`): SLURM
 * may pass on nothing of the submitting shell's (`--export=NONE`, a site's
 * `SBATCH_EXPORT=NONE`), and without `SCOUT_HOME` the job would look for its
 * graph in the compute node's `~/.scout`. So the script exports
 * `SCOUT_HOME` (resolved), every other `SCOUT_*` setting of the submitting
 * shell and the variables that route an ask (`ASK_ENDPOINT`, `LLM_BACKEND`,
 * `PERSIST`…: `config/routing_env.ts`), so a task asks the endpoint chosen
 * where it was submitted — never one that is a credential by its name
 * (`SCOUT_BEARER`, `…_TOKEN`) or its look (a key, a url with
 * `user:password@`, `sshpass -p …`): those are left out and named, so the
 * deploy can say so. A provider's key (`OPENAI_KEY`, `OPENAI_API_KEY`…) is
 * written into no file, and comes from the node's own environment (or
 * SLURM's copy of the submitting one, when it makes one).
 *
 * @module
 */
import { scoutHome } from "../../config/home.ts";
import { ROUTING_ENV_VARS } from "../../config/routing_env.ts";
import { isSecretName, looksLikeCredential } from "../../util/secrets.ts";

/** `SCOUT_*` variables the script never sets: the command line already holds this program. */
const NOT_PASSED = new Set(["SCOUT_AI_SELF"]);

/** Whether the script carries variable `name` (other than `SCOUT_HOME`) when set. */
function carried(name: string): boolean {
  if (ROUTING_ENV_VARS.includes(name)) return true;
  return name.startsWith("SCOUT_") && name !== "SCOUT_HOME" && !NOT_PASSED.has(name);
}

/** What a batch job's script exports, and what it leaves out as credentials. */
export interface BatchEnv {
  /** `[name, value]` pairs, in a stable order. */
  vars: [string, string][];
  /** Names of variables it would carry that are credentials, sorted. */
  withheld: string[];
}

/**
 * The variables a batch job's script exports, in a stable order:
 * `SCOUT_HOME` first (absolute, `~/.scout` when unset), then the other
 * `SCOUT_*` ones and the routing ones set here, by name, leaving out (and
 * naming) credentials: by their name ({@link isSecretName}) or their look
 * ({@link looksLikeCredential}).
 *
 * @param env the submitting environment
 * @returns the pairs, and the names left out
 *
 * @example
 * ```ts
 * import { batchEnv } from "./slurm_env.ts";
 * batchEnv({ SCOUT_HOME: "/shared/scout", ASK_ENDPOINT: "gpu", SCOUT_BEARER: "x" });
 * // { vars: [["SCOUT_HOME", "/shared/scout"], ["ASK_ENDPOINT", "gpu"]], withheld: ["SCOUT_BEARER"] }
 * ```
 */
export function batchEnv(env: Record<string, string | undefined>): BatchEnv {
  const vars: [string, string][] = [["SCOUT_HOME", scoutHome(env)]];
  const withheld: string[] = [];
  for (const name of Object.keys(env).filter(carried).sort()) {
    const value = env[name];
    if (value === undefined || value === "") continue;
    if (isSecretName(name) || looksLikeCredential(value)) withheld.push(name);
    else vars.push([name, value]);
  }
  return { vars, withheld };
}

/**
 * What a SLURM batch job records in the info of each job it computed, as
 * Scout's batch script does after a successful run (`workflow write_info
 * --recursive --force=false --check_pid "$step_path" batch_job
 * $BATCH_JOB_ID`, then `batch_system`, `batch_cpus`): this batch job's SLURM
 * id, `SLURM`, and its CPUs per task (the script's `--cpus-per-task`; SLURM's
 * default 1) — strings, as Scout's command line writes them. Nothing outside
 * a SLURM job.
 *
 * @param env the batch job's environment (`SLURM_JOB_ID`, `SLURM_CPUS_PER_TASK`)
 * @returns the fields, or `{}`
 *
 * @example
 * ```ts
 * import { batchJobFields } from "./slurm_env.ts";
 * batchJobFields({ SLURM_JOB_ID: "17", SLURM_CPUS_PER_TASK: "2" });
 * // { batch_job: "17", batch_system: "SLURM", batch_cpus: "2" }
 * ```
 */
export function batchJobFields(env: Record<string, string | undefined>): Record<string, string> {
  const id = env.SLURM_JOB_ID?.trim();
  if (id === undefined || id === "") return {};
  const cpus = env.SLURM_CPUS_PER_TASK?.trim();
  return { batch_job: id, batch_system: "SLURM", batch_cpus: cpus ? cpus : "1" };
}
