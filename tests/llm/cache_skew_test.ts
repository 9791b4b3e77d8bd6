/**
 * The inference cache's key locks across hosts whose clocks disagree
 * (R139-2): another host's holder beats on its own clock, so its lock is
 * judged by whether it beats while a waiter watches, not by its age on the
 * waiter's clock — except a date beyond any plausible skew
 * (`src/util/lock_watch.ts`), judged at a glance by a waiter, the holders'
 * sweep and `llm cache clean` alike.
 */
import assert from "node:assert/strict";
import { hostname } from "node:os";
import { join } from "node:path";
import { withKeyLock } from "../../src/llm/cache_lock.ts";
import { judgeLock } from "../../src/llm/cache_stale.ts";
import { cleanCache } from "../../src/llm/cache_clean.ts";
import { lockWatch } from "../../src/util/lock_watch.ts";
import { tempDir } from "../support/cli.ts";

const me = `${Deno.pid}@${hostname()}`;
const elsewhere = "99999@nodeA";
const at = (msFromNow: number) => new Date(Date.now() + msFromNow);

/** `<dir>/k.lock` held by `elsewhere`: a link to its holder file, both dated `msFromNow`. */
function plantLinked(dir: string, msFromNow: number): { lock: string; holder: string } {
  Deno.mkdirSync(join(dir, ".holders"), { recursive: true });
  const holder = join(dir, ".holders", elsewhere);
  const lock = join(dir, "k.lock");
  Deno.writeTextFileSync(holder, elsewhere);
  Deno.linkSync(holder, lock);
  Deno.utimeSync(holder, at(msFromNow), at(msFromNow));
  return { lock, holder };
}

Deno.test("a dead holder's lock of another host dated an hour ahead is taken over at once, its holder file swept (R139-2)", async () => {
  await using home = await tempDir();
  const dir = join(home.path, "cache");
  const { lock, holder } = plantLinked(dir, 3_600_000);
  const told: string[] = [];
  const t0 = Date.now();
  await withKeyLock(dir, "k", (commit) => {
    assert.equal(Deno.readTextFileSync(lock), me, "taken over");
    return commit("x");
  }, { waitMs: 3_000, warn: (m) => told.push(m) });
  assert.ok(Date.now() - t0 < 2_000, "not waited out");
  assert.deepEqual(told, []);
  assert.equal(Deno.readTextFileSync(join(dir, "k.json")), "x");
  assert.throws(() => Deno.statSync(lock), Deno.errors.NotFound);
  assert.throws(() => Deno.statSync(holder), Deno.errors.NotFound, "its holder file swept");
});

Deno.test("llm cache clean counts another host's lock and holder file dated beyond any clock skew, and leaves those a clock could have dated (R139-2)", async () => {
  await using home = await tempDir();
  for (
    const [name, ms, gone] of [["ahead", 3_600_000, true], ["behind", -3_600_000, true], [
      "near",
      -6 * 60_000,
      false,
    ], ["soon", 6 * 60_000, false]] as const
  ) {
    const dir = join(home.path, name);
    const { lock, holder } = plantLinked(dir, ms);
    const out = await cleanCache(dir, { olderMs: null, dryRun: false });
    assert.deepEqual(out.locks, gone ? [lock] : [], name);
    assert.deepEqual(out.holders, gone ? [holder] : [], name);
  }
});

Deno.test("a lock of another host dated 6 min back — its clock may be behind — is waited on while it beats, taken over once seen silent for 5 min (R139-2)", async () => {
  await using home = await tempDir();
  const dir = join(home.path, "cache");
  const { lock, holder } = plantLinked(dir, -6 * 60_000);
  await withKeyLock(dir, "k", (commit) => commit("x"), { waitMs: 300 });
  assert.equal(Deno.readTextFileSync(lock), elsewhere, "a holder whose clock is behind keeps it");
  // the watch, on a clock a test moves: silent for 5 min by what the waiter saw
  let now = Date.now();
  const watch = lockWatch(() => now);
  assert.equal((await judgeLock(lock, undefined, watch))!.stale, false);
  now += 301_000;
  assert.equal((await judgeLock(lock, undefined, watch))!.stale, true, "unchanged for 5 min");
  Deno.utimeSync(holder, at(-5 * 60_000), at(-5 * 60_000)); // it beats (its clock still behind)
  assert.equal((await judgeLock(lock, undefined, watch))!.stale, false, "it beat: alive");
  now += 299_000;
  assert.equal((await judgeLock(lock, undefined, watch))!.stale, false);
});
