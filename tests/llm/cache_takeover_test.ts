/**
 * Taking over a stale cache lock (`src/llm/cache_stale.ts`) removes only the
 * lock judged stale, one taker at a time (R73-2): a competing waiter that took
 * the lock after the same judgement keeps it. The interleavings are played
 * through `acquire`'s step seam — the competitor's moves made by the test
 * between two steps of the waiter — not by timing.
 */
import assert from "node:assert/strict";
import { hostname } from "node:os";
import { join } from "node:path";
import { acquire } from "../../src/llm/cache_lock.ts";
import { DENO, tempDir } from "../support/cli.ts";

const me = `${Deno.pid}@${hostname()}`;
/** A live process of this host, never this one: pid 1. */
const live = `1@${hostname()}`;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function deadPid(): Promise<number> {
  const gone = new Deno.Command(DENO, { args: ["eval", ""] }).spawn();
  await gone.status;
  return gone.pid;
}

/** A cache directory whose key `k` is locked by a dead process of this host. */
async function staleLock(home: string): Promise<{ dir: string; lock: string }> {
  const dir = join(home, "cache");
  Deno.mkdirSync(dir, { recursive: true });
  const lock = join(dir, "k.lock");
  Deno.writeTextFileSync(lock, `${await deadPid()}@${hostname()}`);
  return { dir, lock };
}

/** What another waiter does after judging the same lock stale: removes it and takes the key. */
function competitorTakes(lock: string): void {
  Deno.removeSync(lock);
  Deno.writeTextFileSync(lock, live);
}

/** Acquires a stale lock while a competitor takes it at step `at`; what was held, and whether it played. */
async function raceAt(home: string, at: string) {
  const { dir, lock } = await staleLock(home);
  let played = false;
  const held = await acquire(dir, lock, {
    waitMs: 300,
    sleep,
    step: (step) => {
      if (step !== at || played) return;
      played = true;
      competitorTakes(lock);
    },
  });
  return { held, played, lock };
}

Deno.test("a stale lock another waiter took over after the same judgement is left to it", async () => {
  await using home = await tempDir();
  const { held, played, lock } = await raceAt(home.path, "judged");
  assert.ok(played, "the lock was judged stale");
  assert.equal(held, null, "the competitor's live lock was waited on, not removed");
  assert.equal(Deno.readTextFileSync(lock), live);
});

Deno.test("a lock replaced while its holder is read is judged by the new one", async () => {
  // the text read is the dead holder's, the file there by now a live waiter's lock
  await using home = await tempDir();
  const { held, played, lock } = await raceAt(home.path, "read");
  assert.ok(played);
  assert.equal(held, null, "not taken over");
  assert.equal(Deno.readTextFileSync(lock), live);
});

Deno.test("a taker in the gate is let finish; a crashed taker's gate is removed", async () => {
  await using home = await tempDir();
  const { dir, lock } = await staleLock(home.path);
  const gate = `${lock}.takeover`;
  Deno.writeTextFileSync(gate, "");
  const dead = Deno.readTextFileSync(lock);
  const t0 = Date.now();
  assert.equal(await acquire(dir, lock, { waitMs: 300, sleep }), null, "waited on the gate");
  assert.ok(Date.now() - t0 >= 300);
  assert.equal(Deno.readTextFileSync(lock), dead, "the lock is the taker's to remove");
  const old = new Date(Date.now() - 60_000);
  Deno.utimeSync(gate, old, old);
  const held = await acquire(dir, lock, { waitMs: 3_000, sleep });
  assert.deepEqual(held, { fd: null }, "taken over once the gate is a crashed taker's");
  assert.equal(Deno.readTextFileSync(lock), me);
  assert.throws(() => Deno.statSync(gate), Deno.errors.NotFound);
  Deno.removeSync(lock);
});
