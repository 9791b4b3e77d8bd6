/**
 * Removal of the jobs a store clean planned (R123-2): a job whose `.info`
 * cannot be read goes before any other (any job could be a dependency of
 * it), and when it turns out to stay at its turn — its lock taken by a run
 * since the plan — no done job after it goes; since R124-1 the jobs that
 * never finished still do.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scanStore } from "../../src/workflow/store_scan.ts";
import { jobIndex, removalOrder } from "../../src/workflow/store_clean_deps.ts";
import { removeJobs } from "../../src/workflow/store_clean_remove.ts";
import type { CleanTarget } from "../../src/workflow/store_clean.ts";
import { tempDir } from "../support/cli.ts";
import { lockPathFor } from "../../src/workflow/store.ts";
import { present } from "../support/store_ages.ts";
import { lockHolder } from "../support/lock_holder.ts";

Deno.test("removeJobs: a job with an unreadable .info found in use at its turn keeps the done jobs after it", async () => {
  await using d = await tempDir();
  const root = join(d.path, "jobs");
  const write = (short: string, info: string, result = true) => {
    mkdirSync(join(root, short, ".."), { recursive: true });
    if (result) writeFileSync(join(root, short), "result\n");
    writeFileSync(join(root, short) + ".info", info);
  };
  write("Wf/dep/X", JSON.stringify({ status: "done" }));
  write("Wf/top/D", "\x04\x08{\x06:\x0bstatus:\x09do"); // a Ruby Marshal dump cut short
  write("Wf/err/E", JSON.stringify({ status: "error" }), false);
  write("Wf/zed/Z", JSON.stringify({ status: "done", dependencies: [join(root, "Wf/top/D")] }));
  const jobs = scanStore([root], { workflows: null, tasks: null });
  const going = new Map<string, CleanTarget>(
    jobs.map((job) => [job.path, { job, status: job.done ? "done" : "error" }]),
  );
  const order = removalOrder(jobs, going).map((t) => t.job.shortPath);
  assert.deepEqual(
    order,
    ["Wf/zed/Z", "Wf/top/D", "Wf/dep/X", "Wf/err/E"],
    "the unreadable one and its dependents first",
  );

  const lockDir = join(d.path, "locks");
  await using _holder = await lockHolder(join(root, "Wf/top/D"), lockDir);
  const out = await removeJobs(removalOrder(jobs, going), {
    lockDir,
    dryRun: false,
    find: jobIndex(jobs),
    rejudge: () => ({ go: true, status: "done" }),
  });
  assert.deepEqual(out.removed.map((r) => r.job.shortPath), ["Wf/zed/Z", "Wf/err/E"]);
  assert.deepEqual(out.kept.map((k) => [k.job.shortPath, k.reason]), [
    ["Wf/top/D", "in use: its lock is held"],
    ["Wf/dep/X", "may be a dependency of Wf/top/D, whose .info cannot be read"],
  ]);
  assert.equal(out.warnings.length, 1);
  assert.match(out.warnings[0]!, /^Cannot tell which jobs Wf\/top\/D depends on: .*ends too early/);
  assert.equal(present(join(root, "Wf/zed/Z")) || present(join(root, "Wf/err/E")), false);
  assert.ok(present(join(root, "Wf/dep/X")));
});

Deno.test("removeJobs: a job whose lock became a FIFO since the plan stays, and is said to (R125)", async () => {
  await using d = await tempDir();
  const root = join(d.path, "jobs");
  const job = join(root, "Wf", "t", "J");
  mkdirSync(join(job, ".."), { recursive: true });
  writeFileSync(job, "result\n");
  writeFileSync(job + ".info", JSON.stringify({ status: "done" }));
  const jobs = scanStore([root], { workflows: null, tasks: null });
  const lockDir = join(d.path, "locks");
  mkdirSync(lockDir);
  const made = new Deno.Command("mkfifo", { args: [lockPathFor(job, lockDir)] }).outputSync();
  assert.equal(made.code, 0);
  const out = await removeJobs(jobs.map((job) => ({ job, status: "done" })), {
    lockDir,
    dryRun: false,
    find: jobIndex(jobs),
    rejudge: () => ({ go: true, status: "done" }),
  });
  // before: failed, "cannot take its lock: Lock file "…" is a FIFO, not a lock: …"
  assert.deepEqual(out.failed.map((f) => f.error), []);
  assert.deepEqual(out.kept.map((k) => [k.job.shortPath, k.reason]), [
    ["Wf/t/J", "its lock is not a regular file: a FIFO"],
  ]);
  assert.ok(present(job));
});
