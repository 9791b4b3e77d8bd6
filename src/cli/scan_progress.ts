/**
 * The progress line of a command that reads every job of a store (`system
 * clean`, `workflow list WORKFLOW`): `scout-ai: scanning jobs: N…` on
 * stderr while it reads them (R147-4: 100 000 jobs took tens of seconds
 * with nothing shown). Drawn as every progress line is (`status_line.ts`:
 * a terminal that can redraw it, never a pipe), first at once, then at
 * most every 100 ms.
 *
 * @module
 */
import type { Io } from "./io.ts";
import { statusLine } from "./status_line.ts";

/** The scan's progress line. */
export interface ScanProgress {
  /** One more job read. */
  job(): void;
  /** Erases the line (before a warning, and when the scan is over); the count goes on. */
  clear(): void;
}

/**
 * A progress line counting the jobs a scan reads.
 *
 * @param io the command's Io
 * @returns its `job` (count one) and `clear`
 *
 * @example
 * ```ts
 * import { processIo } from "./io.ts";
 * import { scanProgress } from "./scan_progress.ts";
 * const p = scanProgress(processIo());
 * p.job(); // on a TTY's stderr: "\r\x1b[Kscout-ai: scanning jobs: 1…"
 * p.clear(); // "\r\x1b[K"
 * ```
 */
export function scanProgress(io: Io): ScanProgress {
  const line = statusLine(io);
  let count = 0;
  let last = 0;
  return {
    job: () => {
      count++;
      const now = Date.now();
      if (now - last < 100) return;
      last = now;
      line.show(`scout-ai: scanning jobs: ${count}…`);
    },
    clear: () => line.clear(),
  };
}
