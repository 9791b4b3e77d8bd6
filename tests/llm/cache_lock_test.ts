/**
 * The cache's per-key lock across processes (`src/llm/cache_lock.ts`,
 * `cache_holder.ts`): the lock is a hard link to the process's holder file,
 * the entry is published by a rename and the lock removed; without hard links
 * the created lock file becomes the entry. Another process waits on a live
 * holder, takes over a dead one's lock (or one naming this process's pid) and
 * a lock torn by a crash mid-store, and runs unlocked after `waitMs` on a
 * fresh foreign lock. Holder files go when their process exits.
 */
import assert from "node:assert/strict";
import { hostname } from "node:os";
import { join } from "node:path";
import { type CachedRound, cacheReadEntry, withCacheLock } from "../../src/llm/cache.ts";
import { withKeyLock } from "../../src/llm/cache_lock.ts";
import { makeHolder } from "../../src/llm/cache_holder.ts";
import { DENO, ROOT, tempDir } from "../support/cli.ts";

const entry = (text: string): CachedRound => ({
  v: 2,
  created: "2026-12-03T09:00:00.000Z",
  endpoint: "",
  backend: "openai",
  model: "m",
  round: 1,
  items: [{ type: "text", text }],
  meta: null,
  stamps: [],
});

/** The cache directory's entries, without the holders' directory. */
const names = (dir: string) =>
  [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n !== ".holders").sort();
const me = `${Deno.pid}@${hostname()}`;

Deno.test("a held lock is a link to the holder file; the store publishes the entry and removes the lock", async () => {
  await using home = await tempDir();
  const dir = join(home.path, "cache");
  const lock = join(dir, "k.lock");
  const holder = join(dir, ".holders", me);
  const r = await withCacheLock(dir, "k", async (store) => {
    assert.equal(Deno.readTextFileSync(lock), me);
    assert.equal(Deno.statSync(lock).ino, Deno.statSync(holder).ino, "a hard link, no new file");
    await store(entry("stored"));
    // published and released: no lock, no temp file
    assert.deepEqual(names(dir), ["k.json"]);
    assert.notEqual(Deno.statSync(join(dir, "k.json")).ino, Deno.statSync(holder).ino);
    return "done";
  });
  assert.equal(r, "done");
  assert.deepEqual(names(dir), ["k.json"]);
  assert.equal(Deno.readTextFileSync(holder), me, "the holder is untouched by the store");
  const back = await cacheReadEntry(dir, "k");
  assert.deepEqual(back, entry("stored"));
  // no store: the lock and the background temp file are removed, no entry
  await withCacheLock(dir, "k2", () => Promise.resolve());
  assert.deepEqual(names(dir), ["k.json"]);
  // a failing run releases the lock as well
  await assert.rejects(withCacheLock(dir, "k3", () => Promise.reject(new Error("boom"))), /boom/);
  assert.deepEqual(names(dir), ["k.json"]);
});

Deno.test("without hard links (no holders' directory) the created lock file becomes the entry", async () => {
  await using home = await tempDir();
  const dir = join(home.path, "cache");
  Deno.mkdirSync(dir, { recursive: true });
  Deno.writeTextFileSync(join(dir, ".holders"), "not a directory");
  const lock = join(dir, "k.lock");
  await withCacheLock(dir, "k", async (store) => {
    assert.equal(Deno.readTextFileSync(lock), me);
    const before = Deno.statSync(lock).ino;
    await store(entry("stored"));
    assert.deepEqual(names(dir), ["k.json"]);
    assert.equal(Deno.statSync(join(dir, "k.json")).ino, before, "the lock file itself");
  });
  assert.deepEqual(await cacheReadEntry(dir, "k"), entry("stored"));
  await withKeyLock(dir, "k2", (commit) => commit("x")); // shorter than the holder text
  assert.equal(Deno.readTextFileSync(join(dir, "k2.json")), "x");
  await withCacheLock(dir, "k3", () => Promise.resolve());
  assert.deepEqual(names(dir), ["k.json", "k2.json"]);
});

Deno.test("holder files: removed when the process exits; a dead process's is swept", async () => {
  await using home = await tempDir();
  const dir = join(home.path, "cache");
  const gone = new Deno.Command(DENO, { args: ["eval", ""] }).spawn();
  await gone.status;
  Deno.mkdirSync(join(dir, ".holders"), { recursive: true });
  const dead = `${gone.pid}@${hostname()}`;
  const elsewhere = `${gone.pid}@another-host`;
  for (const h of [dead, elsewhere]) Deno.writeTextFileSync(join(dir, ".holders", h), h);
  const code = `
    import { withKeyLock } from ${JSON.stringify(join(ROOT, "src/llm/cache_lock.ts"))};
    await withKeyLock(${JSON.stringify(dir)}, "k", async (commit) => {
      console.log([...Deno.readDirSync(${
    JSON.stringify(join(dir, ".holders"))
  })].map((e) => e.name).sort().join(" "));
      await commit("x");
    });`;
  const out = await new Deno.Command(DENO, { args: ["eval", "-q", code] }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const during = new TextDecoder().decode(out.stdout).trim().split(" ");
  assert.ok(!during.includes(dead), "the dead process's holder was swept");
  assert.ok(during.includes(elsewhere), "another host's holder is not this host's to judge");
  assert.equal(during.length, 2, `its own holder was there: ${during}`);
  const after = [...Deno.readDirSync(join(dir, ".holders"))].map((e) => e.name);
  assert.deepEqual(after, [elsewhere], "its own holder went with it");
  assert.deepEqual(names(dir), ["k.json"]);
});

Deno.test("a lock naming this process's pid is an earlier process's (pid reused): taken over at once", async () => {
  await using home = await tempDir();
  const dir = join(home.path, "cache");
  Deno.mkdirSync(dir, { recursive: true });
  Deno.writeTextFileSync(join(dir, "k.lock"), me);
  const t0 = Date.now();
  await withCacheLock(dir, "k", (store) => store(entry("x")), { waitMs: 3_000 });
  assert.ok(Date.now() - t0 < 1_000, "not waited out");
  assert.deepEqual(names(dir), ["k.json"]);
});

Deno.test("another process holding the key: this one waits, then re-checks and finds its entry", async () => {
  await using home = await tempDir();
  const dir = join(home.path, "cache");
  // the child holds the key until its stdin closes (not a fixed time: under load a fixed
  // hold could pass before this process even tried the lock)
  const code = `
    import { withCacheLock } from ${JSON.stringify(join(ROOT, "src/llm/cache.ts"))};
    await withCacheLock(${JSON.stringify(dir)}, "k", async (store) => {
      console.log("held");
      for await (const _ of Deno.stdin.readable) { /* until the test closes it */ }
      await store(${JSON.stringify(entry("from the other process"))});
    });`;
  const child = new Deno.Command(DENO, {
    args: ["eval", "-q", code],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  assert.match((await reader.read()).value ?? "", /held/);
  let told!: () => void;
  const waiting = new Promise<"waiting">((r) => told = () => r("waiting"));
  const warnings: string[] = [];
  const seen = withCacheLock(dir, "k", async (store) => {
    const again = await cacheReadEntry(dir, "k");
    if (!again) await store(entry("ran it again")); // what the lock prevents
    return again;
  }, {
    warnAfterMs: 0,
    warn: (m) => {
      warnings.push(m);
      told();
    },
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const first = await Promise.race([
    waiting,
    seen.then(() => "ran" as const),
    new Promise<"late">((r) => timer = setTimeout(() => r("late"), 30_000)),
  ]).finally(() => clearTimeout(timer));
  assert.equal(first, "waiting", "it waited for the holder");
  assert.match(warnings[0]!, /^Waiting for another process's identical inference/);
  await child.stdin.close();
  assert.equal(
    (((await seen) as CachedRound | null)?.items[0] as { text: string }).text,
    "from the other process",
  );
  // cancels the decoding pipe and with it the child's stdout (which the pipe keeps locked
  // until the child closes it: cancelling stdout itself raced the child's exit)
  await reader.cancel();
  assert.equal((await child.status).code, 0);
  assert.deepEqual(names(dir), ["k.json"]);
});

Deno.test("a lock left by a dead process on this host is taken over at once", async () => {
  await using home = await tempDir();
  const dir = join(home.path, "cache");
  const gone = new Deno.Command(DENO, { args: ["eval", ""] }).spawn();
  await gone.status;
  Deno.mkdirSync(dir, { recursive: true });
  Deno.writeTextFileSync(join(dir, "k.lock"), `${gone.pid}@${hostname()}`);
  const t0 = Date.now();
  await withCacheLock(dir, "k", async (store) => {
    assert.equal(Deno.readTextFileSync(join(dir, "k.lock")), me);
    await store(entry("x"));
  }, { waitMs: 5_000 });
  assert.ok(Date.now() - t0 < 2_000);
  assert.deepEqual(names(dir), ["k.json"]);
});

Deno.test("a lock or holder naming pid 0 names no process: taken over and swept at once", async () => {
  // kill(0, 0) signals this process's group and succeeds: pid 0 once counted as alive
  await using home = await tempDir();
  const dir = join(home.path, "cache");
  const zero = `0@${hostname()}`;
  Deno.mkdirSync(join(dir, ".holders"), { recursive: true });
  Deno.writeTextFileSync(join(dir, ".holders", zero), zero);
  Deno.writeTextFileSync(join(dir, "k.lock"), zero);
  const t0 = Date.now();
  await withCacheLock(dir, "k", async (store) => {
    assert.equal(Deno.readTextFileSync(join(dir, "k.lock")), me);
    await store(entry("x"));
  }, { waitMs: 3_000 });
  assert.ok(Date.now() - t0 < 1_000, "not waited out");
  assert.deepEqual(names(dir), ["k.json"]);
  const holders = [...Deno.readDirSync(join(dir, ".holders"))].map((e) => e.name);
  assert.ok(!holders.includes(zero), "the pid-0 holder was swept");
});

Deno.test("a lock torn by a crash mid-store (no holder, untouched 5 s) is taken over; a fresh one is waited on", async () => {
  await using home = await tempDir();
  const dir = join(home.path, "cache");
  Deno.mkdirSync(dir, { recursive: true });
  const lock = join(dir, "k.lock");
  Deno.writeTextFileSync(lock, '{"v":2,"created":"2026-'); // a store that never finished
  const old = new Date(Date.now() - 10_000);
  Deno.utimeSync(lock, old, old);
  const t0 = Date.now();
  await withCacheLock(dir, "k", async (store) => {
    assert.equal(Deno.readTextFileSync(lock), me);
    await store(entry("x"));
  }, { waitMs: 3_000 });
  assert.ok(Date.now() - t0 < 2_000, "taken over, not waited out");
  assert.deepEqual(names(dir), ["k.json"]);
  // the same content written just now: someone is storing; wait, then run unlocked
  Deno.writeTextFileSync(join(dir, "k2.lock"), '{"v":2,"created":"2026-');
  const t1 = Date.now();
  await withCacheLock(dir, "k2", (store) => store(entry("unlocked")), { waitMs: 200 });
  assert.ok(Date.now() - t1 >= 200);
  // stored through a temp file; the other holder's lock is not this process's to remove
  assert.deepEqual(names(dir), ["k.json", "k2.json", "k2.lock"]);
  assert.equal(
    (((await cacheReadEntry(dir, "k2")) as CachedRound | null)?.items[0] as {
      text: string;
    }).text,
    "unlocked",
  );
});

Deno.test("a stored text shorter or longer than the holder text is the whole entry", async () => {
  await using home = await tempDir();
  const dir = join(home.path, "cache");
  await withKeyLock(dir, "k", (commit) => commit("x"));
  assert.equal(Deno.readTextFileSync(join(dir, "k.json")), "x");
  const long = "y".repeat(5_000);
  await withKeyLock(dir, "k2", (commit) => commit(long));
  assert.equal(Deno.readTextFileSync(join(dir, "k2.json")), long);
  assert.deepEqual(names(dir), ["k.json", "k2.json"]);
});

Deno.test("a holder file that cannot be written (a full disk) is not left behind (R73-4)", async () => {
  await using home = await tempDir();
  const dir = join(home.path, "cache");
  Deno.mkdirSync(dir, { recursive: true });
  const full = Object.assign(new Error("ENOSPC: no space left on device, write"), {
    code: "ENOSPC",
  });
  assert.throws(
    () =>
      makeHolder(dir, () => {
        throw full; // the holder created, nothing written into it
      }),
    /ENOSPC/,
  );
  assert.deepEqual([...Deno.readDirSync(join(dir, ".holders"))], [], "no empty holder left");
});
