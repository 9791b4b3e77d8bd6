/**
 * `workflow batch tail TARGET` picks a batch directory by exact match first
 * (directory, SLURM id, job), else by the start of exactly one directory name
 * or job short path; an all-digit target is a SLURM id, matched whole. A
 * target nothing matches is an error, not another job's log (R79-10). Stand-in
 * `squeue` on PATH; the batch directories are written by the test.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { env } from "./cli_support.ts";
import { standInSlurm } from "./deploy_fixtures.ts";

/** A batch directory of SLURM job `id` running `job` (a path under `home`), its std.err `log`. */
function batch(home: string, name: string, id: string, job: string, log: string): void {
  const dir = join(home, "var/batch", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "command.batch"), "#!/bin/bash\n");
  writeFileSync(join(dir, "job.id"), id + "\n");
  writeFileSync(join(dir, "jobs.list"), join(home, "var/jobs", job) + "\n");
  writeFileSync(join(dir, "std.err"), log + "\n");
}

Deno.test("batch tail: an unknown SLURM id is an error, never the log of a directory whose name holds its digits (R79-10)", async () => {
  await using d = await tempDir();
  const home = d.path;
  const a = "Pipe/a/Default_89dd77189ef284df65717dd9de1c00ad";
  batch(home, `SLURM_scout_job-Pipe-a-${a.split("/")[2]}-1a2b3c4d`, "12", a, "log of a");
  batch(home, "SLURM_scout_job-Pipe-b-Default-5e6f7a8b", "13", "Pipe/b/Default", "log of b");
  batch(home, "SLURM_scout_job-Pipe-bb-Default-9c0d1e2f", "14", "Pipe/bb/Default", "log of bb");
  const tail = (target: string) =>
    runMain(["workflow", "batch", "tail", target], {
      cwd: home,
      env: { ...env(home), PATH: `${standInSlurm(home)}:${process.env.PATH}` },
    });
  const unknown = await tail("77");
  assert.equal(unknown.code, 1);
  assert.equal(unknown.stdout, "");
  assert.match(unknown.stderr, /No batch directory in \S+ matches "77"/);

  const byId = await tail("12");
  assert.deepEqual([byId.code, byId.stdout], [0, "log of a\n"]);
  assert.match(
    byId.stderr,
    /^==> \S+-1a2b3c4d\/std\.err \(SLURM job 12, Pipe\/a\/Default_89dd\w+\) <==\n$/,
  );
  assert.equal((await tail("Pipe/b/Default")).stdout, "log of b\n", "a job's short path, whole");
  assert.equal((await tail("Pipe/a")).stdout, "log of a\n", "the start of one job's short path");
  assert.equal((await tail("SLURM_scout_job-Pipe-bb")).stdout, "log of bb\n");
  const several = await tail("Pipe/b");
  assert.equal(several.code, 1);
  assert.match(
    several.stderr,
    /"Pipe\/b" matches 2 batch jobs: "Pipe\/b\/Default", "Pipe\/bb\/Default"/,
  );
});

Deno.test("batch tail: a job run by two batch directories (an older scout-ai's name and today's) is an error listing both, not one picked (R84-2)", async () => {
  await using d = await tempDir();
  const home = d.path;
  const job = "Pipe/a/Default";
  batch(home, "SLURM_scout_job-Pipe-a-Default", "12", job, "old log");
  batch(home, "SLURM_scout_job-Pipe-a-Default-1a2b3c4d", "13", job, "new log");
  const tail = (target: string) =>
    runMain(["workflow", "batch", "tail", target], {
      cwd: home,
      env: { ...env(home), PATH: `${standInSlurm(home)}:${process.env.PATH}` },
    });
  const both = await tail(job);
  assert.equal(both.code, 1);
  assert.equal(both.stdout, "");
  assert.match(
    both.stderr,
    /"Pipe\/a\/Default" is run by 2 batch directories: SLURM_scout_job-Pipe-a-Default \(SLURM job 12\), SLURM_scout_job-Pipe-a-Default-1a2b3c4d \(SLURM job 13\) \(name one by its directory or SLURM id\)/,
  );
  assert.equal((await tail("13")).stdout, "new log\n", "the SLURM id names one");
  assert.equal(
    (await tail("SLURM_scout_job-Pipe-a-Default")).stdout,
    "old log\n",
    "so does the name",
  );
});
