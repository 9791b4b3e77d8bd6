/**
 * The WORKFLOW and TASK names of `system clean`, checked (R128-2): a name
 * typed on the command line that names nothing known is a usage error (exit
 * 2, README), with a "did you mean" from the store's workflow and task
 * directories. Known: a directory of the store (it has jobs), or a workflow
 * scout-ai can find as `workflow task` does (`workflows/<Name>/workflow.ts`,
 * a built-in, an agent's workflow) or a Ruby one (`workflows/<Name>/workflow.rb`),
 * and a task a built-in workflow defines: a script may clean a workflow that
 * has no jobs yet, and gets "0 jobs". A workflow file is found, never run
 * (R129-2), so a TASK of one with no jobs in the store is warned about, not
 * refused. A WORKFLOW given as a path is its workflow's name by then
 * (`clean_paths.ts`, R137-3). [TS-FIX] Scout's `scout system clean` with an unknown workflow
 * prints nothing and exits 0.
 *
 * @module
 */
import { join } from "node:path";
import { isScoutError, usageError } from "../errors.ts";
import { nearNames } from "../util/edit_distance.ts";
import { isFile } from "../util/fs.ts";
import type { StoreJob } from "../workflow/store_scan.ts";
import { type Io, warn } from "./io.ts";
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
 * @param byPath names a path given as WORKFLOW stood for (`clean_paths.ts`):
 *   workflow files found, whose tasks cannot be told
 * @throws ScoutError `usage` naming the first unknown name, with near names
 */
export async function checkCleanNames(
  names: CleanNames,
  jobs: readonly StoreJob[],
  io: Io,
  byPath: ReadonlySet<string> = new Set(),
): Promise<void> {
  const store = new Map<string, Set<string>>();
  for (const j of jobs) {
    const [wf, task] = j.shortPath.split("/");
    if (wf === undefined || task === undefined) continue;
    if (!store.has(wf)) store.set(wf, new Set());
    store.get(wf)!.add(task);
  }
  const found = new Map<string, Found>([...byPath].map((n) => [n, "any"]));
  const lookUp = async (name: string) => {
    if (!found.has(name)) found.set(name, await findWorkflow(name, io));
    return found.get(name)!;
  };
  for (const wf of names.workflows ?? []) {
    if (store.has(wf) || await lookUp(wf) !== null) continue;
    throw usageError(unknownText(`WORKFLOW "${wf}"`, wf, [...store.keys()], "workflows", true));
  }
  if (names.tasks === null) return;
  const wfs = names.workflows ?? [...store.keys()];
  const inStore = wfs.flatMap((wf) => [...(store.get(wf) ?? [])]);
  for (const task of names.tasks) {
    if (inStore.includes(task)) continue;
    const defined = await Promise.all(wfs.map(lookUp));
    if (defined.some((d) => Array.isArray(d) && d.includes(task))) continue;
    const near = [...inStore, ...defined.flatMap((d) => Array.isArray(d) ? d : [])];
    const of = names.workflows === null ? "" : ` of ${wfs.map((w) => `"${w}"`).join(", ")}`;
    const what = `TASK "${task}"${of}`;
    if (!defined.includes("any")) throw usageError(unknownText(what, task, near, "tasks", true));
    // a workflow file is not run to read its tasks: said, not refused
    warn(
      io,
      `${
        unknownText(what, task, near, "tasks", false)
      }; not checked against the workflow's file, which a clean does not run`,
    );
  }
}

/** What is said of a name with no jobs (`unknown`: it names nothing found either), with near names. */
function unknownText(
  what: string,
  name: string,
  known: string[],
  kind: string,
  unknown: boolean,
): string {
  const listed = [...new Set(known)].sort();
  const near = nearNames(name, listed);
  return `${what} has no jobs in the store` +
    (unknown ? " and names nothing scout-ai can find" : "") +
    (near.length > 0 ? `; did you mean ${near.map((n) => `"${n}"`).join(" or ")}?` : "") +
    ` (the store's ${kind}: ${listed.join(", ") || "none"})`;
}

/**
 * A workflow `workflow task` would find by this name, or a Ruby one, and its
 * tasks — found by its files, never run (R129-2: a maintenance command,
 * often run from cron on a shared store, imported a `workflow.ts` — code
 * anyone may have written there — to check a name, and its output went into
 * `--json`): a workflow file or an agent directory found answers `any` (its
 * tasks cannot be told without running it); only a built-in workflow, the
 * binary's own code, is loaded for its task names.
 */
async function findWorkflow(name: string, io: Io): Promise<Found> {
  const { findWorkflowFile, workflowDirs } = await loader();
  const opts = { cwd: io.cwd, env: io.env };
  if (workflowDirs(opts).some((d) => isFile(join(d, name, "workflow.rb")))) return "any";
  try {
    findWorkflowFile(name, opts);
    return "any";
  } catch (e) {
    if (!isScoutError(e, "workflow_not_found")) return "any"; // there, but unreadable
  }
  const { builtinWorkflowLoader } = await import("../workflow/builtins.ts");
  const builtin = builtinWorkflowLoader(name);
  if (builtin !== undefined) return Object.keys((await builtin()).tasks);
  const { locateAgent } = await import("../config/agent_dirs.ts");
  return locateAgent(name, opts) !== null ? "any" : null;
}
