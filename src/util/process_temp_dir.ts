/**
 * A private temporary directory of this process (`mkdtemp`: mode 0700, a
 * name no other process has), removed with what it holds when the process
 * exits — for files worth keeping only while it runs, where nowhere lasting
 * can take them (a knowledge base's index when its directory and
 * `$SCOUT_HOME` are read-only). Removed on `process.exit` and a normal end,
 * as the inference cache's holder files are (`llm/cache_holder.ts`); a
 * `kill -9` leaves it to the system's temp cleaning. A signal's default
 * disposition runs no exit hook: the CLI, told before a directory is made
 * ({@link onProcessTempDir}), installs its signal listeners then, which exit
 * through the hooks (R107-3); a library host decides for itself.
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The directories made, by `<base>\0<prefix>`. */
const made = new Map<string, string>();
let exitHook = false;
/** Told before this process makes a temporary directory. */
const beforeMake = new Set<() => void>();

/**
 * Calls `fn` before this process makes a temporary directory (now, if it has
 * one already): the CLI's signal handling (`workflow/interrupt.ts`) installs
 * its listeners then, so that Ctrl-C or SIGTERM exits through the `exit`
 * hooks, which remove the directory. Registering the same `fn` again adds
 * nothing.
 *
 * @param fn called before each `mkdtemp` (keep it idempotent)
 */
export function onProcessTempDir(fn: () => void): void {
  beforeMake.add(fn);
  if (made.size > 0) fn();
}

function removeAtExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.on("exit", () => {
    for (const dir of made.values()) {
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch { /* the process is going: nothing to tell */ }
    }
  });
}

/**
 * The temporary directory an environment names: `TMPDIR`, `TMP` or `TEMP`
 * (as `os.tmpdir()` reads them), else `os.tmpdir()`.
 *
 * @param env environment
 * @returns the directory
 */
export function tempBase(env: Record<string, string | undefined>): string {
  return env.TMPDIR || env.TMP || env.TEMP || tmpdir();
}

/**
 * This process's private directory under `base` named `<prefix>XXXXXX`,
 * made on the first call (mode 0700) and removed at exit.
 *
 * @param base where it is made (see {@link tempBase})
 * @param prefix its name's start
 * @returns the directory
 * @throws the `mkdtemp` error when `base` refuses it
 */
export function processTempDir(base: string, prefix: string): string {
  const key = `${base}\0${prefix}`;
  const known = made.get(key);
  if (known !== undefined) return known;
  for (const fn of beforeMake) fn(); // before: a signal is never without its listener once it exists
  const dir = mkdtempSync(join(base, prefix));
  made.set(key, dir);
  removeAtExit();
  return dir;
}
