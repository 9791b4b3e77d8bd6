/**
 * The values of a deploy rule set, checked and converted: each key is one
 * scout-ai knows (an `#SBATCH` resource) or one of Scout's it accepts and
 * ignores; each value is of its kind (a time span, a whole number, a memory
 * size, a boolean). A wrong one is an error naming the rules file, the key's
 * path (`Baking.cake.nodes`) and its line.
 *
 * @module
 */
import { ScoutError } from "../../errors.ts";
import { nearNames } from "../task_lookup.ts";

/** The resource keys a rule may set, each an `#SBATCH` line. */
export const RESOURCE_KEYS = [
  "time",
  "cpus",
  "task_cpus",
  "mem",
  "mem_per_cpu",
  "partition",
  "account",
  "qos",
  "queue",
  "gres",
  "constraints",
  "exclusive",
  "nodes",
] as const;

/**
 * Keys of Scout's orchestrator and batch templates that scout-ai accepts and
 * ignores, so a rules file shared with the Ruby Scout loads (`log`, `skip`,
 * `deploy`, `config_keys`, environment set-up, containers…).
 */
export const SCOUT_ONLY_KEYS: readonly string[] = [
  "log",
  "skip",
  "deploy",
  "config_keys",
  "resources",
  "IO",
  "io",
  "size",
  "workdir",
  "highmem",
  "licenses",
  "development",
  "env_cmd",
  "exec_cmd",
  "scout_cmd",
  "launcher",
  "modules",
  "lua_modules",
  "conda",
  "contain",
  "sync",
  "contain_and_sync",
  "singularity",
  "singularity_img",
  "singularity_opt_dir",
  "hardened",
  "wipe_container",
  "purge_deps",
  "manifest",
];

/** Resources of one job (or one chain), as merged from the rules. */
export interface JobResources {
  /** Wall time, SLURM format (`D-HH:MM:SS` / `HH:MM:SS`). */
  time?: string;
  /** CPUs per task. */
  cpus?: number;
  /** Memory per node (`2G`, `500M`). */
  mem?: string;
  /** Memory per CPU. */
  mem_per_cpu?: string;
  /** Partition. */
  partition?: string;
  /** Account. */
  account?: string;
  /** Quality of service (`queue` is an alias, as in Scout). */
  qos?: string;
  /** Generic resources (`gpu:1`). */
  gres?: string;
  /** Node features (`--constraint`). */
  constraints?: string;
  /** Whole node. */
  exclusive?: boolean;
  /** Node count (`2`, or a range `2-4`). */
  nodes?: number | string;
}

/** Where a rule set is: its rules file, its key path, and the line of a key in it. */
export interface RuleSite {
  /** The rules file. */
  file?: string;
  /** Key path of the rule set (`["Baking", "cake"]`, `["defaults"]`); empty when merged. */
  path: readonly string[];
  /** The 1-based line of a key path, when known. */
  lineOf?: (path: readonly string[]) => number | undefined;
}

/**
 * The error for a deploy rule: its message prefixed with the key's path,
 * the file and the line as fields (the CLI prints `(file:line)`).
 *
 * @param site the rule set
 * @param key the key (or undefined for the set itself)
 * @param message what is wrong
 * @returns the error
 */
export function ruleError(site: RuleSite, key: string | undefined, message: string): ScoutError {
  const path = key !== undefined ? [...site.path, key] : [...site.path];
  const line = path.length > 0 ? site.lineOf?.(path) : undefined;
  const where = path.length > 0 ? `Deploy rules ${path.join(".")}: ` : "";
  return new ScoutError("deploy_rules", `${where}${message}`, {
    ...(site.file !== undefined ? { file: site.file } : {}),
    ...(line !== undefined ? { line } : {}),
  });
}

const MEMORY = /^\d+[KMGT]?$/i;
const TRUE = /^(?:true|yes|on)$/i;
const FALSE = /^(?:false|no|off)$/i;

function isScalar(v: unknown): v is string | number {
  return typeof v === "string" || typeof v === "number";
}

function wholeNumber(v: unknown, site: RuleSite, key: string): number {
  const n = typeof v === "number" ? v : typeof v === "string" && /^\d+$/.test(v.trim()) ? +v : NaN;
  if (!Number.isInteger(n) || n < 1) {
    throw ruleError(site, key, `"${String(v)}" must be a whole number ≥ 1`);
  }
  return n;
}

function nodeCount(v: unknown, site: RuleSite, key: string): number | string {
  if (typeof v === "string" && /^[1-9]\d*-[1-9]\d*$/.test(v.trim())) return v.trim();
  return wholeNumber(v, site, key);
}

function memory(v: unknown, site: RuleSite, key: string): string {
  const s = isScalar(v) ? String(v).trim() : "";
  if (!MEMORY.test(s)) {
    throw ruleError(
      site,
      key,
      `"${String(v)}" is not a memory size (a whole number with K, M, G or T: 500M, 2G)`,
    );
  }
  return s;
}

function boolean(v: unknown, site: RuleSite, key: string): boolean {
  if (typeof v === "boolean") return v;
  if (typeof v === "string" && TRUE.test(v.trim())) return true;
  if (typeof v === "string" && FALSE.test(v.trim())) return false;
  throw ruleError(site, key, `"${String(v)}" must be true or false (yes/no)`);
}

function text(v: unknown, site: RuleSite, key: string): string {
  if (!isScalar(v)) {
    throw ruleError(site, key, `Must be one value (a word or a number), not ${kind(v)}`);
  }
  return String(v);
}

// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

/**
 * Fails on a string value with a control character (R88-8): each value is
 * written into an `#SBATCH` line of the batch script, where a newline ended
 * the line early and the rest became a line of its own (a command the node
 * runs, or a bare line after which sbatch reads no more `#SBATCH` lines).
 */
function printable(v: unknown, site: RuleSite, key: string): void {
  if (typeof v !== "string") return;
  const c = CONTROL.exec(v)?.[0];
  if (c === undefined) return;
  const code = `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
  throw ruleError(
    site,
    key,
    `${JSON.stringify(v)} contains a control character (${code}); a value must be one line of text`,
  );
}

function kind(v: unknown): string {
  return Array.isArray(v) ? "a list" : v !== null && typeof v === "object" ? "a mapping" : typeof v;
}

const KNOWN = new Set<string>([...RESOURCE_KEYS, ...SCOUT_ONLY_KEYS]);

/**
 * Fails on a key that is neither a resource nor one of Scout's keys (a typo
 * such as `cpu` would otherwise be ignored), suggesting the near ones.
 *
 * @param r the rule set
 * @param site where it is
 * @throws ScoutError `deploy_rules` naming the key
 */
export function checkKeys(r: Record<string, unknown>, site: RuleSite): void {
  for (const key of Object.keys(r)) {
    if (KNOWN.has(key)) continue;
    const near = nearNames(key, RESOURCE_KEYS);
    throw ruleError(
      site,
      key,
      `Unknown key${
        near.length > 0 ? ` (did you mean ${near.map((n) => `"${n}"`).join(" or ")}?)` : ""
      }; the keys are ${RESOURCE_KEYS.join(", ")}`,
    );
  }
}

type Converter = (v: unknown, site: RuleSite, key: string) => unknown;

/** The keys converted one by one (`cpus`/`task_cpus`, `qos`/`queue` and `time` apart). */
const CONVERT: Record<string, [keyof JobResources, Converter]> = {
  nodes: ["nodes", nodeCount],
  mem: ["mem", memory],
  mem_per_cpu: ["mem_per_cpu", memory],
  partition: ["partition", text],
  account: ["account", text],
  gres: ["gres", text],
  constraints: ["constraints", text],
  exclusive: ["exclusive", boolean],
};

/**
 * A rule set's resources, each value checked: `cpus` (or `task_cpus`) and
 * `nodes` whole numbers ≥ 1 (`nodes` also a range `2-4`), `mem` and
 * `mem_per_cpu` sizes (`500M`, `2G`), `exclusive` a boolean (`yes`/`no` as
 * well), `time` a span ({@link timeOf}), the others one word or number;
 * no value with a control character (a newline would break the batch script).
 *
 * @param r the rule set (null values count as unset)
 * @param site where it is (for errors)
 * @param timeOf converts a time span to SLURM's form, throwing on a bad one
 * @returns the resources
 * @throws ScoutError `deploy_rules` naming the key, file and line
 */
export function resourcesOf(
  r: Record<string, unknown>,
  site: RuleSite,
  timeOf: (v: unknown) => string,
): JobResources {
  const out: Record<string, unknown> = {};
  const given = (k: string) => r[k] !== undefined && r[k] !== null;
  for (const key of RESOURCE_KEYS) if (given(key)) printable(r[key], site, key);
  const cpusKey = given("cpus") ? "cpus" : given("task_cpus") ? "task_cpus" : undefined;
  if (cpusKey !== undefined) out.cpus = wholeNumber(r[cpusKey], site, cpusKey);
  const qosKey = given("qos") ? "qos" : given("queue") ? "queue" : undefined;
  if (qosKey !== undefined) out.qos = text(r[qosKey], site, qosKey);
  if (given("time")) {
    try {
      out.time = timeOf(r.time);
    } catch (e) {
      throw ruleError(site, "time", (e as Error).message);
    }
  }
  for (const [key, [field, convert]] of Object.entries(CONVERT)) {
    if (!given(key)) continue;
    out[field] = convert(r[key], site, key);
  }
  return out as JobResources;
}
