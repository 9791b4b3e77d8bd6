/**
 * The WORKFLOW and TASK names of `system clean`, checked (R128-2): a name
 * typed on the command line that names nothing known is a usage error (exit
 * 2, README), with a "did you mean" from the store's workflow and task
 * directories. Known: a directory of the store (it has jobs), or a workflow
 * scout-ai can find as `workflow task` does (`workflows/<Name>/workflow.ts`,
 * a built-in, an agent's workflow) or a Ruby one (`workflows/<Name>/workflow.rb`),
 * and a task such a workflow defines: a script may clean a workflow that has
 * no jobs yet, and gets "0 jobs". [TS-FIX] Scout's `scout system clean` with
 * an unknown workflow prints nothing and exits 0.
 *
 * @module
 */
import { join } from "node:path";
import { isScoutError, usageError } from "../errors.ts";
import { isFile } from "../util/fs.ts";
import type { StoreJob } from "../workflow/store_scan.ts";
import type { Io } from "./io.ts";
import { loader } from "./workflow_common.ts";

/** The names asked for (null: `all`, or no TASK). */
export interface CleanNames {
  workflows: readonly string[] | null;
  tasks: readonly string[] | null;
}

/** A workflow outside the store: its tasks, `any` when they cannot be told, null when none is found. */
type Found = readonly string[] | "any" | null;

/**
 * Refuses a WORKFLOW or TASK that names nothing known.
 *
 * @param names the WORKFLOW and TASK lists
 * @param jobs every job of the store (scanStore's list, in scope or not)
 * @param io cwd and env, for finding workflows
 * @throws ScoutError `usage` naming the first unknown name, with near names
 */
export async function checkCleanNames(
  names: CleanNames,
  jobs: readonly StoreJob[],
  io: Io,
): Promise<void> {
  const store = new Map<string, Set<string>>();
  for (const j of jobs) {
    const [wf, task] = j.shortPath.split("/");
    if (wf === undefined || task === undefined) continue;
    if (!store.has(wf)) store.set(wf, new Set());
    store.get(wf)!.add(task);
  }
  const found = new Map<string, Found>();
  const lookUp = async (name: string) => {
    if (!found.has(name)) found.set(name, await findWorkflow(name, io));
    return found.get(name)!;
  };
  for (const wf of names.workflows ?? []) {
    if (store.has(wf) || await lookUp(wf) !== null) continue;
    throw await unknown(`WORKFLOW "${wf}"`, wf, [...store.keys()], "workflows");
  }
  if (names.tasks === null) return;
  const wfs = names.workflows ?? [...store.keys()];
  const inStore = wfs.flatMap((wf) => [...(store.get(wf) ?? [])]);
  for (const task of names.tasks) {
    if (inStore.includes(task)) continue;
    const defined = await Promise.all(wfs.map(lookUp));
    if (defined.some((d) => d === "any" || d?.includes(task))) continue;
    const near = [...inStore, ...defined.flatMap((d) => Array.isArray(d) ? d : [])];
    const of = names.workflows === null ? "" : ` of ${wfs.map((w) => `"${w}"`).join(", ")}`;
    throw await unknown(`TASK "${task}"${of}`, task, near, "tasks");
  }
}

/** The usage error of a name nothing knows. */
async function unknown(what: string, name: string, known: string[], kind: string) {
  const { nearNames } = await import("../workflow/task_lookup.ts");
  const listed = [...new Set(known)].sort();
  const near = nearNames(name, listed);
  return usageError(
    `${what} has no jobs in the store and names nothing scout-ai can find` +
      (near.length > 0 ? `; did you mean ${near.map((n) => `"${n}"`).join(" or ")}?` : "") +
      ` (the store's ${kind}: ${listed.join(", ") || "none"})`,
  );
}

/** A workflow `workflow task` would find by this name, or a Ruby one; its tasks. */
async function findWorkflow(name: string, io: Io): Promise<Found> {
  const { loadWorkflow, workflowDirs } = await loader();
  const opts = { cwd: io.cwd, env: io.env };
  if (workflowDirs(opts).some((d) => isFile(join(d, name, "workflow.rb")))) return "any";
  try {
    return Object.keys((await loadWorkflow(name, opts)).tasks);
  } catch (e) {
    if (isScoutError(e, "workflow_not_found") && e.workflow === name) return null;
    return "any"; // found, but it fails to load: its tasks cannot be told
  }
}
