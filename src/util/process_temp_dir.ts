/**
 * A private temporary directory of this process (`mkdtemp`: mode 0700, a
 * name no other process has), removed with what it holds when the process
 * exits — for files worth keeping only while it runs, where nowhere lasting
 * can take them (a knowledge base's index when its directory and
 * `$SCOUT_HOME` are read-only). Removed on `process.exit` and a normal end,
 * as the inference cache's holder files are (`llm/cache_holder.ts`); a
 * `kill -9` leaves it to the system's temp cleaning.
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The directories made, by `<base>\0<prefix>`. */
const made = new Map<string, string>();
let exitHook = false;

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
  const dir = mkdtempSync(join(base, prefix));
  made.set(key, dir);
  removeAtExit();
  return dir;
}
