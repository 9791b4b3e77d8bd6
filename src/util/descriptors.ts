/**
 * Running out of file descriptors (`EMFILE`: this process's limit, `ulimit
 * -n`; `ENFILE`: the system's), and a file operation that waits for some:
 * the save of a chat a run paid for must not fail because the run's idle
 * connections still hold the descriptors it needs (R119-5).
 *
 * @module
 */
import { closeIdleConnections } from "./http_client.ts";

/** Codes of a process or system out of file descriptors. */
const OUT = new Set(["EMFILE", "ENFILE"]);

/**
 * The OS error behind `e` (itself or one of its causes) when it says the
 * process or the system has no file descriptor left; null otherwise.
 *
 * @example
 * ```ts
 * import { outOfDescriptors } from "./descriptors.ts";
 * outOfDescriptors(Object.assign(new Error("x"), { code: "EMFILE" }))?.code; // "EMFILE"
 * ```
 *
 * @param e what was caught
 * @returns the OS error, or null
 */
export function outOfDescriptors(e: unknown): NodeJS.ErrnoException | null {
  const seen = new Set<unknown>();
  for (let x = e; x !== null && typeof x === "object" && !seen.has(x); x = (x as Error).cause) {
    seen.add(x);
    const code = (x as NodeJS.ErrnoException).code;
    if (typeof code === "string" && OUT.has(code)) return x as NodeJS.ErrnoException;
  }
  return null;
}

/** The waits between the tries of {@link whenDescriptorsFree} (ms): about 3 s in all. */
const WAITS_MS = [20, 50, 100, 200, 400, 800, 1600];

/**
 * Runs `fn`; while it fails for want of file descriptors, closes the idle
 * HTTP connections this process keeps ({@link closeIdleConnections}) and
 * tries again after a short wait (some may also be freed by the work still
 * ending: a specialist's files, a server's pipes), about 3 s in all. Another
 * failure, or the last one, is thrown.
 *
 * @param fn the operation (it must leave nothing held when it throws)
 * @param sleep how a wait is made (default: a timer)
 * @returns what `fn` returns
 */
export async function whenDescriptorsFree<T>(
  fn: () => Promise<T>,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<T> {
  for (let attempt = 0;; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (outOfDescriptors(e) === null || attempt >= WAITS_MS.length) throw e;
      closeIdleConnections();
      await sleep(WAITS_MS[attempt]!);
    }
  }
}
