/**
 * A SLURM deploy that stops part-way (stand-in `sbatch` failing from its nth
 * call): the units already submitted are printed with their ids, in the
 * table and in `--json` (with `error`); the error names the job sbatch
 * refused, the rule sets of its resources, sbatch's whole stderr (not its
 * first line only) and the ids to `scancel` (R79-4, R79-14).
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { stderrLine } from "../../src/workflow/deploy/slurm_partial.ts";
import { tempDir } from "../support/cli.ts";
import { BAKING } from "./cli_support.ts";
import { slurmTask } from "./deploy_fixtures.ts";

const PARTITION = "sbatch: error: invalid partition specified: nosuch\\n" +
  "sbatch: error: Batch job submission failed: Invalid partition name specified";

const deploy = (home: string, extra: string[], sbatch: Record<string, string>) =>
  slurmTask(home, [BAKING, "cake", "--deploy", "slurm", ...extra], {
    SQ_STATE: "PENDING",
    ...sbatch,
  });

/** stderr without the warning that the test's job store is under /tmp. */
const errors = (stderr: string) =>
  stderr.split("\n").filter((l) => !l.startsWith("scout-ai: warning:")).join("\n");

function badRules(dir: string): string {
  const file = join(dir, "bad.yaml");
  writeFileSync(
    file,
    "defaults: { mem: 1G }\nBaking:\n  whisk: { time: 20m }\n  cake: { partition: nosuch }\n",
  );
  return file;
}

Deno.test("slurm: sbatch refusing the third unit: the two submitted are printed with their ids and named, with sbatch's whole error (R79-4)", async () => {
  await using d = await tempDir();
  const rules = badRules(d.path);
  const r = await deploy(d.path, ["--deploy-rules", rules], {
    SB_FAIL_AT: "3",
    SB_FAIL_STDERR: PARTITION,
  });
  assert.equal(r.code, 1);
  assert.equal(
    r.stdout,
    "Baking/whisk/Default\t101\tsubmitted\nBaking/batter/Default.json\t102\tsubmitted\n" +
      "Baking/cake/Default\t-\tfailed\n",
  );
  assert.equal(
    errors(r.stderr),
    `scout-ai: Submitting Baking/cake/Default (its resources from Baking.cake, defaults in ${rules}) ` +
      "failed: sbatch failed: sbatch: error: invalid partition specified: nosuch; " +
      "sbatch: error: Batch job submission failed: Invalid partition name specified; " +
      "these jobs were submitted before it and stay queued: Baking/whisk/Default (SLURM job 101), " +
      "Baking/batter/Default.json (SLURM job 102) (scancel 101 102 cancels them)\n",
  );
});

Deno.test("slurm --json: a part-way failure still prints the units with their ids and statuses, and the error (R79-4)", async () => {
  await using d = await tempDir();
  const r = await deploy(d.path, ["--deploy-rules", badRules(d.path), "--json", "--wait"], {
    SB_FAIL_AT: "3",
    SB_FAIL_STDERR: PARTITION,
  });
  assert.equal(r.code, 1);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(
    out.units.map((u: { slurmId: string | null; status: string }) => [u.slurmId, u.status]),
    [["101", "submitted"], ["102", "submitted"], [null, "failed"]],
  );
  assert.match(
    out.error,
    /^Submitting Baking\/cake\/Default .*Invalid partition name specified; .*\(scancel 101 102 cancels them\)$/,
  );
  assert.equal(out.end, undefined, "no wait after a failed submission");
});

Deno.test("slurm: sbatch's last line says why it gave up, after a 'retrying' first line: both are kept (R79-14)", async () => {
  await using d = await tempDir();
  const r = await deploy(d.path, [], {
    SB_FAIL_AT: "1",
    SB_FAIL_STDERR: "sbatch: error: s_p_parse_file: cannot stat file /nonexistent/slurm.conf: " +
      "No such file or directory, retrying in 1sec up to 60sec\\n" +
      "sbatch: fatal: Unable to process configuration file",
  });
  assert.equal(r.code, 1);
  assert.equal(
    r.stdout,
    "Baking/whisk/Default\t-\tfailed\nBaking/batter/Default.json\t-\tnot-submitted\nBaking/cake/Default\t-\tnot-submitted\n",
  );
  assert.match(
    errors(r.stderr),
    /^scout-ai: Submitting Baking\/whisk\/Default failed: sbatch failed: sbatch: error: s_p_parse_file: .*retrying in 1sec up to 60sec; sbatch: fatal: Unable to process configuration file; nothing was submitted before it\n$/,
  );
});

Deno.test("stderrLine: every line joined; a long stderr keeps its last lines, cut from the end", () => {
  assert.equal(stderrLine("\n a \n\n b \n"), "a; b");
  const many = Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n");
  assert.equal(
    stderrLine(many),
    "… " + Array.from({ length: 10 }, (_, i) => `line ${i + 20}`).join("; "),
  );
  const long = stderrLine("x".repeat(5000) + "\nsbatch: fatal: the reason");
  assert.equal(long.length, 1001);
  assert.ok(long.endsWith("; sbatch: fatal: the reason"));
});
