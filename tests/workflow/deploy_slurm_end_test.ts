/**
 * `--deploy slurm --wait` without SLURM (stand-in `sbatch` and `squeue` on
 * PATH): how the top job's batch job ended decides the exit code; a failure
 * is named on stderr with its state, reason and std.err (or that it never
 * ran, when it wrote none); `--json` carries the end.
 */
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { BAKING, env } from "./cli_support.ts";
import { slurmTask, standInSlurm } from "./deploy_fixtures.ts";

const deploy = (home: string, extra: string[], state: Record<string, string>) =>
  slurmTask(home, [BAKING, "batter", "--deploy", "slurm", "--wait", ...extra], state);

Deno.test("slurm --wait: a failed top job exits 1, naming its state, reason and std.err", async () => {
  await using d = await tempDir();
  const r = await deploy(d.path, [], {
    SQ_STATE: "FAILED",
    SQ_REASON: "NonZeroExitCode",
    SB_STDERR: "the batch job's log",
  });
  assert.equal(r.code, 1);
  // under --wait stdout is for the result: the table goes to stderr (R79-13)
  assert.equal(r.stdout, "");
  assert.ok(
    r.stderr.includes(
      "Baking/whisk/Default\t101\tsubmitted\nBaking/batter/Default.json\t102\tsubmitted\n",
    ),
    r.stderr,
  );
  const dir = join(
    d.path,
    "var/batch",
    readdirSync(join(d.path, "var/batch")).find((n) => n.includes("batter"))!,
  );
  assert.match(
    r.stderr,
    new RegExp(
      `\nscout-ai: Baking/batter/Default\\.json ended FAILED \\(NonZeroExitCode\\); see ${dir}/std\\.err\n$`,
    ),
  );
});

Deno.test("slurm --wait --json: the end in the JSON; completed without a result exits 1, cancelled 1", async () => {
  await using d = await tempDir();
  // SLURM says COMPLETED, yet no result was written (nothing ran): not a success (R79-13)
  const ok = await deploy(join(d.path, "a"), ["--json"], {});
  assert.equal(ok.code, 1, ok.stderr);
  const out = JSON.parse(ok.stdout);
  assert.deepEqual(out.end, { state: "COMPLETED", reason: "None" });
  assert.deepEqual(out.units.map((u: { slurmId: string }) => u.slurmId), ["101", "102"]);
  assert.match(out.error, /^Job "Baking\/batter\/Default\.json" has no result$/);
  const cancelled = await deploy(join(d.path, "b"), ["--json"], { SQ_STATE: "CANCELLED" });
  assert.equal(cancelled.code, 1);
  assert.deepEqual(JSON.parse(cancelled.stdout).end, { state: "CANCELLED", reason: "None" });
  // it never ran: no std.err to point at (R79-7)
  assert.match(
    cancelled.stderr,
    /\nscout-ai: Baking\/batter\/Default\.json ended CANCELLED; it never ran \(no std\.err in \S+\/SLURM_scout_job-Baking-batter-Default\.json\S*\)\n$/,
  );
});

Deno.test("slurm --wait --json: when squeue keeps failing, the submission is still printed, with the error", async () => {
  await using d = await tempDir();
  const r = await deploy(d.path, ["--json"], { SQ_FAIL: "1", SCOUT_SLURM_WAIT_RETRIES: "2" });
  assert.equal(r.code, 1);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out.units.map((u: { slurmId: string }) => u.slurmId), ["101", "102"]);
  assert.equal(out.end, undefined);
  assert.match(out.error, /squeue failed 2 times .*Unable to contact slurm controller/);
  assert.match(r.stderr, /scout-ai: squeue failed 2 times asking about SLURM jobs 101,102: /);
});

Deno.test("slurm --wait: once the job is done its result is printed as a serial run prints it (--print-path: its path; --json: result), the table on stderr (R79-13)", async () => {
  await using d = await tempDir();
  const serial = await runMain(["workflow", "task", BAKING, "whisk", "--eggs", "7"], {
    cwd: d.path,
    env: env(join(d.path, "serial")),
  });
  assert.equal(serial.code, 0, serial.stderr);
  // the stand-in sbatch runs the script (the real worker) in the background, squeue says
  // RUNNING until it wrote exit.status
  const run = async (home: string, extra: string[]) =>
    await runMain([
      "workflow",
      "task",
      BAKING,
      "whisk",
      "--eggs",
      "7",
      "--deploy",
      "slurm",
      "--wait",
      ...extra,
    ], {
      cwd: d.path,
      env: {
        ...env(home),
        SB_RUN: "1",
        SQ_STATE: "FILES",
        PATH: `${standInSlurm(home)}:${process.env.PATH}`,
      },
    });
  const text = await run(join(d.path, "a"), []);
  assert.equal(text.code, 0, text.stderr);
  assert.equal(text.stdout, serial.stdout);
  assert.match(text.stderr, /^Baking\/whisk\/Default_[0-9a-f]{32}\t101\tsubmitted$/m);
  const path = await run(join(d.path, "b"), ["--print-path"]);
  assert.equal(path.code, 0, path.stderr);
  assert.match(
    path.stdout,
    new RegExp(`^${join(d.path, "b")}/var/jobs/Baking/whisk/Default_[0-9a-f]{32}\n$`),
  );
  const json = await run(join(d.path, "c"), ["--json"]);
  assert.equal(json.code, 0, json.stderr);
  const out = JSON.parse(json.stdout);
  assert.equal(out.end.state, "COMPLETED");
  assert.equal(out.result, serial.stdout.trimEnd());
  // done already: no wait, the result all the same
  const again = await run(join(d.path, "b"), []);
  assert.deepEqual([again.code, again.stdout], [0, serial.stdout]);
  assert.match(again.stderr, /^Baking\/whisk\/Default_[0-9a-f]{32}\tdone$/m);
});
