/**
 * A chain of dependencies as deep as memory allows (R89-4 lifted): the job
 * graph is built on an explicit work stack, so a chain of 10,000 jobs builds
 * — job names as shallow builds give them — and a chain of thousands runs,
 * each body loading the job below; the walkers over such a chain (recursive
 * clean and its dry run, a job read back from disk through its infos, step
 * lookup, recursive inputs) do not recurse either. Under Deno a chain of
 * 1,000 ran the stack out while building; the walkers ran it out at 10,000.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { input, workflow } from "../../src/workflow/define.ts";
import { createJob, jobAt } from "../../src/workflow/job.ts";
import { cleanJobRecursive, cleanTargets, runJob } from "../../src/workflow/run.ts";
import { findStep, isDone, jobRecursiveInputs } from "../../src/workflow/context.ts";
import { jobStore } from "../../src/workflow/store.ts";
import type { Job } from "../../src/workflow/job_types.ts";
import { tempDir } from "../support/cli.ts";
import { ownRecord } from "../../src/util/own_record.ts";

/** `link` with `n` depends on `link` with `n - 1`; its value is `n` (each body loads the one below). */
const chainWorkflow = (dir: string) =>
  workflow("Deep", {
    jobsDir: join(dir, "jobs"),
    tasks: {
      link: {
        type: "integer",
        inputs: { n: input.integer({ default: 0 }), tag: input.string({ default: "x" }) },
        deps: [{
          task: "link",
          resolve: (_id, o) => (o.n as number) > 0 ? [{ inputs: { n: (o.n as number) - 1 } }] : [],
        }],
        run: async ({ n }, job) => (n as number) === 0 ? 0 : (await job.load("link") as number) + 1,
      },
    },
  });

const storeIn = (dir: string) =>
  jobStore({ env: { SCOUT_HOME: join(dir, "home") }, cwd: dir, jobsDir: join(dir, "jobs") });

/** The job `k` levels below `top`. */
function below(top: Job, k: number): Job {
  let j = top;
  for (let i = 0; i < k; i++) j = j.deps[0]!;
  return j;
}

Deno.test("createJob: a chain of 10,000 dependencies builds, named as shallow builds name them; walkers walk it", async () => {
  await using d = await tempDir();
  const wf = chainWorkflow(d.path);
  const store = storeIn(d.path);
  const top = createJob(wf, "link", { inputs: { n: 9_999 }, store });
  const bottom = below(top, 9_999);
  assert.equal(bottom.inputs.n, 0);
  assert.equal(bottom.deps.length, 0);
  assert.equal(bottom.path, join(d.path, "jobs", "Deep", "link", "Default"));
  for (const n of [0, 1, 7, 500]) {
    const shallow = createJob(wf, "link", { inputs: { n }, store });
    assert.equal(below(top, 9_999 - n).path, shallow.path, `n=${n}`);
  }
  // no step of that name: searched through the whole chain
  assert.equal(findStep(top, "nothing"), undefined);
  assert.deepEqual(jobRecursiveInputs(top), ownRecord({ n: 9_999, tag: "x" }));
  // nothing on disk yet: a recursive clean walks the chain and finds nothing to remove
  assert.deepEqual(await cleanTargets(top, true), []);
  await cleanJobRecursive(top);
  // each job's info naming its dependency, as a run writes it: read back through them all
  mkdirSync(dirname(top.path), { recursive: true });
  for (let j = top; j !== bottom; j = j.deps[0]!) {
    const info = { status: "error", dependencies: [j.deps[0]!.path] };
    writeFileSync(`${j.path}.info`, JSON.stringify(info));
  }
  writeFileSync(`${bottom.path}.info`, JSON.stringify({ status: "error" }));
  const back = jobAt(top.path, { store });
  assert.equal(below(back, 9_999).path, bottom.path);
  assert.equal(below(back, 9_999).deps.length, 0);
});

Deno.test("runJob: a chain of 3,000 dependencies runs, each body loading the one below", async () => {
  await using d = await tempDir();
  const store = storeIn(d.path);
  const top = createJob(chainWorkflow(d.path), "link", { inputs: { n: 2_999 }, store });
  assert.equal(await runJob(top), 2_999);
  assert.ok(isDone(below(top, 2_999)));
  assert.equal((await cleanTargets(top, true)).length, 3_000);
});
