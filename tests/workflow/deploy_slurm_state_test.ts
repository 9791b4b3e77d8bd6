/**
 * What `squeue` says about submitted batch jobs (`--deploy slurm --wait`,
 * `workflow batch list`): a call that fails because the controller cannot be
 * reached is repeated, and when it keeps failing the command fails naming
 * squeue's error — a job squeue could not be asked about never ends `UNKNOWN`;
 * only "Invalid job id specified" means SLURM forgot the job. A stand-in
 * `squeue` fails a set number of times, then answers.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isScoutError } from "../../src/errors.ts";
import { slurmStates, waitForUnit } from "../../src/workflow/deploy/slurm_state.ts";
import { tempDir } from "../support/cli.ts";
import { squeueStandIn } from "../support/slurm_stand_ins.ts";

const UNREACHABLE = "slurm_load_jobs error: Unable to contact slurm controller (connect failure)\n";
const retry = { attempts: 4, backoffMs: 1 };

function unit(tmp: string, exitStatus?: string) {
  const dir = join(tmp, "batch");
  mkdirSync(dir, { recursive: true });
  if (exitStatus !== undefined) writeFileSync(join(dir, "exit.status"), exitStatus);
  return { slurmId: "42", dir };
}

Deno.test("waitForUnit: squeue failing twice (controller unreachable), then answering: the job's real end", async () => {
  await using t = await tempDir();
  const sq = squeueStandIn(t.path, {
    failures: 2,
    failure: UNREACHABLE,
    answer: "42|COMPLETED|None\n",
  });
  const end = await waitForUnit(unit(t.path), { env: sq.env, pollMs: 1, retry });
  assert.deepEqual(end, { state: "COMPLETED", reason: "None" });
  assert.equal(sq.calls(), 3);
});

Deno.test("waitForUnit: squeue failing on every call: a batch_system error naming its stderr, not UNKNOWN", async () => {
  await using t = await tempDir();
  const sq = squeueStandIn(t.path, { failures: 99, failure: UNREACHABLE, answer: "" });
  await assert.rejects(
    waitForUnit(unit(t.path), { env: sq.env, pollMs: 1, retry }),
    (e) => {
      assert.ok(isScoutError(e, "batch_system"), String(e));
      assert.match(e.message, /squeue failed 4 times asking about SLURM job 42: /);
      assert.match(e.message, /Unable to contact slurm controller \(connect failure\)$/);
      return true;
    },
  );
  assert.equal(sq.calls(), 4);
});

Deno.test("waitForUnit: squeue's 'Invalid job id specified' means forgotten: exit.status says how it ended, no retry", async () => {
  await using t = await tempDir();
  const sq = squeueStandIn(t.path, {
    failures: 99,
    failure: "slurm_load_jobs error: Invalid job id specified\n",
    answer: "",
  });
  const end = await waitForUnit(unit(t.path, "3\n"), { env: sq.env, pollMs: 1, retry });
  assert.deepEqual(end, { state: "FAILED", reason: "", exitStatus: 3 });
  assert.equal(sq.calls(), 1);
});

Deno.test("slurmStates: a failure that clears up in time gives the states; one that lasts throws", async () => {
  await using t = await tempDir();
  const sq = squeueStandIn(t.path, {
    failures: 1,
    failure: UNREACHABLE,
    answer: "42|RUNNING|None\n43|PENDING|Dependency\n",
  });
  const states = await slurmStates(["42", "43"], sq.env, retry);
  assert.deepEqual(Object.fromEntries(states), {
    "42": { state: "RUNNING", reason: "None" },
    "43": { state: "PENDING", reason: "Dependency" },
  });
  await using u = await tempDir();
  const down = squeueStandIn(u.path, { failures: 99, failure: UNREACHABLE, answer: "" });
  await assert.rejects(slurmStates(["42", "43"], down.env, { attempts: 2, backoffMs: 1 }), {
    name: "ScoutError",
    code: "batch_system",
    message: "squeue failed 2 times asking about SLURM jobs 42,43: " + UNREACHABLE.trim(),
  });
});
