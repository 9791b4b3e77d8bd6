/**
 * A store scan keeps of each job's `.info` only what a clean uses (R147-2):
 * an agent job's chat is stored whole in `provided_inputs` and `inputs`
 * (Ruby parity), and the scan kept every job's info whole — a clean of a
 * store with 100 MB infos held ~200 MB per job. The clean's decisions stay
 * as they were, an input that is a job's path still keeping that job.
 * Real files in a temporary store (`tests/support/synthetic_store.ts`).
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { scanStore } from "../../src/workflow/store_scan.ts";
import { cleanStore } from "../../src/workflow/store_clean.ts";
import { tempDir } from "../support/cli.ts";
import { writeSyntheticStore } from "../support/synthetic_store.ts";

Deno.test("scanStore keeps no job's inputs, only what a clean uses", async () => {
  await using d = await tempDir();
  const root = join(d.path, "jobs");
  const [dep] = writeSyntheticStore({
    root,
    workflow: "Critic",
    task: "ask",
    jobs: 1,
    inputBytes: 100,
    daysOld: 40,
  });
  const big = writeSyntheticStore({
    root,
    workflow: "Planner",
    task: "ask",
    jobs: 3,
    inputBytes: 200_000,
    daysOld: 40,
    dependencies: [dep!],
  });
  const jobs = scanStore([root], { workflows: null, tasks: null });
  assert.equal(jobs.length, 4);
  for (const j of jobs) {
    assert.equal(j.info?.status, "done");
    assert.equal(j.info?.pid, 9444);
    assert.ok(!("provided_inputs" in (j.info ?? {})), `${j.shortPath} keeps provided_inputs`);
    assert.deepEqual(j.info?.inputs ?? [], [], `${j.shortPath} keeps its chat input`);
  }
  assert.deepEqual(jobs.find((j) => j.path === big[0])?.info?.dependencies, [dep]);
  // four infos of 400 kB read, a few hundred bytes each kept
  assert.ok(JSON.stringify(jobs).length < 10_000, `${JSON.stringify(jobs).length} chars kept`);
});

Deno.test("a clean still keeps a job an input names by its path, and its info's dependencies", async () => {
  await using d = await tempDir();
  const root = join(d.path, "jobs");
  const opts = { root, task: "ask", jobs: 1, inputBytes: 5_000, daysOld: 40 };
  const [byInput] = writeSyntheticStore({ ...opts, workflow: "Critic" });
  const [byDeps] = writeSyntheticStore({ ...opts, workflow: "Judge" });
  const [loose] = writeSyntheticStore({ ...opts, workflow: "Loose" });
  // a job in progress (its process alive) names one by an input, the other as a dependency
  const top = join(root, "Planner", "ask", "Running");
  writeSyntheticStore({ ...opts, workflow: "Planner" });
  writeFileSync(
    top + ".info",
    JSON.stringify({
      status: "start",
      pid: process.pid,
      provided_inputs: { chat: "x".repeat(5_000), plan: byInput },
      inputs: ["x".repeat(5_000), byInput],
      input_names: ["chat", "plan"],
      dependencies: [byDeps],
    }),
  );
  const jobs = scanStore([root], { workflows: null, tasks: null });
  assert.deepEqual(jobs.find((j) => j.path === top)?.info?.inputs, [byInput]);
  const out = await cleanStore(jobs, {
    olderMs: 30 * 86_400_000,
    keep: new Set(),
    lockDir: join(d.path, "locks"),
    dryRun: true,
  });
  const removed = out.removed.map((r) => r.job.path).sort();
  assert.ok(removed.includes(loose!), "an old job nothing needs goes");
  assert.ok(!removed.includes(byInput!) && !removed.includes(byDeps!), removed.join("\n"));
  const kept = new Map(out.kept.map((k) => [k.job.path, k.reason]));
  assert.equal(kept.get(byInput!), "a dependency of Planner/ask/Running, which stays");
  assert.equal(kept.get(byDeps!), "a dependency of Planner/ask/Running, which stays");
  assert.match(kept.get(top) ?? "", /^running \(pid \d+\)$/);
});

Deno.test("a dry run counts a job's sidecars as the clean removing them does (their directory listed once)", async () => {
  await using d = await tempDir();
  const root = join(d.path, "jobs");
  const paths = writeSyntheticStore({
    root,
    workflow: "Critic",
    task: "ask",
    jobs: 3,
    inputBytes: 1_000,
    daysOld: 40,
  });
  writeFileSync(paths[1]! + ".md5", "0123456789"); // a sidecar Scout leaves
  const clean = async (dryRun: boolean) => {
    const jobs = scanStore([root], { workflows: null, tasks: null });
    const o = { olderMs: 86_400_000, keep: new Set<string>(), lockDir: join(d.path, "l"), dryRun };
    return (await cleanStore(jobs, o)).removed.map((r) => [r.job.path, r.bytes]);
  };
  const dry = await clean(true);
  assert.equal(dry.length, 3);
  const [plain, withMd5] = [dry.find(([p]) => p === paths[0])!, dry.find(([p]) => p === paths[1])!];
  assert.equal(withMd5[1], (plain[1] as number) + 10, "the .md5's 10 bytes counted");
  assert.deepEqual(await clean(false), dry);
});
