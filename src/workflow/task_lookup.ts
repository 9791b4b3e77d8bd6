/**
 * Finding a workflow's tasks by name: the task a command line names (with
 * "did you mean" suggestions), the task a dependency names (an error about
 * the workflow file, naming the dependent task), and near names.
 *
 * @module
 */
import { ScoutError } from "../errors.ts";
import type { Task, Workflow } from "./job_types.ts";
import { nearNames } from "../util/edit_distance.ts";

/**
 * Finds a task, with a "did you mean" suggestion on failure.
 *
 * @param wf the workflow
 * @param name task name
 * @returns the task
 * @throws ScoutError `task_not_found`
 */
export function taskOf(wf: Workflow, name: string): Task {
  const t = Object.hasOwn(wf.tasks, name) ? wf.tasks[name] : undefined;
  if (t !== undefined) return t;
  const near = nearNames(name, Object.keys(wf.tasks));
  throw new ScoutError(
    "task_not_found",
    `Task "${name}" not found in workflow "${wf.name}"` +
      (near.length > 0 ? `; did you mean ${near.map((n) => `"${n}"`).join(" or ")}?` : "") +
      ` (tasks: ${Object.keys(wf.tasks).join(", ") || "none"})`,
    { workflow: wf.name, task: name },
  );
}

/**
 * The task a dependency names, or an error saying which task depends on a
 * task its workflow does not define — a mistake in the workflow file, not
 * on the command line (`taskOf` words the latter).
 *
 * @param parent the workflow and task that declare the dependency
 * @param wf the dependency's workflow
 * @param name the task the dependency names
 * @returns the task
 * @throws ScoutError `task_not_found` naming the dependent task and the workflow file
 */
export function depTaskOf(parent: { wf: Workflow; task: Task }, wf: Workflow, name: string): Task {
  const t = Object.hasOwn(wf.tasks, name) ? wf.tasks[name] : undefined;
  if (t !== undefined) return t;
  throw new ScoutError("task_not_found", missingDepMessage(parent, wf, name), {
    workflow: wf.name,
    task: name,
    dependent: `${parent.wf.name}/${parent.task.name}`,
    ...(parent.wf.file !== undefined ? { file: parent.wf.file } : {}),
  });
}

/** Why a dependency's task cannot be found, naming the task that depends on it. */
export function missingDepMessage(
  parent: { wf: Workflow; task: Task },
  wf: Workflow,
  name: string,
) {
  const near = nearNames(name, Object.keys(wf.tasks));
  const same = wf === parent.wf || wf.name === parent.wf.name;
  return (same
    ? `Task "${parent.task.name}" depends on "${name}", which workflow "${wf.name}" does not define`
    : `Task "${parent.wf.name}/${parent.task.name}" depends on "${name}" of workflow ` +
      `"${wf.name}", which does not define it`) +
    (near.length > 0 ? `; did you mean ${near.map((n) => `"${n}"`).join(" or ")}?` : "") +
    ` (its tasks: ${Object.keys(wf.tasks).join(", ") || "none"})`;
}

export { nearNames } from "../util/edit_distance.ts";
