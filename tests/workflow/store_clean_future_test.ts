/**
 * A job dated beyond the clock skew ahead (R163-2), judged by a clean whose
 * clock is moved: it goes once its last change (ctime) is older than
 * `--older`, and while that change too lies beyond the skew ahead (a file
 * server whose clock is), its age is unknown and it stays, saying so. What
 * the commands print: tests/cli/clean_future_dates_test.ts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { scanStore } from "../../src/workflow/store_scan.ts";
import { cleanStore } from "../../src/workflow/store_clean.ts";
import { tempDir } from "../support/cli.ts";
import { putJob } from "../support/store_ages.ts";

const HOUR = 3_600_000;
const FUTURE = new Date("2027-06-01T00:00:00Z");

async function judged(dir: string, now: number) {
  const root = join(dir, "scout", "var", "jobs");
  const jobs = scanStore([root], { workflows: null, tasks: null });
  return await cleanStore(jobs, {
    olderMs: HOUR,
    keep: new Set(),
    lockDir: join(dir, "locks"),
    lockSweepDir: null,
    now,
    dryRun: true,
  });
}

Deno.test("cleanStore: a job dated beyond the skew ahead goes once its last change is older than --older", async () => {
  await using d = await tempDir();
  const done = putJob(d.path, "Wf/t/Done", JSON.stringify({ status: "done" }), "x\n");
  const error = putJob(d.path, "Wf/t/Error", JSON.stringify({ status: "error" }), null);
  for (const f of [done, done + ".info", error + ".info"]) Deno.utimeSync(f, FUTURE, FUTURE);

  const later = await judged(d.path, Date.now() + 2 * HOUR);
  assert.deepEqual(later.removed.map((r) => [r.job.path, r.status]).sort(), [
    [done, "done"],
    [error, "error"],
  ]);
  assert.deepEqual(later.kept, []);
  for (const r of later.removed) {
    assert.ok(Math.abs(r.job.lastUsedMs - Date.now()) < 60_000, "its last change, not 2027");
    assert.equal(r.job.futureMs, FUTURE.getTime());
  }

  // a clock an hour behind the file's last change: beyond the skew too, the age is unknown
  const earlier = await judged(d.path, Date.now() - HOUR);
  assert.deepEqual(earlier.removed, []);
  assert.deepEqual(earlier.kept.map((k) => [k.job.path, k.status]).sort(), [
    [done, "done"],
    [error, "error"],
  ]);
  for (const k of earlier.kept) {
    assert.match(
      k.reason,
      /^dated in the future \(2027-06-01T00:00:00\.000Z, more than 10m ahead of this host's clock\), its last change too: its age is unknown$/,
    );
  }
});
