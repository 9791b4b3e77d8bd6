/**
 * The sidecars Scout keeps beside a job `X` — `X.md5`, `X.pid`, `X.notify`
 * — in `system clean` (R124-3), through the real CLI in a subprocess: they
 * are no jobs (Scout's listing leaves them out; they were listed and removed
 * as jobs of their own, `done_2.md5` "(done)"), and they go with their job
 * (a `.md5` left would stand for the digest of the result computed again);
 * a job named `X.pid` (its own `.info`) is no sidecar.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { runScout, tempDir } from "../support/cli.ts";
import { ageJob, present, putDoneJob, putJob, storeOpts } from "../support/store_ages.ts";

async function clean(d: string, args: string[]) {
  const r = await runScout(["system", "clean", ...args, "--json"], storeOpts(d));
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const out = JSON.parse(r.stdout);
  return {
    removed: out.removed.map((x: { shortPath: string; status: string }) => [x.shortPath, x.status])
      .sort(),
  };
}

Deno.test("system clean: X.md5, X.pid, X.notify are no jobs and go with X (R124-3)", async () => {
  await using d = await tempDir();
  const failed = putJob(d.path, "Baking/cake/failed_1", JSON.stringify({ status: "error" }), null);
  const old = putDoneJob(d.path, "Baking/cake/done_2", 10);
  // a job named keep.pid (its own .info) beside the failed job keep: it is no sidecar of keep
  const keep = putJob(d.path, "Baking/cake/keep", JSON.stringify({ status: "error" }), null);
  const keepPid = putJob(d.path, "Baking/cake/keep.pid", JSON.stringify({ status: "done" }), "1\n");
  for (const ext of [".md5", ".pid", ".notify"]) writeFileSync(failed + ext, "x\n");
  writeFileSync(old + ".md5", "0123456789abcdef0123456789abcdef\n");
  writeFileSync(join(dirname(old), "dead_3.pid"), "4194311\n"); // a Ruby job's pid file alone
  ageJob(failed, 2);
  ageJob(keep, 2);

  const dry = await runScout(
    ["system", "clean", "Baking", "--older", "5d", "--dry-run"],
    storeOpts(d.path),
  );
  assert.equal(dry.code, 0, dry.stderr);
  assert.doesNotMatch(dry.stdout, /\.(md5|pid|notify) /, "no sidecar listed as a job");
  assert.match(dry.stdout, /^would remove \S+\/done_2 \(done, /m);
  assert.match(dry.stdout, /^3 jobs would be removed/m);

  const run = await clean(d.path, ["Baking", "--older", "5d"]);
  assert.deepEqual(run.removed, [
    ["Baking/cake/done_2", "done"],
    ["Baking/cake/failed_1", "error"],
    ["Baking/cake/keep", "error"],
  ]);
  assert.deepEqual(readdirSync(dirname(old)).sort(), ["dead_3.pid", "keep.pid", "keep.pid.info"]);
  assert.ok(present(keepPid) && existsSync(keepPid));
});
