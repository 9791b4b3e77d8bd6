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
