/**
 * What a process interrupted by a signal must start before it exits: the
 * command's signal handler (`cli/ask_interrupt.ts`) runs these hooks, lower
 * layers register them (an MCP stdio server is ended properly, R91-5).
 * Plain data: no signal listener here (a listener would keep a signal from
 * ending a process that has no other).
 *
 * @module
 */

const hooks = new Set<() => void>();

/**
 * Registers a hook run once a signal interrupts the command.
 *
 * @param hook synchronous; it may start asynchronous work
 * @returns the unregister function
 */
export function onInterrupt(hook: () => void): () => void {
  hooks.add(hook);
  return () => void hooks.delete(hook);
}

/** Runs every registered hook (a failing one does not stop the others). */
export function runInterruptHooks(): void {
  for (const hook of [...hooks]) {
    try {
      hook();
    } catch { /* the process is going down: the others still run */ }
  }
}
