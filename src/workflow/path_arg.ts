/**
 * A workflow argument (`workflow task X`, `system clean X`, `-w X`) is a
 * path or a name: one rule for every command that takes one, in a module of
 * its own so that a command can ask without loading the workflow loader.
 *
 * @module
 */

/**
 * Whether a workflow argument is a path rather than a name: it has a `/` (or
 * a backslash), ends in `.ts`/`.js`/`.mjs`, or starts with `.` — a name never does.
 *
 * @param nameOrPath the argument as given
 * @returns true for a path
 */
export function isWorkflowPathArg(nameOrPath: string): boolean {
  return /[/\\]|\.(ts|js|mjs)$/.test(nameOrPath) || nameOrPath.startsWith(".");
}
