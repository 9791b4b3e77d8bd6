/**
 * What `workflow()` tells an author about a definition that Scout loads all
 * the same (`workflow.md` §1.3, §1.4): a default that does not fit its
 * input's type or a select's options (the job that leaves the input out gets
 * it as written), and a dependency's `{fromInput}` naming an input its task
 * does not declare (the dependency gets the name itself, rule 4). Warnings,
 * not errors: a Ruby workflow with either loads and runs. TS-FIX: Scout says
 * nothing (`docs/spec-notes/workflow.md` §5a). A key a task spec does not
 * know is an error ({@link checkTaskKeys}): Ruby has no such object.
 *
 * @module
 */
import type { InputDef, Task } from "./job_types.ts";
import { isFromInput } from "./job_refs.ts";
import { describeValue, selectOptionsOf, typeSchema } from "./input_type.ts";
import { nearNames } from "./task_lookup.ts";
import { ScoutError } from "../errors.ts";

/** One warning about a definition: what it is about (for telling it once) and its text. */
export interface DefinitionWarning {
  /** Workflow, task, input or dependency and the kind of mistake. */
  id: string;
  /** The warning, naming the workflow, task and input. */
  message: string;
}

const quoted = (names: readonly string[]) => names.map((n) => `"${n}"`).join(" or ");

/** The warning for an input whose default does not fit its type or options, or null. */
function defaultWarning(task: Task, def: InputDef): DefinitionWarning | null {
  const d = def.default;
  if (d === undefined || d === null) return null;
  const where = `Input "${def.name}" of task "${task.workflow}/${task.name}"`;
  const then = "; a job that leaves it out gets it as written";
  const id = `define\0${task.workflow}\0${task.name}\0${def.name}\0default`;
  if (!typeSchema(def.type).safeParse(d).success) {
    return {
      id,
      message: `${where} has the default ${
        describeValue(d)
      }, which does not fit its type ${def.type}${then}`,
    };
  }
  const options = def.type === "select" ? selectOptionsOf(def) : [];
  if (options.length === 0 || options.includes(d as string)) return null;
  return {
    id,
    message: `${where} has the default ${describeValue(d)}, which is not one of its options ${
      options.map((o) => JSON.stringify(o)).join(", ")
    }${then}`,
  };
}

/** The warnings for a dependency's `{fromInput}` values that name nothing of the task. */
function fromInputWarnings(task: Task): DefinitionWarning[] {
  const inputs = task.inputs.map((i) => i.name);
  // rule 1 of §1.4: a dependency of that task name is the value
  const known = new Set([...inputs, ...task.deps.map((d) => d.task)]);
  const out: DefinitionWarning[] = [];
  for (const [i, dep] of task.deps.entries()) {
    for (const [k, v] of Object.entries(dep.inputs ?? {})) {
      if (!isFromInput(v) || known.has(v.fromInput)) continue;
      const n = v.fromInput;
      const near = nearNames(n, inputs);
      out.push({
        id: `define\0${task.workflow}\0${task.name}\0dep ${i}\0${k}\0fromInput`,
        message:
          `Dependency "${dep.task}" of task "${task.workflow}/${task.name}" takes its input ` +
          `"${k}" from input "${n}", which task "${task.name}" does not declare: it gets the ` +
          `text "${n}" (Scout's rule)` +
          (near.length > 0 ? `; did you mean ${quoted(near)}?` : "") +
          ` (its inputs: ${inputs.join(", ") || "none"})`,
      });
    }
  }
  return out;
}

/**
 * The warnings about a workflow's tasks: defaults that do not fit their
 * inputs, `{fromInput}` references to inputs the task does not declare.
 *
 * @param tasks the normalised tasks
 * @returns the warnings, task by task, in declaration order
 */
export function definitionWarnings(tasks: Record<string, Task>): DefinitionWarning[] {
  const out: DefinitionWarning[] = [];
  for (const task of Object.values(tasks)) {
    for (const def of task.inputs) {
      const w = defaultWarning(task, def);
      if (w !== null) out.push(w);
    }
    out.push(...fromInputWarnings(task));
  }
  return out;
}

/** What a task spec may hold (`TaskSpec`). */
const TASK_KEYS: readonly string[] = [
  "type",
  "description",
  "returns",
  "extension",
  "inputs",
  "deps",
  "run",
];

/**
 * Refuses a key a task spec does not know (`input:` for `inputs:`), which
 * would be dropped without a word: the task ran with its inputs undefined
 * (R165-6). Ruby declares with calls, where such a typo is a NoMethodError.
 *
 * @param spec the task spec as written
 * @param wf the workflow's name
 * @param name the task's name
 * @throws ScoutError `invalid_input` naming the key (and the key it is near)
 */
export function checkTaskKeys(spec: object, wf: string, name: string): void {
  for (const key of Object.keys(spec)) {
    if (TASK_KEYS.includes(key)) continue;
    const near = nearNames(key, TASK_KEYS);
    throw new ScoutError(
      "invalid_input",
      `Task "${wf}/${name}" has an unknown key "${key}"` +
        (near.length > 0 ? ` (did you mean "${near[0]}"?)` : "") +
        `: a task takes ${TASK_KEYS.join(", ")}`,
    );
  }
}
