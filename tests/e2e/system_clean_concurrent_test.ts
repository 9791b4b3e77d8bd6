/**
 * `system clean` next to runs in other processes (R120-1: removing job files
 * by hand while runs were in progress made 4 of 60 concurrent asks fail with
 * `Cannot write …: no such file or directory`): a job running in another
 * process is kept and finishes; a job whose lock another process holds is
 * kept until that process is gone; runs going on while cleans run over and
 * over all succeed, and the old jobs around them go.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain, runScout, tempDir } from "../support/cli.ts";
import { lockHolder } from "../support/lock_holder.ts";
import {
  ageJob,
  bakeStore,
  jobPath,
  JOBS,
  present,
  SLOW,
  storeOpts,
} from "../support/store_ages.ts";
import { readJobInfoSync } from "../../src/workflow/info.ts";
import { waitUntil } from "../support/wait.ts";

/** An old failed job of Slow/nap, next to the runs. */
function oldError(dir: string, name: string): string {
  const path = jobPath(dir, `Slow/nap/${name}`);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path + ".info", JSON.stringify({ status: "error", messages: ["RuntimeError: x"] }));
  ageJob(path, 100);
  return path;
}

Deno.test("system clean keeps a job running in another process, which then finishes", async () => {
  await using d = await tempDir();
  const o = storeOpts(d.path, { SLOW_SLEEP: "3" });
  const failed = oldError(d.path, "Default_old");
  const running = runScout(["workflow", "task", SLOW, "nap"], o);
  const nap = jobPath(d.path, "Slow/nap/Default");
  await waitUntil("the nap to start", () => readJobInfoSync(nap).info?.status === "napping");
  const r = await runMain(["system", "clean", "Slow", "--older", "0", "--json"], o);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out.removed.map((x: { path: string }) => x.path), [failed]);
  assert.equal(out.kept.length, 1);
  assert.equal(out.kept[0].path, nap);
  assert.match(out.kept[0].reason, /^running \(pid \d+\)$/);
  const done = await running;
  assert.equal(done.code, 0, done.stderr);
  assert.equal(done.stdout, "Slept 1\n");
  assert.ok(present(nap));
});

Deno.test("system clean keeps a job whose lock another live process holds; once it dies, job and lock go", async () => {
  await using d = await tempDir();
  await bakeStore(d.path);
  const broken = jobPath(d.path, JOBS.broken);
  ageJob(broken, 100);
  const lockDir = join(d.path, "scout", "tmp", "persist_locks");
  const holder = await lockHolder(broken, lockDir);
  try {
    const r = await runMain(["system", "clean", "Baking", "--json"], storeOpts(d.path));
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(out.removed, []);
    assert.deepEqual(out.kept.map((k: { path: string; reason: string }) => [k.path, k.reason]), [
      [broken, "in use: its lock is held"],
    ]);
    assert.ok(present(broken));
  } finally {
    await holder.kill();
  }
  const after = await runMain(["system", "clean", "Baking", "--json"], storeOpts(d.path));
  const out = JSON.parse(after.stdout);
  assert.deepEqual(out.removed.map((x: { path: string }) => x.path), [broken]);
  assert.equal(out.locks.length, 1, "the dead holder's lock goes first");
  assert.equal(present(broken), false);
  assert.deepEqual([...Deno.readDirSync(lockDir)], [], "no lock left");
});

Deno.test("runs in other processes all succeed while system clean runs over and over", async () => {
  await using d = await tempDir();
  await bakeStore(d.path);
  const old = Object.values(JOBS).map((j) => jobPath(d.path, j));
  for (const p of old) ageJob(p, 100);
  const olds = [1, 2, 3].map((i) => oldError(d.path, `Default_old${i}`));
  const o = storeOpts(d.path, { SLOW_SLEEP: "1" });
  const runs = [2, 3, 4, 5, 6, 7].map((s) =>
    runScout(["workflow", "task", SLOW, "nap", "--seconds", String(s)], o)
  );
  let finished = false;
  const all = Promise.all(runs).finally(() => finished = true);
  let cleans = 0;
  while (!finished) {
    const r = await runMain(["system", "clean", "all", "--older", "0"], o);
    assert.equal(r.code, 0, r.stderr);
    cleans++;
    // a clean is synchronous work: the runs' ends are told between two
    await new Promise((r) => setTimeout(r, 20));
  }
  const results = await all;
  results.forEach((r, i) => {
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `Slept ${i + 2}\n`);
  });
  assert.ok(cleans >= 2, `cleans ran during the runs (${cleans})`);
  for (const p of [...old, ...olds]) assert.equal(present(p), false, p);
});
