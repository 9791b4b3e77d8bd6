/**
 * A hint to the JavaScript runtime's garbage collector, for code that makes
 * a lot of short-lived text in a tight synchronous loop (`prov --json`
 * writes ~90 MB in ~150 ms on a big store).
 *
 * JavaScriptCore (the compiled binary's engine) does not collect such text
 * in time, even when the loop yields to the event loop now and then: the
 * peak memory grows by the size of everything written (+100 MB for that
 * `--json`); V8 (`deno run`) keeps up on its own. The only handle on it is Bun's own `Bun.gc`: used when
 * present, nothing elsewhere — no `Deno.*`, no flags, same output.
 *
 * @module
 */

/** Bun's collector handle, or undefined under another runtime. */
function bunRuntime(): { gc(force: boolean): void } | undefined {
  return (globalThis as { Bun?: { gc(force: boolean): void } }).Bun;
}

/**
 * Collects the young generation now when the runtime offers it (Bun); a
 * no-op elsewhere. Cheap (a few ms at most): call it every few MB of
 * garbage, not per object.
 */
export function collectYoungGarbage(): void {
  bunRuntime()?.gc(false);
}

/**
 * Resident size after the last {@link collectIfGrown} collection; at first,
 * a size below which collecting is not worth its time.
 */
let settled = 128 * 1048576;

/**
 * A full collection when the process has grown since the last one by an
 * eighth of its size then, and at least `mb` megabytes (Bun only; a no-op
 * elsewhere). JavaScriptCore decides when to collect by the size of its own
 * heap, and a walk's garbage is mostly file text held outside it: without
 * this the resident size of `llm prov` grows by hundreds of MB of garbage on
 * a big store. Growth in proportion keeps the number of collections (each
 * costs time in proportion to the live heap) logarithmic in the live size.
 * Checking the resident size costs a fraction of a millisecond (it reads
 * `/proc`): call this every few hundred files. Freed memory is reused before
 * the process grows again, so this bounds the growth rather than the size.
 *
 * @param mb the least growth that triggers a collection (default 48)
 */
export function collectIfGrown(mb = 48): void {
  const bun = bunRuntime();
  if (bun === undefined) return;
  const rss = process.memoryUsage.rss();
  if (rss < settled + Math.max(mb * 1048576, settled / 8)) return;
  bun.gc(true);
  settled = process.memoryUsage.rss();
}

/**
 * A full collection now if the process is big (Bun only; a no-op
 * elsewhere): for the moment before a stage that makes a burst of new data,
 * so that the burst lands on the live data alone rather than on the garbage
 * that happens to be waiting (which of the report's stages made the peak
 * used to depend on when the collector had last run). Below `floorMb` of
 * resident size it does nothing: on a small store it would cost more than
 * it saves.
 *
 * @param floorMb the resident size below which nothing is done (default 160)
 */
export function collectBeforeBurst(floorMb = 160): void {
  const bun = bunRuntime();
  if (bun === undefined || process.memoryUsage.rss() < floorMb * 1048576) return;
  bun.gc(true);
  settled = process.memoryUsage.rss();
}

/**
 * A full collection now (Bun only; a no-op elsewhere): for a thread whose
 * live heap is tiny, where it costs about a millisecond.
 */
export function collectAllGarbage(): void {
  bunRuntime()?.gc(true);
}
