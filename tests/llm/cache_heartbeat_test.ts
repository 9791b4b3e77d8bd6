/**
 * The cache locks' liveness heartbeat (`src/llm/cache_heartbeat.ts`, R73-3):
 * a live holder keeps its holder file's modification time — its linked locks'
 * — fresh; a lock or holder file without a heartbeat for 5 minutes is a dead
 * holder's, on any host (a process killed elsewhere cannot be asked by pid) or
 * on this one under a reused pid; and a wait on a live holder is told. (Another
 * host's clock may be off: its lock's age counts only beyond any plausible
 * skew, else what a waiter sees: `cache_skew_test.ts`, R139-2.)
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { withCacheLock } from "../../src/llm/cache.ts";
import { beat, heartbeatClock } from "../../src/llm/cache_heartbeat.ts";
import { withKeyLock } from "../../src/llm/cache_lock.ts";
import { tempDir } from "../support/cli.ts";

const me = `${Deno.pid}@${hostname()}`;
const elsewhere = "99999@node17";
/** A live process of this host that is not this one: pid 1 (here: a reused pid). */
const reused = `1@${hostname()}`;
/**
 * Silent for an hour: on this host's clock, 5 min is enough; another host's
 * lock, dated by its own clock, is judged by its age only beyond any plausible
 * skew (R139-2; short of that, by a watch: `cache_skew_test.ts`).
 */
const silent = () => new Date(Date.now() - 60 * 60_000);
const mtime = (file: string) => Deno.statSync(file).mtime!.getTime();

function lockedBy(home: string, holder: string, quiet: boolean) {
  const dir = join(home, "cache");
  Deno.mkdirSync(dir, { recursive: true });
  const lock = join(dir, "k.lock");
  Deno.writeTextFileSync(lock, holder);
  if (quiet) Deno.utimeSync(lock, silent(), silent());
  return { dir, lock };
}

for (const [holder, what] of [[elsewhere, "another host"], [reused, "a reused pid"]] as const) {
  Deno.test(`a lock of ${what} is waited on while it beats, taken over once silent for 5 min`, async () => {
    await using home = await tempDir();
    const fresh = lockedBy(join(home.path, "a"), holder, false);
    await withKeyLock(fresh.dir, "k", (commit) => commit("x"), { waitMs: 200 });
    assert.equal(Deno.readTextFileSync(fresh.lock), holder, "a live holder's lock is kept");
    const { dir, lock } = lockedBy(join(home.path, "b"), holder, true);
    const t0 = Date.now();
    await withKeyLock(dir, "k", (commit) => {
      assert.equal(Deno.readTextFileSync(lock), me, "taken over");
      return commit("x");
    }, { waitMs: 5_000 });
    assert.ok(Date.now() - t0 < 2_000, "not waited out");
    assert.throws(() => Deno.statSync(lock), Deno.errors.NotFound);
  });
}

Deno.test("the heartbeat refreshes the holder file — every linked lock's mtime — and a held created lock", async () => {
  await using home = await tempDir();
  const dir = join(home.path, "cache");
  const holder = join(dir, ".holders", me);
  await withKeyLock(dir, "k", (commit) => {
    const lock = join(dir, "k.lock");
    Deno.utimeSync(holder, silent(), silent());
    assert.ok(Date.now() - mtime(lock) > 300_000, "the lock is the holder's inode");
    beat();
    assert.ok(Date.now() - mtime(lock) < 60_000, "the lock beats with its holder");
    return commit("x");
  });
  // no hard links: the created lock file beats through its descriptor while held
  const flat = join(home.path, "flat");
  Deno.mkdirSync(flat);
  Deno.writeTextFileSync(join(flat, ".holders"), "not a directory");
  await withKeyLock(flat, "k", (commit) => {
    const lock = join(flat, "k.lock");
    Deno.utimeSync(lock, silent(), silent());
    beat();
    assert.ok(Date.now() - mtime(lock) < 60_000);
    return commit("x");
  });
  assert.equal(Deno.readTextFileSync(join(flat, "k.json")), "x");
});

Deno.test("holder files silent for 5 min are swept, of any host; beating ones are kept", async () => {
  await using home = await tempDir();
  const dir = join(home.path, "cache");
  const holders = join(dir, ".holders");
  Deno.mkdirSync(holders, { recursive: true });
  const beating = "4242@node18";
  for (const h of [elsewhere, reused, beating]) Deno.writeTextFileSync(join(holders, h), h);
  for (const h of [elsewhere, reused]) Deno.utimeSync(join(holders, h), silent(), silent());
  await withKeyLock(dir, "k", (commit) => commit("x"));
  const left = [...Deno.readDirSync(holders)].map((e) => e.name).sort();
  assert.deepEqual(left, [beating, me].sort());
});

Deno.test("a long wait is told once, naming the holder; a wait given up is told too", async () => {
  await using home = await tempDir();
  const { dir } = lockedBy(home.path, elsewhere, false);
  const told: string[] = [];
  await withCacheLock(dir, "k", () => Promise.resolve(), {
    waitMs: 300,
    warnAfterMs: 0,
    warn: (m) => told.push(m),
  });
  const lock = join(dir, "k.lock");
  assert.equal(told.length, 2);
  assert.equal(
    told[0],
    `Waiting for another process's identical inference (lock "${lock}" held by ${elsewhere})…`,
  );
  assert.match(
    told[1]!,
    /^Gave up waiting for lock ".*k\.lock" held by 99999@node17 after \d+ s: running the inference without it$/,
  );
  // a short wait is not told until given up
  told.length = 0;
  await withCacheLock(dir, "k", () => Promise.resolve(), {
    waitMs: 100,
    warn: (m) => told.push(m),
  });
  assert.equal(told.length, 1);
  assert.match(told[0]!, /^Gave up waiting/);
});

Deno.test("a holder whose heartbeat lapsed does not remove the lock another took over meanwhile (R78-2)", async () => {
  await using home = await tempDir();
  const dir = join(home.path, "cache");
  const saved = heartbeatClock.lastBeat;
  try {
    for (const commits of [false, true]) {
      const key = commits ? "stored" : "dropped";
      const lock = join(dir, `${key}.lock`);
      await withKeyLock(dir, key, async (commit) => {
        // this process was silent for minutes (its loop blocked): another host took the key over
        heartbeatClock.lastBeat = Date.now() - 400_000;
        Deno.removeSync(lock);
        Deno.writeTextFileSync(lock, elsewhere);
        if (commits) await commit('{"v":2}');
      });
      assert.equal(Deno.readTextFileSync(lock), elsewhere, `${key}: the new holder's lock stays`);
      if (commits) assert.equal(Deno.readTextFileSync(join(dir, `${key}.json`)), '{"v":2}');
      heartbeatClock.lastBeat = Date.now();
    }
    // beating: a lock is released by name as before
    await withKeyLock(dir, "fresh", (commit) => commit('{"v":2}'));
    assert.equal(existsSync(join(dir, "fresh.lock")), false);
  } finally {
    heartbeatClock.lastBeat = saved;
  }
});
