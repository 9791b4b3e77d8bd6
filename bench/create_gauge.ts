/**
 * What creating one small file in a new temp directory costs now (ms, median
 * of 200): one file a cached inference, so the figure the agents bench's cache
 * rows depend on. On ext4 without a journal, a block group with inodes freed
 * in the last minutes makes every create scan past them (`recently_deleted`;
 * design-notes, "Agents bench" and "Eighth pass"): the gauge tells a quiet
 * invocation from one that follows a clean-up.
 *
 * @module
 */
import { join } from "node:path";
import { median } from "./stats.ts";

/** Above this a create (ms) pays for files deleted nearby in the last minutes. */
export const QUIET_CREATE_MS = 0.05;

/** The gauge read before and after an invocation's runs, ms. */
export interface CreateGauge {
  /** Before the first run. */
  before: number;
  /** After the last run (NaN when the runs failed). */
  after: number;
}

/**
 * Reads the gauge. Its directory joins `dirs`, to be removed with the runs'
 * at the end: removed now, its 200 inodes would slow the runs' own creates.
 *
 * @param dirs directories the caller removes at the end
 * @returns the median create, ms
 */
export function createCostMs(dirs: string[]): number {
  const at = Deno.makeTempDirSync({ prefix: "scout-agents-bench-create-" });
  dirs.push(at);
  const ms: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t0 = performance.now();
    Deno.writeTextFileSync(join(at, `f${i}`), "x");
    ms.push(performance.now() - t0);
  }
  return median(ms);
}

/**
 * The bench header's words for the gauge, with a warning when the invocation
 * began above {@link QUIET_CREATE_MS}.
 *
 * @param g the gauge
 * @returns the text
 */
export function gaugeText(g: CreateGauge): string {
  const warning = g.before > QUIET_CREATE_MS
    ? ` — above ${QUIET_CREATE_MS} ms: files were deleted under the temp directory in the last ` +
      "minutes, and every create (one a cached inference) pays for it; for figures comparable " +
      "with other invocations, run again after five minutes without deletions"
    : "";
  return `one file create in a new temp directory: ${g.before.toFixed(3)} ms before the runs, ` +
    `${g.after.toFixed(3)} after (median)${warning}`;
}
