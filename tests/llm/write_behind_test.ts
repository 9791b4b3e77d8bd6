/**
 * The inference cache's stores written behind (`src/llm/write_behind.ts`,
 * `cache_lock.ts`): a store under the key's lock is published at the next
 * turn of the event loop, the key locked until then — in this process and on
 * disk; `settleCacheWrites` waits for every queued store; the process's exit
 * publishes what is still queued (under Deno and under Bun, the binary's
 * engine); an ask returns with its entries on disk unless its caller settles
 * them (`deferCacheWrites`, a specialist's ask).
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ask } from "../../src/llm/ask.ts";
import { cacheDir } from "../../src/llm/cache.ts";
import { withKeyLock } from "../../src/llm/cache_lock.ts";
import { later, settleCacheWrites } from "../../src/llm/write_behind.ts";
import { DENO, ROOT, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

/** The cache directory's entries, without the holders' directory. */
const names = (dir: string) =>
  existsSync(dir)
    ? [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n !== ".holders").sort()
    : [];

/** The same without temp files (a store's file may be opening early: OPEN_EARLY, under Deno). */
const settledNames = (dir: string) => names(dir).filter((n) => !n.includes(".tmp-"));

Deno.test("a store under the lock is published behind; the key stays locked until then", async () => {
  await using home = await tempDir();
  const dir = join(home.path, "cache");
  let stored: Promise<void> | undefined;
  await withKeyLock(dir, "k", (commit) => {
    stored = commit("x");
    return Promise.resolve();
  });
  assert.deepEqual(
    settledNames(dir),
    ["k.lock"],
    "returned before the store: still locked on disk",
  );
  // an identical round of this process waits for the key, then finds the entry
  let seen: string | undefined;
  const second = withKeyLock(dir, "k", () => {
    seen = settledNames(dir).join(" ");
    return Promise.resolve();
  });
  await stored;
  assert.ok(settledNames(dir).includes("k.json"), "published");
  await second;
  assert.equal(seen, "k.json k.lock", "it ran once the entry was published, under its own lock");
  assert.equal(Deno.readTextFileSync(join(dir, "k.json")), "x");
  await settleCacheWrites();
  assert.deepEqual(names(dir), ["k.json"], "no temp file left");
});

/**
 * Removes `dir` now, in this turn of the event loop (before the store written
 * behind can run). Under Deno the entry's temp file is being opened in the
 * background meanwhile: when it appears between the removal's listing and its
 * `rmdir` ("Directory not empty"), the removal is tried again.
 */
function removeWhileOpening(dir: string): void {
  for (let attempt = 1;; attempt++) {
    try {
      Deno.removeSync(dir, { recursive: true });
      return;
    } catch (e) {
      if (attempt >= 50 || !/not empty|ENOTEMPTY/i.test(String(e))) throw e;
    }
  }
}

Deno.test("settleCacheWrites waits for every queued store; a failed one rejects its own promise and frees the key", async () => {
  await using home = await tempDir();
  const dir = join(home.path, "cache");
  const stores: Promise<void>[] = [];
  for (const key of ["a", "b"]) {
    await withKeyLock(dir, key, (commit) => {
      stores.push(commit(key));
      return Promise.resolve();
    });
  }
  await settleCacheWrites();
  assert.deepEqual(names(dir), ["a.json", "b.json"]);
  // the directory goes away before the store runs: the store fails, the key is free again
  let failing: Promise<void> | undefined;
  await withKeyLock(dir, "c", (commit) => {
    failing = commit("c");
    removeWhileOpening(dir);
    return Promise.resolve();
  });
  const outcome = failing!.then(() => "stored", (e: Error) => e.message);
  await settleCacheWrites();
  assert.match(await outcome, /No such file|ENOENT|not found/i);
  await withKeyLock(dir, "c", (commit) => commit("again"));
  assert.equal(Deno.readTextFileSync(join(dir, "c.json")), "again");
});

/** Runs `source` as a script under Deno or Bun (the binary's engine); asserts it exited 0. */
async function runChild(runtime: "deno" | "bun", dir: string, source: string): Promise<void> {
  const bun = join(ROOT, "tools", "node_modules", ".bin", "bun");
  if (runtime === "bun") {
    assert.ok(existsSync(bun), `Bun is not installed (${bun}): run tools/setup`);
  }
  const script = join(dir, "child.ts");
  Deno.writeTextFileSync(script, source);
  const [cmd, args] = runtime === "deno"
    ? [DENO, ["run", "-q", "-A", `--config=${join(ROOT, "deno.json")}`, script]]
    : [bun, [script]];
  const out = await new Deno.Command(cmd, { args }).output();
  assert.equal(out.code, 0, `${runtime}: ${new TextDecoder().decode(out.stderr)}`);
}

/** A child that queues a store and exits at once (`process.exit`). */
function exitingChild(dir: string): string {
  return `
    import process from "node:process";
    import { withKeyLock } from ${JSON.stringify(join(ROOT, "src/llm/cache_lock.ts"))};
    await withKeyLock(${JSON.stringify(dir)}, "k", (commit) => {
      commit("written at exit");
      return Promise.resolve();
    });
    process.exit(0);`;
}

Deno.test("a store still queued when the process exits is published (Deno and Bun)", async () => {
  for (const runtime of ["deno", "bun"] as const) {
    await using home = await tempDir();
    const dir = join(home.path, "cache");
    await runChild(runtime, home.path, exitingChild(dir));
    assert.deepEqual(names(dir), ["k.json"], `${runtime}: published, lock removed`);
    assert.equal(Deno.readTextFileSync(join(dir, "k.json")), "written at exit");
  }
});

Deno.test("an ask returns with its entries on disk, unless its caller settles them (deferCacheWrites)", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ text: "one" }, { text: "two" });
  const o = {
    backend: "openai",
    url: srv.url,
    model: "m",
    env: { SCOUT_HOME: home.path, OPENAI_API_KEY: "sk-x" },
  };
  const dir = cacheDir(home.path);
  await ask([{ role: "user", content: "first" }], o);
  assert.equal(names(dir).filter((n) => n.endsWith(".json")).length, 1);
  assert.deepEqual(names(dir).filter((n) => n.endsWith(".lock")), []);
  await ask([{ role: "user", content: "second" }], { ...o, deferCacheWrites: true });
  assert.equal(names(dir).filter((n) => n.endsWith(".json")).length, 1, "not yet published");
  assert.equal(names(dir).filter((n) => n.endsWith(".lock")).length, 1, "its key still locked");
  await settleCacheWrites();
  assert.equal(names(dir).filter((n) => n.endsWith(".json")).length, 2);
  assert.deepEqual(names(dir).filter((n) => n.endsWith(".lock")), []);
});

/**
 * This thread's CPU time in ms (Linux `/proc/thread-self/stat`: utime + stime,
 * in ticks of 10 ms): `process.cpuUsage` counts every thread of the process,
 * and `deno test --parallel` runs other test files on other threads of it.
 */
function threadCpuMs(): number {
  const fields = Deno.readTextFileSync("/proc/thread-self/stat").replace(/^.*\) /s, "").split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10; // fields 14 and 15 of stat(5)
}

Deno.test("a store waiting for its file's open waits for it, without turning the event loop meanwhile", async () => {
  let release!: () => void;
  const opened = new Promise<void>((r) => (release = r));
  let runs = 0;
  let ranAt = 0;
  const t0 = performance.now();
  const store = later(() => void (runs++, ranAt = performance.now()), opened);
  const cpu0 = threadCpuMs();
  await new Promise((r) => setTimeout(r, 300));
  const cpu = threadCpuMs() - cpu0;
  assert.equal(runs, 0, "not run before its file is open");
  // a store declining at every turn kept this thread busy for the whole wait (~300 ms)
  assert.ok(cpu < 150, `CPU of this thread while waiting: ${cpu} ms`);
  release();
  await store;
  assert.equal(runs, 1, "run once its file is open");
  assert.ok(ranAt - t0 >= 300);
  await settleCacheWrites();
});

/** A child that exits (`process.exit`) while its round holds a key and has stored nothing. */
function exitingMidRound(dir: string): string {
  return `
    import process from "node:process";
    import { withKeyLock } from ${JSON.stringify(join(ROOT, "src/llm/cache_lock.ts"))};
    void withKeyLock(${JSON.stringify(dir)}, "k", () => new Promise(() => {}));
    setTimeout(() => process.exit(0), 200);`;
}

Deno.test("a process that exits while a round holds its key leaves no lock or temp file (Deno and Bun, R161-1)", async () => {
  for (const runtime of ["deno", "bun"] as const) {
    await using home = await tempDir();
    const dir = join(home.path, "cache");
    await runChild(runtime, home.path, exitingMidRound(dir));
    assert.deepEqual(names(dir), [], `${runtime}: nothing left`);
  }
});

/** A child whose round has its answer in (`keep`), and that exits before the round's commit. */
function exitingWithAnswerIn(dir: string): string {
  return `
    import process from "node:process";
    import { withKeyLock } from ${JSON.stringify(join(ROOT, "src/llm/cache_lock.ts"))};
    void withKeyLock(${JSON.stringify(dir)}, "k", (_commit, keep) => {
      keep(() => "the answer");
      return new Promise(() => {});
    });
    setTimeout(() => process.exit(0), 200);`;
}

Deno.test("a process that exits after its round's answer is in, before the commit, stores it (Deno and Bun, R161)", async () => {
  const bun = join(ROOT, "tools", "node_modules", ".bin", "bun");
  assert.ok(existsSync(bun), `Bun is not installed (${bun}): run tools/setup`);
  for (const runtime of ["deno", "bun"]) {
    await using home = await tempDir();
    const dir = join(home.path, "cache");
    const script = join(home.path, "child.ts");
    Deno.writeTextFileSync(script, exitingWithAnswerIn(dir));
    const [cmd, args] = runtime === "deno"
      ? [DENO, ["run", "-q", "-A", `--config=${join(ROOT, "deno.json")}`, script]]
      : [bun, [script]];
    const out = await new Deno.Command(cmd as string, { args: args as string[] }).output();
    assert.equal(out.code, 0, `${runtime}: ${new TextDecoder().decode(out.stderr)}`);
    assert.deepEqual(names(dir), ["k.json"], `${runtime}: stored, the lock released`);
    assert.equal(Deno.readTextFileSync(join(dir, "k.json")), "the answer", runtime);
  }
});
