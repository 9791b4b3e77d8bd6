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

/** Below this resident size a collection is not worth its time (see {@link collectIfGrown}). */
const FLOOR = 160 * 1048576;

/**
 * The engine's heap (JavaScriptCore counts strings and typed arrays in it)
 * right after the last collection made here: the live data then.
 */
let liveHeap = 0;

/** A full collection now, noting what it left alive. */
function collectNow(bun: { gc(force: boolean): void }): void {
  bun.gc(true);
  liveHeap = process.memoryUsage().heapUsed;
}

/**
 * A full collection when the engine's heap has grown since the last one by
 * an eighth of what was live then, and at least `mb` megabytes (Bun only,
 * above 160 MB resident; a no-op elsewhere). JavaScriptCore decides when to
 * collect by its own measure, and a walk's garbage is mostly file text it
 * hardly counts: without this the resident size of `llm prov` grows by
 * hundreds of MB of garbage on a big store. Growth in proportion keeps the
 * number of collections (each costs time in proportion to the live heap)
 * logarithmic in the live size.
 *
 * The growth is the heap's, not the resident size's: freed memory goes back
 * to the system only some time after a collection, so the resident size
 * just after one overstates what lived, and steps measured from it ratcheted
 * up (the 2 GB bench store's walk peaked ~15 MB higher). The check costs a
 * few microseconds: call this every few hundred files.
 *
 * @param mb the least growth that triggers a collection (default 48)
 */
export function collectIfGrown(mb = 48): void {
  const bun = bunRuntime();
  if (bun === undefined || process.memoryUsage.rss() < FLOOR) return;
  const heap = process.memoryUsage().heapUsed;
  if (heap < liveHeap + Math.max(mb * 1048576, liveHeap / 8)) return;
  collectNow(bun);
}

/** Characters of text processed since the last collection made here. */
let textSince = 0;

/**
 * A full collection after every `chars` characters of text processed (Bun
 * only, above `floorMb` of resident size; a no-op elsewhere). For a loop whose
 * garbage grows with the text it reads but which JavaScriptCore's heap
 * measure hardly sees: the provenance walk parses every chat's facts on its
 * own thread, and between collections the resident size grew by the text
 * parsed (the 2 GB bench store's walk peaked ~20 MB above what a collection
 * every ~4 MB of facts leaves).
 *
 * @param length characters just processed
 * @param chars the text between two collections
 * @param floorMb the resident size below which nothing is collected
 */
export function collectPerText(length: number, chars: number, floorMb: number): void {
  textSince += length;
  if (textSince < chars) return;
  textSince = 0;
  const bun = bunRuntime();
  if (bun === undefined || process.memoryUsage.rss() < floorMb * 1048576) return;
  collectNow(bun);
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
  collectNow(bun);
}

/**
 * A full collection now (Bun only; a no-op elsewhere): for a thread whose
 * live heap is tiny, where it costs about a millisecond.
 */
export function collectAllGarbage(): void {
  bunRuntime()?.gc(true);
}
