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

/**
 * Collects the young generation now when the runtime offers it (Bun); a
 * no-op elsewhere. Cheap (a few ms at most): call it every few MB of
 * garbage, not per object.
 */
export function collectYoungGarbage(): void {
  (globalThis as { Bun?: { gc(force: boolean): void } }).Bun?.gc(false);
}

/** Resident size after the last {@link collectIfGrown} collection. */
let settled = 0;

/**
 * A full collection when the process has grown by `mb` megabytes of
 * resident memory since the last one (Bun only; a no-op elsewhere).
 * JavaScriptCore decides when to collect by the size of its own heap, and
 * a walk's garbage is mostly file text held outside it: without this the
 * resident size of `llm prov` grows by hundreds of MB of garbage on a big
 * store. A full collection of a small live heap costs a few ms; checking
 * the resident size costs microseconds, so call this every few hundred
 * files. Freed memory is reused before the process grows again, so this
 * bounds the growth rather than the size.
 *
 * @param mb growth that triggers a collection (default 48)
 */
export function collectIfGrown(mb = 48): void {
  const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun;
  if (bun === undefined) return;
  const rss = process.memoryUsage.rss();
  if (rss < settled + mb * 1048576) return;
  bun.gc(true);
  settled = process.memoryUsage.rss();
}

/**
 * A full collection now (Bun only; a no-op elsewhere): for a thread whose
 * live heap is tiny, where it costs about a millisecond.
 */
export function collectAllGarbage(): void {
  (globalThis as { Bun?: { gc(force: boolean): void } }).Bun?.gc(true);
}
