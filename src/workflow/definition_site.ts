/**
 * The line of a workflow file whose definition was refused (R126-4). A
 * workflow file's factory is usually an arrow whose body is the call,
 * `(api) => api.workflow("W", {…})`: a call in tail position. Deno (V8)
 * keeps the arrow's frame, so the error thrown inside `workflow()` has the
 * file's line on its stack; Bun — the binary — runs JavaScriptCore, which
 * makes proper tail calls in strict code (every module) and drops that frame
 * before `workflow()` runs, so no stack taken inside it names the file.
 *
 * Reading `api.workflow` happens in the arrow's own frame, before the call:
 * the API handed to the factory notes, when `workflow` or `defineWorkflow`
 * is read, where it was read from (a stack taken then), and an error the
 * function read there throws carries that place: the line the expression
 * `api.workflow` starts on — the call's own line, as Deno names it, unless
 * the call is split over lines (`api\n  .workflow(…)`: the line of `api`);
 * a function taken earlier and called later names the line it was taken on.
 *
 * @module
 */
import { scriptLine } from "../util/script_line.ts";

/** For an error a definition threw: where the function that threw it was read. */
const sites = new WeakMap<object, Error>();

/** The API members that define a workflow (and validate what they are given). */
const DEFINERS = new Set<PropertyKey>(["workflow", "defineWorkflow"]);

function noted(fn: (...args: unknown[]) => unknown, site: Error) {
  return function (this: unknown, ...args: unknown[]): unknown {
    try {
      return fn.apply(this, args);
    } catch (e) {
      if (typeof e === "object" && e !== null && !sites.has(e)) sites.set(e, site);
      throw e;
    }
  };
}

/**
 * `api` as a workflow file's factory gets it: reading its `workflow` or
 * `defineWorkflow` notes where from (see the module's doc). Every other
 * member, and members added to `api` later, read through as they are.
 *
 * @param api the workflow API
 * @returns a view of `api` noting where its definers are read
 * @example
 * ```ts ignore
 * import { notingDefinitionSites } from "./definition_site.ts";
 * const mod = await import("/w/workflow.ts");
 * mod.default(notingDefinitionSites(workflowApi));
 * ```
 */
export function notingDefinitionSites<T extends object>(api: T): T {
  return new Proxy(api, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (!DEFINERS.has(key) || typeof value !== "function") return value;
      return noted(value as (...args: unknown[]) => unknown, new Error("definition site"));
    },
  });
}

/**
 * The line of `file` a definition's failure came from: the innermost frame
 * in `file` on its stack, else the line `workflow`/`defineWorkflow` was
 * read on, when it threw `e`.
 *
 * @param e what defining the workflow threw
 * @param file the workflow file (absolute path)
 * @returns the 1-based line, or undefined
 * @example
 * ```ts ignore
 * import { definitionLine } from "./definition_site.ts";
 * definitionLine(e, "/w/workflow.ts"); // 2, the line of `api.workflow("W", {`
 * ```
 */
export function definitionLine(e: unknown, file: string): number | undefined {
  const line = scriptLine(e, file);
  if (line !== undefined || typeof e !== "object" || e === null) return line;
  const site = sites.get(e);
  return site === undefined ? undefined : scriptLine(site, file);
}
