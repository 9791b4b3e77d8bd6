/**
 * Loading user workflows at run time (`workflow.md` §7.2): `workflow.ts`
 * (or `.js`/`.mjs`) in `./workflows/<Name>/` or `$SCOUT_HOME/workflows/<Name>/`,
 * or a path to such a file or directory. The file's default export is a
 * Workflow or a factory `(api) => Workflow | Promise<Workflow>` receiving the
 * library ({@link WorkflowApi}), so user code needs no import the compiled
 * binary would have to resolve (`import type` only). Cached by absolute path.
 *
 * @module
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { z } from "zod";
import { ScoutError, thrownMessage } from "../errors.ts";
import { isDirectory, isFile, presentAs } from "../util/fs.ts";
import { isWorkflowPathArg } from "./path_arg.ts";
import { importUserModule } from "../util/user_module.ts";
import { definitionLine, notingDefinitionSites } from "./definition_site.ts";
import { scoutHome } from "../config/home.ts";
import { parse as parseChat } from "../chat/parse.ts";
import { print as printChat } from "../chat/print.ts";
import {
  defineWorkflow,
  input,
  nearNames,
  registerWorkflow,
  type Workflow,
  workflow,
  type WorkflowSpec,
} from "./define.ts";
import { parseWorkflowDoc } from "./docs.ts";
import { builtinWorkflowLoader, workflowFallback } from "./builtins.ts";
import { compareNames } from "../util/name_order.ts";

const FILE_NAMES = ["workflow.ts", "workflow.js", "workflow.mjs"];

/** The library handed to a workflow file's default-export factory. */
export interface WorkflowApi {
  /** Defines a workflow (see `workflow()`). */
  workflow: typeof workflow;
  /** Alias of `workflow`. */
  defineWorkflow: typeof defineWorkflow;
  /** Input builders. */
  input: typeof input;
  /** zod, for input schemas. */
  z: typeof z;
  /** The error type; throw `api.fail(msg)` for a deliberate (non-recoverable) failure. */
  ScoutError: typeof ScoutError;
  /**
   * A deliberate task failure (recorded as `ScoutException`).
   * @param message what went wrong
   */
  fail(message: string): ScoutError;
  /** Chat parser. */
  parseChat: typeof parseChat;
  /** Chat printer. */
  printChat: typeof printChat;
}

/** The API object passed to workflow files. */
export const workflowApi: WorkflowApi = {
  workflow,
  defineWorkflow,
  input,
  z,
  ScoutError,
  fail: (message) => new ScoutError("job_failed", message),
  parseChat,
  printChat,
};

/**
 * Adds entries to {@link workflowApi} (a higher layer's helpers, e.g. the
 * agent layer's `chatTask`), so workflow files reach them without this layer
 * importing that one.
 *
 * @param entries names and values to add (existing names are replaced)
 */
export function extendWorkflowApi(entries: Record<string, unknown>): void {
  Object.assign(workflowApi, entries);
}

/** Options of {@link findWorkflowFile} and {@link loadWorkflow}. */
export interface FindWorkflowOptions {
  /** Working directory (for `./workflows` and relative paths). */
  cwd?: string;
  /** Environment (`SCOUT_HOME`). */
  env?: Record<string, string | undefined>;
  /** Extra directories holding `<Name>/workflow.ts` (searched first). */
  dirs?: string[];
}

/**
 * Directories searched for `<Name>/workflow.ts`, in order.
 *
 * @param opts cwd, env, extra dirs
 * @returns absolute directories
 */
export function workflowDirs(opts: FindWorkflowOptions = {}): string[] {
  const cwd = opts.cwd ?? process.cwd();
  return [
    ...(opts.dirs ?? []).map((d) => resolve(cwd, d)),
    join(cwd, "workflows"),
    join(scoutHome(opts.env ?? process.env), "workflows"),
  ];
}

/**
 * The workflow file in `dir`, or null. Looking for one workflow (`strict`),
 * a `workflow.ts` that is a directory or a link to nothing is an error
 * naming it, not "not found"; listing them all, such an entry is passed by.
 */
function fileIn(dir: string, strict = false): string | null {
  for (const n of FILE_NAMES) {
    const p = join(dir, n);
    if (strict ? presentAs(p, "file") !== null : isFile(p)) return p;
  }
  return null;
}

/**
 * Names of the workflows found in the search directories.
 *
 * @param opts cwd, env, extra dirs
 * @returns `{name, file}` sorted by name (first directory wins)
 */
export function listWorkflowFiles(
  opts: FindWorkflowOptions = {},
): { name: string; file: string }[] {
  const found = new Map<string, string>();
  for (const dir of workflowDirs(opts)) {
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      continue; // a search directory that does not exist holds no workflows
    }
    for (const n of names.sort()) {
      const f = fileIn(join(dir, n));
      if (f !== null && !found.has(n)) found.set(n, f);
    }
  }
  return [...found].map(([name, file]) => ({ name, file })).sort((a, b) =>
    compareNames(a.name, b.name)
  );
}

/**
 * Finds a workflow file: `nameOrPath` as a file or a directory holding
 * `workflow.ts`, else `<dir>/<Name>/workflow.ts` in the search directories.
 *
 * @param nameOrPath workflow name or path
 * @param opts cwd, env, extra dirs
 * @returns absolute file path
 * @throws ScoutError `workflow_not_found` with near names and the searched places
 */
export function findWorkflowFile(nameOrPath: string, opts: FindWorkflowOptions = {}): string {
  const cwd = opts.cwd ?? process.cwd();
  const asPath = resolve(cwd, nameOrPath);
  if (isWorkflowPathArg(nameOrPath)) {
    if (isFile(asPath)) return asPath;
    if (isDirectory(asPath)) {
      const f = fileIn(asPath, true);
      if (f !== null) return f;
    }
  }
  for (const dir of workflowDirs(opts)) {
    const f = fileIn(join(dir, nameOrPath), true);
    if (f !== null) return f;
  }
  const known = listWorkflowFiles(opts).map((w) => w.name);
  let near = nearNames(nameOrPath, known);
  if (/[/\\]/.test(nameOrPath)) {
    const parent = dirname(asPath);
    const siblings = listWorkflowFiles({ ...opts, dirs: [parent] }).filter((w) =>
      dirname(dirname(w.file)) === parent
    );
    near = nearNames(basename(asPath), siblings.map((w) => w.name)).map((n) =>
      join(dirname(nameOrPath), n)
    );
  }
  throw new ScoutError(
    "workflow_not_found",
    `Workflow "${nameOrPath}" not found` +
      (near.length > 0 ? `; did you mean ${near.map((n) => `"${n}"`).join(" or ")}?` : "") +
      ` (searched ${workflowDirs(opts).map((d) => `${d}/<Name>/workflow.ts`).join(", ")})`,
    { workflow: nameOrPath },
  );
}

const cache = new Map<string, Promise<Workflow>>();

function isWorkflow(v: unknown): v is Workflow {
  return typeof v === "object" && v !== null && typeof (v as Workflow).name === "string" &&
    typeof (v as Workflow).tasks === "object" && typeof (v as Workflow).exports === "object";
}

function applyDocs(wf: Workflow, file: string): Workflow {
  const dir = dirname(file);
  for (const n of ["workflow.md", "README.md"]) {
    const p = join(dir, n);
    if (!isFile(p)) continue;
    const doc = parseWorkflowDoc(readFileSync(p, "utf8"));
    if (wf.title === "") wf.title = doc.title;
    if (wf.description === "") wf.description = doc.description;
    for (const [t, text] of Object.entries(doc.tasks)) {
      // own tasks: a `## toString` section is no task of Object.prototype's (R112-5)
      if (Object.hasOwn(wf.tasks, t) && text !== "") wf.tasks[t]!.description = text;
    }
    break;
  }
  return wf;
}

/** The line of the user's `file` a definition's failure came from, as a context field. */
function lineOf(e: unknown, file: string): { line?: number } {
  const line = definitionLine(e, file);
  return line === undefined ? {} : { line };
}

async function importWorkflow(file: string): Promise<Workflow> {
  const mod = await importUserModule(file, "workflow_load", "workflow file");
  let value: unknown = mod.default;
  try {
    // its line named in the binary too, where a tail call drops the factory's frame (R126-4)
    if (typeof value === "function") value = await value(notingDefinitionSites(workflowApi));
    else if (
      value !== null && typeof value === "object" && !isWorkflow(value) && "tasks" in value
    ) {
      value = workflow(basename(dirname(file)), value as WorkflowSpec);
    }
  } catch (e) {
    throw new ScoutError(
      "workflow_load",
      `Workflow file "${file}" failed while defining its workflow: ${thrownMessage(e)}`,
      { file, ...lineOf(e, file), cause: e },
    );
  }
  if (!isWorkflow(value)) {
    throw new ScoutError(
      "workflow_load",
      `Workflow file "${file}" must default-export a workflow or a function (api) => api.workflow(...)`,
      { file },
    );
  }
  const wf = { ...value, file };
  registerWorkflow(wf);
  return applyDocs(wf, file);
}

/**
 * Loads a workflow file (cached by absolute path).
 *
 * @param file path to `workflow.ts` (or `.js`/`.mjs`)
 * @returns the workflow
 * @throws ScoutError `workflow_load` naming the file
 */
export function loadWorkflowFile(file: string): Promise<Workflow> {
  const abs = resolve(file);
  let p = cache.get(abs);
  if (p === undefined) {
    p = importWorkflow(abs);
    cache.set(abs, p);
    p.catch(() => cache.delete(abs));
  }
  return p;
}

/**
 * Finds and loads a workflow by name or path.
 *
 * @param nameOrPath workflow name (`Baking`) or path to its file/directory
 * @param opts cwd, env, extra dirs
 * @returns the workflow
 *
 * @example
 * ```ts ignore
 * import { loadWorkflow } from "./load.ts";
 * const wf = await loadWorkflow("Baking", { dirs: ["fixtures/workflows"] });
 * ```
 */
export async function loadWorkflow(
  nameOrPath: string,
  opts: FindWorkflowOptions = {},
): Promise<Workflow> {
  let file: string;
  try {
    file = findWorkflowFile(nameOrPath, opts);
  } catch (e) {
    if ((e as ScoutError).code !== "workflow_not_found") throw e;
    const builtin = builtinWorkflowLoader(nameOrPath);
    if (builtin !== undefined) return await builtin();
    const agents = await workflowFallback()?.(nameOrPath, opts);
    if (agents) return agents;
    throw e;
  }
  return await loadWorkflowFile(file);
}
