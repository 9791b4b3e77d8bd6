/**
 * Removal of the jobs a store clean planned (R123-2): a job whose `.info`
 * cannot be read goes before any other (any job could be a dependency of
 * it), and when it turns out to stay at its turn — its lock taken by a run
 * since the plan — no job after it goes.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scanStore } from "../../src/workflow/store_scan.ts";
import { jobIndex, removalOrder } from "../../src/workflow/store_clean_deps.ts";
import { removeJobs } from "../../src/workflow/store_clean_remove.ts";
import type { CleanTarget } from "../../src/workflow/store_clean.ts";
import { tempDir } from "../support/cli.ts";
import { present } from "../support/store_ages.ts";
import { lockHolder } from "../support/lock_holder.ts";

Deno.test("removeJobs: a job with an unreadable .info found in use at its turn stops the removals", async () => {
  await using d = await tempDir();
  const root = join(d.path, "jobs");
  const write = (short: string, info: string) => {
    mkdirSync(join(root, short, ".."), { recursive: true });
    writeFileSync(join(root, short), "result\n");
    writeFileSync(join(root, short) + ".info", info);
  };
  write("Wf/dep/X", JSON.stringify({ status: "done" }));
  write("Wf/top/D", "\x04\x08{\x06:\x0bstatus:\x09done"); // a Ruby Marshal dump
  write("Wf/zed/Z", JSON.stringify({ status: "done", dependencies: [join(root, "Wf/top/D")] }));
  const jobs = scanStore([root], { workflows: null, tasks: null });
  const going = new Map<string, CleanTarget>(
    jobs.map((job) => [job.path, { job, status: "done" }]),
  );
  const order = removalOrder(jobs, going).map((t) => t.job.shortPath);
  assert.deepEqual(
    order,
    ["Wf/zed/Z", "Wf/top/D", "Wf/dep/X"],
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
  assert.deepEqual(out.removed.map((r) => r.job.shortPath), ["Wf/zed/Z"]);
  assert.deepEqual(out.kept.map((k) => [k.job.shortPath, k.reason]), [
    ["Wf/top/D", "in use: its lock is held"],
    ["Wf/dep/X", "the clean stopped: Wf/top/D stays, and which jobs it depends on cannot be known"],
  ]);
  assert.equal(present(join(root, "Wf/zed/Z")), false);
  assert.ok(present(join(root, "Wf/dep/X")));
});
