/**
 * A private temporary directory of this process (`mkdtemp`: mode 0700, a
 * name no other process has), removed with what it holds when the process
 * exits — for files worth keeping only while it runs, where nowhere lasting
 * can take them (a knowledge base's index when its directory and
 * `$SCOUT_HOME` are read-only); and temp files removed at exit unless the
 * work that writes them ends first (an index build's, renamed into place
 * when done: {@link processTempFile}). Removed on `process.exit` and a
 * normal end, as the inference cache's holder files are
 * (`llm/cache_holder.ts`); a `kill -9` leaves the directory to the system's
 * temp cleaning, a temp file to its next writer's sweep
 * (`util/dead_temps.ts`). A signal's default disposition runs no exit hook:
 * the CLI, told before a directory or such a file is made
 * ({@link onProcessTempDir}), installs its signal listeners then, which exit
 * through the hooks (R107-3, R112-4); a library host decides for itself.
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The directories made, by `<base>\0<prefix>`. */
const made = new Map<string, string>();
/** The temp files to remove at exit ({@link processTempFile}). */
const files = new Set<string>();
let exitHook = false;
/** Told before this process makes a temporary directory. */
const beforeMake = new Set<() => void>();

/**
 * Calls `fn` before this process makes a temporary directory or a temp file
 * removed at exit (now, if it has one already): the CLI's signal handling
 * (`workflow/interrupt.ts`) installs its listeners then, so that Ctrl-C or
 * SIGTERM exits through the `exit` hooks, which remove them. Registering the
 * same `fn` again adds nothing.
 *
 * @param fn called before each `mkdtemp` and temp file (keep it idempotent)
 */
export function onProcessTempDir(fn: () => void): void {
  beforeMake.add(fn);
  if (made.size > 0 || files.size > 0) fn();
}

function removeAtExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.on("exit", () => {
    for (const path of [...made.values(), ...files]) {
      try {
        rmSync(path, { recursive: true, force: true });
      } catch { /* the process is going: nothing to tell */ }
    }
  });
}

/**
 * Removes `file` when the process exits, unless the returned function is
 * called first (the work done: the file renamed into place or removed) — a
 * temp file that an interrupted build would leave, as large as the index
 * (R112-4). Told first, the CLI installs its signal listeners
 * ({@link onProcessTempDir}): a signal then exits 128 + n through the hook.
 * JavaScript cannot run a listener while synchronous work runs, so a signal
 * during a synchronous build takes effect when the build is done.
 *
 * @param file the temp file about to be made
 * @returns forgets it (call once the file is renamed or removed)
 */
export function processTempFile(file: string): () => void {
  for (const fn of beforeMake) fn(); // before: the file is never without its listener
  return removedAtExit(file);
}

/**
 * Removes `file` when the process exits (`process.exit`, a normal end),
 * unless the returned function is called first — as {@link processTempFile},
 * but installing no signal listener: for an atomic write's temp file
 * (`atomic_write.ts`), which a command exiting on a signal mid-write (a late
 * Ctrl-C during an ask's save of a large chat, R141-1) must not leave
 * behind, while a command that takes no signal keeps the default
 * disposition (R130-1).
 *
 * @param file the temp file about to be made
 * @returns forgets it (call once the file is renamed or removed)
 */
export function removedAtExit(file: string): () => void {
  files.add(file);
  removeAtExit();
  return () => void files.delete(file);
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
