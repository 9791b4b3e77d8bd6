/**
 * Waiting in tests for what should happen soon, with a deadline instead of a
 * fixed sleep: free when it happens early, and generous for a loaded machine.
 */

/**
 * Polls `check` (a throw counts as not yet) every 25 ms until it holds or
 * `ms` have passed.
 *
 * @param check the condition
 * @param ms the deadline (default 30 s)
 * @returns whether it held in time
 */
export async function waitFor(check: () => boolean, ms = 30_000): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      if (check()) return true;
    } catch { /* not yet */ }
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * {@link waitFor}, failing the test when `check` has not held within `ms`.
 *
 * @param what what is waited for, as the error names it
 * @param check the condition
 * @param ms the deadline (default 30 s)
 */
export async function waitUntil(what: string, check: () => boolean, ms = 30_000): Promise<void> {
  if (!(await waitFor(check, ms))) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}
