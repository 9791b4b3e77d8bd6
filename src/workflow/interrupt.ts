/**
 * SIGINT/SIGTERM while jobs run (`workflow.md` §7.4 #7): every job of this
 * process that is between setup and done is marked `aborted` (synchronous
 * atomic info write), its tmp result removed and its lock released; then the
 * process exits with 128 + signal number. Handlers are installed only while
 * jobs run.
 *
 * @module
 */

type AbortFn = (signal: string) => void;

const running = new Map<string, AbortFn>();
let installed = false;

const EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

function onSignal(signal: string): void {
  for (const abort of [...running.values()].reverse()) {
    try {
      abort(signal);
    } catch { /* keep aborting the others: the process is going down */ }
  }
  running.clear();
  process.exit(EXIT[signal] ?? 1);
}

const onInt = () => onSignal("SIGINT");
const onTerm = () => onSignal("SIGTERM");

/**
 * Registers a running job; the returned function unregisters it.
 *
 * @param key the job path
 * @param abort synchronous cleanup run on SIGINT/SIGTERM
 * @returns the unregister function
 */
export function trackRunning(key: string, abort: AbortFn): () => void {
  running.set(key, abort);
  if (!installed) {
    installed = true;
    process.on("SIGINT", onInt);
    process.on("SIGTERM", onTerm);
  }
  return () => {
    running.delete(key);
    if (running.size === 0 && installed) {
      installed = false;
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
    }
  };
}
