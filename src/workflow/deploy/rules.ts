/**
 * Deploy rules (`--deploy-rules FILE`, YAML), in the spirit of Scout's
 * orchestrator rules: `defaults`, per-workflow `defaults` and per-task
 * resources, and `chains` (tasks run together in one batch job).
 *
 * ```yaml
 * defaults: { time: 1h, cpus: 1, mem: 2G }
 * Baking:
 *   defaults: { partition: main }
 *   bake: { cpus: 2, time: 10m }
 * chains:
 *   prep: { workflow: Baking, tasks: whisk, mix, batter }
 * ```
 *
 * A task's rules: its own keys, then its workflow's `defaults`, then the
 * top `defaults` (the first that sets a key wins). A chain's batch job takes
 * the largest `cpus` and the sum of the `time`s of its jobs. Every rule set
 * is checked when the file is read (`rules_values.ts`), so a typo fails
 * before anything is submitted, naming the key's path and line.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { ScoutError } from "../../errors.ts";
import { yamlErrorParts } from "../../util/yaml_error.ts";
import { namedFileError } from "../../util/fs.ts";
import {
  checkKeys,
  type JobResources,
  RESOURCE_KEYS,
  resourcesOf,
  ruleError,
  type RuleSite,
} from "./rules_values.ts";
import { slurmTime, timesAsWritten, timeSeconds } from "./rules_time.ts";

export { slurmTime } from "./rules_time.ts";
export { RESOURCE_KEYS, SCOUT_ONLY_KEYS } from "./rules_values.ts";
export type { JobResources } from "./rules_values.ts";

/** A chain: tasks (`Workflow#task`) whose jobs run in one batch job. */
export interface ChainRule {
  /** Chain name. */
  name: string;
  /** Members as `Workflow#task`. */
  tasks: Set<string>;
  /** Its key path in the rules (`["chains", "prep"]`, `["Baking", "chains", "prep"]`). */
  path?: string[];
}

/** Parsed rules. */
export interface DeployRules {
  /** The raw mapping (top `defaults`, workflows, `chains`). */
  raw: Record<string, unknown>;
  /** Chains in file order. */
  chains: ChainRule[];
  /** The file they came from (for messages). */
  file?: string;
  /** The 1-based line of a key path in the file, when parsed from text. */
  lineOf?: (path: readonly string[]) => number | undefined;
}

/** Empty rules (no file). */
export const NO_RULES: DeployRules = { raw: {}, chains: [] };

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** An error about the rules file as a whole (the CLI adds `(file)`). */
function bad(file: string | undefined, message: string): ScoutError {
  return new ScoutError("deploy_rules", message, { ...(file !== undefined ? { file } : {}) });
}

function parseChains(raw: Record<string, unknown>, site: RuleSite): ChainRule[] {
  const out: ChainRule[] = [];
  const add = (path: string[], spec: unknown, wfDefault?: string) => {
    const at = { ...site, path };
    const name = path.at(-1)!;
    if (!isMap(spec)) {
      throw ruleError(at, undefined, `Chain "${name}" must be a mapping with "tasks"`);
    }
    const wf = typeof spec.workflow === "string" ? spec.workflow : wfDefault;
    const list = Array.isArray(spec.tasks)
      ? spec.tasks.map(String)
      : String(spec.tasks ?? "").split(/,\s*/);
    const tasks = new Set<string>();
    for (const t of list.filter((x) => x.trim() !== "")) {
      const [a, b] = t.trim().split("#");
      if (b !== undefined && b !== "") tasks.add(`${a}#${b}`);
      else if (wf !== undefined) tasks.add(`${wf}#${a}`);
      else {
        throw ruleError(
          at,
          "tasks",
          `Chain "${name}": task "${t}" needs a workflow (Workflow#task or workflow:)`,
        );
      }
    }
    if (tasks.size < 2) throw ruleError(at, "tasks", `Chain "${name}" needs at least two tasks`);
    out.push({ name, tasks, path });
  };
  if (raw.chains !== undefined) {
    if (!isMap(raw.chains)) {
      throw ruleError(site, "chains", `"chains" must be a mapping of chain names`);
    }
    for (const [n, spec] of Object.entries(raw.chains)) add(["chains", n], spec);
  }
  for (const [wf, v] of Object.entries(raw)) {
    if (wf === "chains" || wf === "defaults" || !isMap(v) || !isMap(v.chains)) continue;
    for (const [n, spec] of Object.entries(v.chains)) add([wf, "chains", n], spec, wf);
  }
  return out;
}

/** Top-level keys that are not workflows (Scout's `default_resources` is accepted and ignored). */
const TOP_KEYS = new Set(["defaults", "chains", "default_resources"]);

/** One rule set (`defaults`, a workflow's `defaults`, a task's), keys and values checked. */
function checkSet(r: unknown, site: RuleSite): void {
  if (r === null || r === undefined) return;
  if (!isMap(r)) {
    const [wf, key] = site.path;
    const hint = key !== undefined && key !== "defaults" &&
        (RESOURCE_KEYS as readonly string[]).includes(key)
      ? `; "${key}" here is a task name, a rule for all of ${wf}'s tasks goes under ${wf}.defaults`
      : "";
    throw ruleError(site, undefined, `Must be a mapping of rule keys (time, cpus, mem…)${hint}`);
  }
  checkKeys(r, site);
  resourcesOf(r, site, (v) => slurmTime(v, site.file));
}

/** Every rule set of the rules, so a typo fails before anything is submitted. */
function checkRules(raw: Record<string, unknown>, site: RuleSite): void {
  checkSet(raw.defaults, { ...site, path: ["defaults"] });
  for (const [wf, v] of Object.entries(raw)) {
    if (TOP_KEYS.has(wf) || v === null) continue;
    if (!isMap(v)) {
      throw ruleError(
        { ...site, path: [wf] },
        undefined,
        "Must be a mapping: a workflow's tasks (and its defaults, chains)",
      );
    }
    for (const [k, r] of Object.entries(v)) {
      if (k !== "chains") checkSet(r, { ...site, path: [wf, k] });
    }
  }
}

/**
 * Parses rules text (YAML or JSON). Every rule set is checked: a key that
 * is neither a resource nor one of Scout's, or a value of the wrong kind,
 * is an error naming the file, the key's path and its line.
 *
 * @param text the file's text
 * @param file its path (for messages)
 * @returns the rules
 * @throws ScoutError `deploy_rules` on a syntax error or a wrong key or value
 */
export async function parseRules(text: string, file?: string): Promise<DeployRules> {
  const { parseRubyYamlWithLines } = await import("../../util/ruby_yaml.ts");
  let parsed;
  try {
    parsed = parseRubyYamlWithLines(text);
  } catch (e) {
    const { text: what, line } = yamlErrorParts(e);
    throw new ScoutError("deploy_rules", `Cannot parse deploy rules: ${what}`, {
      ...(file !== undefined ? { file } : {}),
      ...(line !== undefined ? { line } : {}),
    });
  }
  const raw = parsed.value ?? {};
  if (!isMap(raw)) throw bad(file, "Deploy rules must be a mapping (defaults, workflows, chains)");
  const site: RuleSite = {
    ...(file !== undefined ? { file } : {}),
    path: [],
    lineOf: parsed.lineOf,
  };
  timesAsWritten(raw, parsed.sourceOf);
  checkRules(raw, site);
  return { raw, chains: parseChains(raw, site), ...(file ? { file } : {}), lineOf: parsed.lineOf };
}

/**
 * Reads and parses a rules file.
 *
 * @param file path
 * @param name the file as the user named it (default: `file`)
 * @returns the rules
 * @throws ScoutError `file_not_found` (`Deploy rules file not found: "<name>"`) or `io` when
 *   unreadable (R128-7: Node's raw ENOENT message, with the absolute path), `deploy_rules` when
 *   invalid
 */
export async function loadRules(file: string, name = file): Promise<DeployRules> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw namedFileError(name, e, "Deploy rules file not found");
  }
  return await parseRules(text, file);
}

function merged(rules: DeployRules, workflow: string, task: string): Record<string, unknown> {
  const raw = rules.raw;
  const wf = isMap(raw[workflow]) ? raw[workflow] as Record<string, unknown> : {};
  const layers = [wf[task], wf.defaults, raw.defaults].filter(isMap);
  const out: Record<string, unknown> = {};
  for (const layer of layers) {
    for (const [k, v] of Object.entries(layer)) if (!(k in out) && v !== null) out[k] = v;
  }
  return out;
}

/** A rule that names a task its workflow does not have: it never applies. */
export interface UnknownRuleTask {
  /** Where: `Workflow.task`, or the chain's path (`chains.prep`) for a chain's member. */
  path: string;
  /** Its line in the rules file, when known. */
  line?: number;
  /** The workflow and the task it names. */
  workflow: string;
  /** The task it names. */
  task: string;
}

/**
 * The rules naming a task that the named workflow, one of `workflows`,
 * does not have — a typo whose rules would silently never apply (a
 * workflow the graph does not use is not judged: a rules file may serve
 * several).
 *
 * @param rules the rules
 * @param workflows the workflows of the job graph
 * @returns each such rule
 */
export function unknownRuleTasks(
  rules: DeployRules,
  workflows: readonly { name: string; tasks: Record<string, unknown> }[],
): UnknownRuleTask[] {
  const out: UnknownRuleTask[] = [];
  const byName = new Map(workflows.map((w) => [w.name, w]));
  const at = (path: string[]) => rules.lineOf?.(path);
  for (const [wf, section] of Object.entries(rules.raw)) {
    const w = byName.get(wf);
    if (w === undefined || !isMap(section)) continue;
    for (const task of Object.keys(section)) {
      // own tasks: a rule for `toString` names no task of Object.prototype's (R112-5)
      if (task === "defaults" || task === "chains" || Object.hasOwn(w.tasks, task)) continue;
      const line = at([wf, task]);
      out.push({
        path: `${wf}.${task}`,
        workflow: wf,
        task,
        ...(line !== undefined ? { line } : {}),
      });
    }
  }
  for (const chain of rules.chains) {
    for (const member of chain.tasks) {
      const [wf, task] = member.split("#") as [string, string];
      const w = byName.get(wf);
      if (w === undefined || Object.hasOwn(w.tasks, task)) continue;
      const path = chain.path ?? ["chains", chain.name];
      const line = at([...path, "tasks"]);
      out.push({
        path: path.join("."),
        workflow: wf,
        task,
        ...(line !== undefined ? { line } : {}),
      });
    }
  }
  return out;
}

/**
 * The rule sets that give a task's resources, as key paths, the first that
 * sets a key winning: `Workflow.task`, `Workflow.defaults`, `defaults` —
 * those the rules have.
 *
 * @param rules the rules (none: no sets)
 * @param workflow workflow name
 * @param task task name
 * @returns the key paths
 */
export function ruleSetsOf(
  rules: DeployRules | undefined,
  workflow: string,
  task: string,
): string[] {
  if (rules === undefined) return [];
  const wf = isMap(rules.raw[workflow]) ? rules.raw[workflow] as Record<string, unknown> : {};
  return [
    ...(isMap(wf[task]) ? [`${workflow}.${task}`] : []),
    ...(isMap(wf.defaults) ? [`${workflow}.defaults`] : []),
    ...(isMap(rules.raw.defaults) ? ["defaults"] : []),
  ];
}

/**
 * A task's resources: task keys, then workflow `defaults`, then `defaults`.
 *
 * @param rules the rules
 * @param workflow workflow name
 * @param task task name
 * @returns the resources
 */
export function taskResources(rules: DeployRules, workflow: string, task: string): JobResources {
  const site = { ...(rules.file !== undefined ? { file: rules.file } : {}), path: [] };
  return resourcesOf(merged(rules, workflow, task), site, (v) => slurmTime(v, rules.file));
}

/**
 * Resources of several jobs run in one batch job: the largest `cpus`, the
 * sum of the `time`s, the first value of every other key.
 *
 * @param list each job's resources
 * @returns the combined resources
 */
export function combineResources(list: JobResources[]): JobResources {
  const out: JobResources = {};
  let time = 0;
  let timed = false;
  for (const r of list) {
    if (r.cpus !== undefined) out.cpus = Math.max(out.cpus ?? 0, r.cpus);
    if (r.time !== undefined) {
      time += timeSeconds(r.time);
      timed = true;
    }
    for (const [k, v] of Object.entries(r)) {
      if (k === "cpus" || k === "time" || k in out) continue;
      (out as Record<string, unknown>)[k] = v;
    }
  }
  if (timed) out.time = slurmTime(time);
  return out;
}

/**
 * The chain a task belongs to, if any (the first that lists it).
 *
 * @param rules the rules
 * @param workflow workflow name
 * @param task task name
 * @returns the chain name or undefined
 */
export function chainOf(rules: DeployRules, workflow: string, task: string): string | undefined {
  return rules.chains.find((c) => c.tasks.has(`${workflow}#${task}`))?.name;
}
