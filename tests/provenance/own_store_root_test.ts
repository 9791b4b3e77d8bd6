/**
 * A job given by path implies its own store root (R105-5): a chat-task job
 * in a workflow's own `jobsDir` carries `meta: job=<Workflow>/<task>/<name>`
 * (a short path); walking from the job, with no `jobRoots`, resolves that
 * marker in the job's store, not only in the default roots — from the
 * library (`traverseProvenance`, `provenanceTokenTotals`) and from `llm prov`.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { workflow } from "../../src/workflow/define.ts";
import { createJob } from "../../src/workflow/job.ts";
import { runJob } from "../../src/workflow/run.ts";
import { chatTask } from "../../src/agent/mod.ts";
import { provenanceRoot } from "../../src/provenance/jobs.ts";
import { traverseProvenance } from "../../src/provenance/traverse.ts";
import { provenanceTokenTotals } from "../../src/provenance/tokens.ts";
import { homeIn, runScout, tempDir } from "../support/cli.ts";

/** A done chat-task job in `<dir>/jobs` (no default root holds it). */
async function jobInOwnStore(dir: string) {
  const wf = workflow("RvApp", {
    jobsDir: join(dir, "jobs"),
    tasks: chatTask("talk", () => [{ role: "assistant", content: "hello" }]),
  });
  const env = homeIn(dir);
  const job = createJob(wf, "talk", { env, inputs: { chat: "user:\n\nhi\n" } });
  await runJob(job);
  return { job, env: { ...env, HOME: dir } };
}

Deno.test("provenance: a job root's own meta job= marker resolves in the job's store, without jobRoots", async () => {
  await using dir = await tempDir();
  const { job, env } = await jobInOwnStore(dir.path);
  const o = { rootType: "job" as const, cwd: dir.path, env };
  const records = [...traverseProvenance(job.path, o)];
  assert.deepEqual(
    records.map((r) => [r.relation, r.kind, r.node.path, r.firstVisit]),
    [
      [null, "job", job.path, true],
      ["result", "chat", job.path, true],
      ["job", "job", job.path, false], // the result's own marker: the same job, not an error
    ],
  );
  assert.deepEqual(provenanceTokenTotals(job.path, o).tt, 0);
  // the roots given (and the default ones) still come first: the job's store is added after them
  const roots = provenanceRoot(job.path, { cwd: dir.path, env, jobsDirs: ["elsewhere"] }).jobRoots;
  assert.equal(roots[0], join(dir.path, "elsewhere"));
  assert.equal(roots.at(-1), join(dir.path, "jobs"));
  // a job whose .info names another workflow or task, or none, implies no store
  for (const info of [{ workflow: "RvApp", task_name: "other" }, {}]) {
    const stray = join(dir.path, "loose", "RvApp", "talk", "job");
    mkdirSync(dirname(stray), { recursive: true });
    writeFileSync(stray + ".info", JSON.stringify(info));
    const roots = provenanceRoot(stray, { cwd: dir.path, env }).jobRoots;
    assert.ok(!roots.includes(join(dir.path, "loose")), JSON.stringify(info));
  }
});

Deno.test("llm prov <job path>: a job in a store no default root names walks without --jobs-dir", async () => {
  await using dir = await tempDir();
  const { job, env } = await jobInOwnStore(dir.path);
  const r = await runScout(["llm", "prov", job.path, "--json"], { env, cwd: dir.path });
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.complete, true, r.stdout);
  assert.deepEqual(doc.warnings, []);
});
