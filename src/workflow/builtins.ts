/**
 * Workflows shipped inside the program (ChatAnalyst), by name. A tiny module
 * with no imports of its own, so the CLI can register them at start-up
 * without loading the workflow layer; `loadWorkflow` consults it only after
 * the search directories (`./workflows/`, `$SCOUT_HOME/workflows/`), so a
 * user's own workflow of the same name wins.
 *
 * @module
 */
import type { Workflow } from "./define.ts";

const builtins = new Map<string, () => Promise<Workflow>>();

/**
 * Registers a built-in workflow, found by name after the search directories.
 *
 * @param name workflow name
 * @param load builds (or imports) it on first use
 */
export function registerBuiltinWorkflow(name: string, load: () => Promise<Workflow>): void {
  builtins.set(name, load);
}

/**
 * The loader of a built-in workflow.
 *
 * @param name workflow name
 * @returns its loader, or undefined when none has that name
 */
export function builtinWorkflowLoader(name: string): (() => Promise<Workflow>) | undefined {
  return builtins.get(name);
}

/**
 * Names of the built-in workflows.
 *
 * @returns names, sorted
 */
export function builtinWorkflowNames(): string[] {
  return [...builtins.keys()].sort();
}

/** Where a workflow name no search directory knows is looked up last (the agent layer's). */
export type WorkflowFallback = (
  name: string,
  opts: { cwd?: string; env?: Record<string, string | undefined> },
) => Promise<Workflow | null>;

let fallback: WorkflowFallback | null = null;

/**
 * Sets the last lookup of a workflow name (agents.md §2.2, related lookups:
 * a name falls back to the workflow of the agent of that name). The agent
 * layer installs it; this layer cannot import that one.
 *
 * @param fn the lookup, or null to remove it
 */
export function setWorkflowFallback(fn: WorkflowFallback | null): void {
  fallback = fn;
}

/**
 * The installed last lookup, if any.
 *
 * @returns the lookup or null
 */
export function workflowFallback(): WorkflowFallback | null {
  return fallback;
}
