/**
 * `--deploy slurm`'s batch directory of a job whose name is as long as Scout
 * lets it be, in a workflow and task with long names: a name a file system
 * can create (255 bytes), still the job's own; a name that fits is not cut.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { input, workflow } from "../../src/workflow/define.ts";
import { createJob } from "../../src/workflow/job.ts";
import { batchDirName } from "../../src/workflow/deploy/slurm_units.ts";
import { homeIn, tempDir } from "../support/cli.ts";

/** `task` with `n` depends on `task` with `n - 1`; `label` names the job. */
const chain = (jobsDir: string, name = "DeepSlurm", task = "link") =>
  workflow(name, {
    jobsDir,
    tasks: {
      [task]: {
        type: "integer",
        inputs: { n: input.integer({ default: 0 }), label: input.string({ jobname: true }) },
        deps: [{
          task,
          resolve: (_id, o) => (o.n as number) > 0 ? [{ inputs: { n: (o.n as number) - 1 } }] : [],
        }],
        run: ({ n }) => n as number,
      },
    },
  });

Deno.test("batch units: a job with a long name gets a directory name of at most 255 bytes, its own", async () => {
  await using d = await tempDir();
  const [wfName, task] = ["W".repeat(40), "t".repeat(40)];
  const wf = chain(join(d.path, "jobs"), wfName, task);
  // a jobname Scout keeps whole (150 characters) and, with `n` given, its digest
  const labels = ["a", "b"].map((end) => "x".repeat(149) + end);
  const env = homeIn(d.path);
  const jobs = labels.map((label) => createJob(wf, task, { inputs: { label, n: 1 }, env }));
  const dirs = jobs.map(batchDirName);
  assert.notEqual(dirs[0], dirs[1]);
  for (const name of dirs) {
    assert.equal(new TextEncoder().encode(name).length, 255);
    assert.ok(name.startsWith(`SLURM_scout_job-${wfName}-${task}-${"x".repeat(100)}`), name);
    assert.match(name, /-[0-9a-f]{8}$/);
    mkdirSync(join(d.path, name)); // a file system takes it
  }
  // a name that fits is not cut
  const short = createJob(wf, task, { inputs: { label: "short", n: 1 }, env });
  assert.equal(
    batchDirName(short),
    `SLURM_scout_job-${wfName}-${task}-${short.name}-${batchDirName(short).slice(-8)}`,
  );
});
