/**
 * A WORKFLOW of `system clean` given as a path (R137-3), as `workflow task`,
 * `workflow list` and `workflow mcp` take one (`fixtures/workflows/Baking`,
 * `…/Baking/workflow.ts`): it stands for the name its workflow's jobs are
 * stored under. Before, the path itself was matched against the store's
 * directories: nothing matched, and any existing path (`/etc`) cleaned "0
 * jobs", exit 0. A path that holds no workflow is now a usage error (exit 2),
 * as a name that names nothing is.
 *
 * The file is read, never run (R129-2: a clean, often run from cron on a
 * shared store, runs no code anyone may have written there): the name is the
 * one string literal its `workflow("Name", …)` / `defineWorkflow("Name", …)`
 * calls give; with none, a `workflow.ts` (`.js`, `.mjs`) is named by its
 * directory, as the loader names a workflow its file exports as a plain
 * object, and as the search directories' `<Name>/workflow.ts` are named; a
 * Ruby `workflow.rb` too (Scout's `workflows/<Name>/workflow.rb`). A file that
 * gives no name or several is refused: the clean cannot tell whose jobs they
 * are, and says to give the name.
 *
 * @module
 */
import { basename, dirname, join, resolve } from "node:path";
import { usageError } from "../errors.ts";
import { exists, isDirectory, isFile, readText } from "../util/fs.ts";
import { isWorkflowPathArg } from "../workflow/path_arg.ts";
import type { Io } from "./io.ts";

const TS_FILES = ["workflow.ts", "workflow.js", "workflow.mjs"];

/** A `workflow(` or `defineWorkflow(` call whose first argument is a plain string literal. */
const NAMED_CALL = /\b(?:workflow|defineWorkflow)\s*\(\s*(["'`])([^"'`\\$\n]+)\1/g;
/** Any `workflow(`/`defineWorkflow(` call: one whose name is not a literal is named at run time. */
const ANY_CALL = /\b(?:workflow|defineWorkflow)\s*\(/g;

/**
 * Whether a WORKFLOW argument is a path (`findWorkflowFile`'s rule, and a
 * Ruby file): a store's workflow directory has no `/` in its name.
 *
 * @param given the argument
 * @returns true for a path
 */
export function isWorkflowPath(given: string): boolean {
  return isWorkflowPathArg(given) || given.endsWith(".rb");
}

/** The WORKFLOW names, paths replaced by their workflows' names, and the names found so. */
export interface PathNames {
  /** The names to clean (null: `all`). */
  workflows: readonly string[] | null;
  /** The names a path gave: known workflows, with jobs or not. */
  found: ReadonlySet<string>;
}

/**
 * Replaces each WORKFLOW given as a path by its workflow's name.
 *
 * @param workflows the names as given (null: `all`)
 * @param io cwd, for relative paths
 * @returns the names and those found by path
 * @throws ScoutError `usage` for a path that holds no workflow or whose name cannot be read
 */
export async function workflowsByPath(
  workflows: readonly string[] | null,
  io: Io,
): Promise<PathNames> {
  const found = new Set<string>();
  if (workflows === null) return { workflows, found };
  const names: string[] = [];
  for (const given of workflows) {
    const path = isWorkflowPath(given);
    const name = path ? await nameAt(given, io.cwd) : given;
    if (path) found.add(name);
    if (!names.includes(name)) names.push(name);
  }
  return { workflows: names, found };
}

/** The name the workflow at `given` stores its jobs under. */
async function nameAt(given: string, cwd: string): Promise<string> {
  const path = resolve(cwd, given);
  const file = isFile(path) ? path : isDirectory(path) ? fileIn(path) : null;
  if (file === null) {
    throw usageError(
      `WORKFLOW "${given}" is a path that holds no workflow: ` +
        (exists(path)
          ? `no workflow.ts, .js, .mjs or workflow.rb in ${path}`
          : "no such file or directory"),
    );
  }
  const dirName = basename(dirname(file));
  if (basename(file) === "workflow.rb") return dirName;
  const text = await readText(file);
  const literal = [...text.matchAll(NAMED_CALL)].map((m) => m[2]!);
  const named = [...new Set(literal)];
  // a call naming its workflow by a variable (R138-1): the directory's name would be a guess,
  // and could be another workflow's
  const computed = [...text.matchAll(ANY_CALL)].length > literal.length;
  if (named.length === 1 && !computed) return named[0]!;
  if (named.length === 0 && !computed && TS_FILES.includes(basename(file))) return dirName;
  const what = computed
    ? "a workflow(…) call names it by a variable"
    : named.length === 0
    ? 'no workflow("Name", …) in it'
    : `it names ${named.map((n) => `"${n}"`).join(" and ")}`;
  throw usageError(
    `WORKFLOW "${given}": the name its jobs are stored under cannot be read from ${file} ` +
      `(${what}; a clean reads workflow files, never runs them): give the workflow's name`,
  );
}

function fileIn(dir: string): string | null {
  return [...TS_FILES, "workflow.rb"].map((f) => join(dir, f)).find(isFile) ?? null;
}
