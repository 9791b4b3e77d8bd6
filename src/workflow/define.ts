/**
 * The task-definition API (`workflow.md` §1, §7.1): workflows are plain data
 * built by {@link workflow} from a spec object; inputs keep Scout's type
 * names and may carry a zod schema; dependencies are {@link DepSpec} records.
 *
 * @module
 */
import { ScoutError } from "../errors.ts";
import { ownRecord } from "../util/own_record.ts";
import { isScoutType, type ScoutType } from "./types.ts";
import { missingDepMessage, taskOf } from "./task_lookup.ts";
import { checkTaskKeys, definitionWarnings } from "./define_checks.ts";
import { warnOnce } from "../util/warn_once.ts";

export { depTaskOf, nearNames, taskOf } from "./task_lookup.ts";
export { selectOptionsOf } from "./input_type.ts";

export type {
  DepOptions,
  DepSpec,
  FromDep,
  FromInput,
  Helper,
  InputDef,
  InputSchema,
  InputSpec,
  Task,
  TaskSpec,
  Workflow,
  WorkflowDocumentation,
  WorkflowExports,
  WorkflowSpec,
} from "./job_types.ts";
import type {
  DepSpec,
  InputDef,
  InputSpec,
  Task,
  TaskSpec,
  Workflow,
  WorkflowExports,
  WorkflowSpec,
} from "./job_types.ts";

const registry = new Map<string, Workflow>();

function checkName(kind: string, name: string, where: string): void {
  if (/^\d+$/.test(name)) {
    throw new ScoutError(
      "invalid_input",
      `${kind} name "${name}" in ${where} is integer-like (JavaScript would reorder it)`,
    );
  }
  if (name === "" || /[/\\]/.test(name)) {
    throw new ScoutError("invalid_input", `${kind} name "${name}" in ${where} is not valid`);
  }
}

/**
 * The entries of a map of names a workflow author wrote (tasks, inputs). A
 * literal `__proto__: {…}` defines no key: in every runtime it sets the
 * map's prototype, so the task or input would be missing without a word;
 * refused, naming the way to write it (a computed key `["__proto__"]`).
 */
function ownEntries<T>(map: Record<string, T>, what: string): [string, T][] {
  const proto = Object.getPrototypeOf(map);
  if (proto !== Object.prototype && proto !== null) {
    throw new ScoutError(
      "invalid_input",
      `The ${what} are written with \`__proto__: …\`, which names none (JavaScript sets the ` +
        `object's prototype): write ["__proto__"]: … for one called __proto__`,
    );
  }
  return Object.entries(map);
}

function normaliseDep(d: DepSpec | string, where: string): DepSpec {
  const dep = typeof d === "string" ? { task: d } : d;
  if (dep === null || typeof dep !== "object" || typeof dep.task !== "string") {
    throw new ScoutError("invalid_input", `Dependency of ${where} must name a task`);
  }
  return dep;
}

function normaliseTask(wf: string, name: string, spec: TaskSpec): Task {
  const where = `task "${wf}/${name}"`;
  checkName("Task", name, `workflow "${wf}"`);
  if (spec === null || typeof spec !== "object" || typeof spec.run !== "function") {
    throw new ScoutError("invalid_input", `Task "${wf}/${name}" needs a run(inputs, job) function`);
  }
  checkTaskKeys(spec, wf, name);
  const type = spec.type ?? "binary";
  if (!isScoutType(type)) {
    throw new ScoutError("invalid_input", `Unknown type "${type}" of ${where}`);
  }
  const inputs: InputDef[] = [];
  for (const [iname, ispec] of ownEntries(spec.inputs ?? {}, `inputs of ${where}`)) {
    checkName("Input", iname, where);
    if (ispec === null || typeof ispec !== "object" || !isScoutType(String(ispec.type))) {
      throw new ScoutError(
        "invalid_input",
        `Input "${iname}" of ${where} has unknown type "${(ispec as InputSpec)?.type}"`,
      );
    }
    inputs.push({ ...ispec, name: iname });
  }
  return {
    name,
    workflow: wf,
    type,
    inputs,
    deps: (spec.deps ?? []).map((d) => normaliseDep(d, where)),
    description: spec.description ?? "",
    ...(spec.returns !== undefined ? { returns: spec.returns } : {}),
    extension: spec.extension ?? null,
    run: spec.run,
  };
}

function normaliseExports(
  spec: WorkflowSpec["exports"],
  tasks: Record<string, Task>,
  wf: string,
): WorkflowExports {
  const out: WorkflowExports = { exec: [], synchronous: [], asynchronous: [], stream: [] };
  for (const [kind, names] of Object.entries(spec ?? {})) {
    // own keys: a list or task called `toString` is no member of Object.prototype (R112-5)
    if (!Object.hasOwn(out, kind)) {
      throw new ScoutError("invalid_input", `Unknown export list "${kind}" in workflow "${wf}"`);
    }
    for (const n of names ?? []) {
      if (!Object.hasOwn(tasks, n)) {
        throw new ScoutError(
          "task_not_found",
          `Exported task "${n}" not found in workflow "${wf}"`,
        );
      }
      for (const list of Object.values(out) as string[][]) {
        const i = list.indexOf(n);
        if (i >= 0) list.splice(i, 1);
      }
      out[kind as keyof WorkflowExports].push(n);
    }
  }
  return out;
}

/**
 * Defines a workflow (and registers it by name, so dependencies may name it).
 * What Scout loads all the same is warned about, once (where warnings go,
 * `withWarningSink`): a default that does not fit its input's type or a
 * select's options, a dependency's `{fromInput}` naming an input the task
 * does not declare.
 *
 * @param name workflow name (first segment of job paths)
 * @param spec tasks, helpers, exports, documentation, jobs directory
 * @returns the workflow
 *
 * @example
 * ```ts
 * import { input, workflow } from "./define.ts";
 * const wf = workflow("Baking", {
 *   tasks: {
 *     whisk: {
 *       type: "string",
 *       inputs: { eggs: input.integer({ default: 2 }), style: input.select(["soft", "hard"], { default: "soft" }) },
 *       run: ({ eggs, style }) => `Whisked ${eggs} ${style}`,
 *     },
 *   },
 * });
 * wf.tasks.whisk!.inputs.map((i) => i.name); // ["eggs", "style"]
 * ```
 */
export function workflow(name: string, spec: WorkflowSpec): Workflow {
  if (typeof name !== "string") {
    // `workflow({ tasks })`: the spec where the name goes
    const given = name !== null && typeof name === "object" ? "an object" : typeof name;
    throw new ScoutError(
      "invalid_input",
      `The workflow's name is missing: workflow() was given ${given} where its name goes; ` +
        'write workflow("Name", { tasks: {…} }), or default-export the { tasks } object ' +
        "to name the workflow after its directory",
    );
  }
  checkName("Workflow", name, "workflow()");
  if (spec === null || typeof spec !== "object" || typeof spec.tasks !== "object") {
    throw new ScoutError("invalid_input", `Workflow "${name}" needs a tasks object`);
  }
  // without a prototype: under Bun (the binary) a task `["__proto__"]` assigned into a plain
  // `{}` became the prototype of the tasks, no task; `constructor` reads as none unless defined
  const tasks = ownRecord<Task>();
  for (const [tname, tspec] of ownEntries(spec.tasks, `tasks of workflow "${name}"`)) {
    tasks[tname] = normaliseTask(name, tname, tspec);
  }
  // Scout loads these all the same (R126-6, R126-8): told, once, where warnings go
  for (const w of definitionWarnings(tasks)) warnOnce(w.id, w.message);
  const wf: Workflow = {
    name,
    title: spec.title ?? "",
    description: spec.description ?? "",
    tasks,
    helpers: { ...(spec.helpers ?? {}) },
    exports: normaliseExports(spec.exports, tasks, name),
    ...(spec.jobsDir !== undefined ? { jobsDir: spec.jobsDir } : {}),
  };
  registry.set(name, wf);
  return wf;
}

/**
 * Alias of {@link workflow} (the name used by `workflow.md` §7.1).
 *
 * @param name workflow name
 * @param spec the definition
 * @returns the workflow
 */
export function defineWorkflow(name: string, spec: WorkflowSpec): Workflow {
  return workflow(name, spec);
}

/**
 * A workflow defined in this process, by name.
 *
 * @param name workflow name
 * @returns the workflow or undefined
 */
export function registeredWorkflow(name: string): Workflow | undefined {
  return registry.get(name);
}

/**
 * Registers a workflow under its name (loading a file does it).
 *
 * @param wf the workflow
 */
export function registerWorkflow(wf: Workflow): void {
  registry.set(wf.name, wf);
}

/** Options of the {@link input} builders: an {@link InputSpec} without its type. */
export type InputOptions<T> = Omit<InputSpec<T>, "type">;

function builder<T>(type: ScoutType) {
  return (opts: InputOptions<T> = {}): InputSpec<T> => ({ ...opts, type });
}

/**
 * Input builders: `input.integer({default: 2})`, `input.select(["a","b"], {default: "a"})`,
 * `input.arrayOf("integer")`…
 */
export const input: {
  string: (o?: InputOptions<string>) => InputSpec<string>;
  text: (o?: InputOptions<string>) => InputSpec<string>;
  integer: (o?: InputOptions<number>) => InputSpec<number>;
  float: (o?: InputOptions<number>) => InputSpec<number>;
  boolean: (o?: InputOptions<boolean>) => InputSpec<boolean>;
  array: (o?: InputOptions<string[]>) => InputSpec<string[]>;
  select: (
    options: readonly string[] | Record<string, string>,
    o?: InputOptions<string>,
  ) => InputSpec<string>;
  path: (o?: InputOptions<string>) => InputSpec<string>;
  file: (o?: InputOptions<string>) => InputSpec<string>;
  folder: (o?: InputOptions<string>) => InputSpec<string>;
  binary: (o?: InputOptions<string>) => InputSpec<string>;
  json: (o?: InputOptions<unknown>) => InputSpec<unknown>;
  yaml: (o?: InputOptions<string>) => InputSpec<string>;
  tsv: (o?: InputOptions<string>) => InputSpec<string>;
  chat: (o?: InputOptions<string>) => InputSpec<string>;
  arrayOf: (type: string, o?: InputOptions<unknown[]>) => InputSpec<unknown[]>;
} = {
  string: builder("string"),
  text: builder("text"),
  integer: builder("integer"),
  float: builder("float"),
  boolean: builder("boolean"),
  array: builder("array"),
  select: (options, o = {}) => ({ ...o, type: "select", selectOptions: options }),
  path: builder("path"),
  file: builder("file"),
  folder: builder("folder"),
  binary: builder("binary"),
  json: builder("json"),
  yaml: builder("yaml"),
  tsv: builder("tsv"),
  chat: builder("chat"),
  arrayOf: (type, o = {}) => ({ ...o, type: `${type}_array` as ScoutType }),
};

/**
 * What is wrong with a task's direct dependencies that a job of it would
 * fail on: a task its workflow does not define, a workflow not loaded. Help
 * texts show it; the task's other dependencies and the workflow's other
 * tasks still work.
 *
 * @param wf the workflow
 * @param taskName the task (defined in `wf`)
 * @returns one message per broken dependency (none when all resolve)
 */
export function brokenDependencies(wf: Workflow, taskName: string): string[] {
  const task = taskOf(wf, taskName);
  const out: string[] = [];
  for (const d of task.deps) {
    const dw = depWorkflow(wf, d);
    if (dw === undefined) {
      out.push(
        `Task "${task.name}" depends on "${d.task}" of workflow "${String(d.workflow)}", ` +
          "which is not loaded",
      );
    } else if (!Object.hasOwn(dw.tasks, d.task)) {
      out.push(missingDepMessage({ wf, task }, dw, d.task));
    }
  }
  return out;
}

/**
 * Recursive inputs of a task (§1.4): own inputs, then each dependency's
 * recursive inputs except names fixed by that dependency's options; first
 * occurrence wins. Block-form dependencies contribute their task's inputs.
 *
 * @param wf the workflow
 * @param taskName the task
 * @returns input declarations in order
 */
export function recursiveInputs(wf: Workflow, taskName: string): InputDef[] {
  const out: InputDef[] = [];
  const seen = new Set<string>();
  const visit = (w: Workflow, t: Task, fixed: Set<string>, stack: string[]): void => {
    const key = `${w.name}#${t.name}`;
    if (stack.includes(key)) return;
    for (const i of t.inputs) {
      if (fixed.has(i.name) || seen.has(i.name)) continue;
      seen.add(i.name);
      out.push(i);
    }
    for (const d of t.deps) {
      const dw = depWorkflow(w, d);
      if (dw === undefined || !Object.hasOwn(dw.tasks, d.task)) continue;
      const depFixed = new Set([...fixed, ...Object.keys(d.inputs ?? {})]);
      visit(dw, dw.tasks[d.task]!, depFixed, [...stack, key]);
    }
  };
  visit(wf, taskOf(wf, taskName), new Set(), []);
  return out;
}

/**
 * The workflow a dependency refers to: its own value, a registered workflow
 * of that name, or the parent's workflow.
 *
 * @param parent the parent's workflow
 * @param dep the dependency
 * @returns the workflow, or undefined when a named one is not loaded
 */
export function depWorkflow(
  parent: Workflow,
  dep: { workflow?: string | Workflow },
): Workflow | undefined {
  if (dep.workflow === undefined) return parent;
  if (typeof dep.workflow === "string") {
    return dep.workflow === parent.name ? parent : registry.get(dep.workflow);
  }
  return dep.workflow;
}
