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

Deno.test("waitForUnit over a 3-hour job: squeue paced 1 s doubling to 30 s, again 1 s after a change; the end seen within a second of exit.status (R79-9)", async () => {
  await using t = await tempDir();
  const sq = squeueStandIn(t.path, { failures: 0, failure: "", answer: "42|PENDING|Priority\n" });
  const answer = join(t.path, "squeue-bin", "answer");
  const u = unit(t.path);
  const HOUR = 3_600_000;
  let now = 0;
  const events: [number, string][] = [[1 * HOUR, "RUNNING"], [3 * HOUR, "end"]];
  const clock = {
    now: () => now,
    sleep: (ms: number) => {
      now += ms;
      while (events.length > 0 && now >= events[0]![0]) {
        const [, what] = events.shift()!;
        // SLURM starts it (no file yet: only squeue tells), then the script writes its exit status
        if (what === "RUNNING") writeFileSync(answer, "42|RUNNING|None\n");
        else {
          writeFileSync(join(u.dir, "exit.status"), "0\n");
          writeFileSync(answer, "42|COMPLETING|None\n");
        }
      }
      return Promise.resolve();
    },
  };
  const polls: number[] = [];
  const onPoll = () => {
    polls.push(now / 1000);
    // one call after the script ended, SLURM says it completed
    if (now >= 3 * HOUR) writeFileSync(answer, "42|COMPLETED|None\n");
  };
  // the wait runs on the test's clock: 3 hours take a few real seconds — ~370 runs of the
  // squeue stand-in, a process each, which a machine under load took over 30 s to start
  let guard: ReturnType<typeof setTimeout> | undefined;
  const end = await Promise.race([
    waitForUnit(u, { env: sq.env, clock, onPoll, retry }),
    new Promise<never>((_, reject) => {
      guard = setTimeout(() => reject(new Error("the wait did not end in 300 s")), 300_000);
    }),
  ]).finally(() => clearTimeout(guard));
  assert.deepEqual(end, { state: "COMPLETED", reason: "None", exitStatus: 0 });
  assert.deepEqual(polls.slice(0, 8), [0, 1, 3, 7, 15, 31, 61, 91], "1 s doubling, at most 30 s");
  // 3 h / 30 s = 360 (at 500 ms, 21,600)
  assert.ok(sq.calls() < 380, `${sq.calls()} squeue calls over 3 hours`);
  // SLURM's change at 1 h is seen at the next call, then the pace starts again at 1 s
  const afterStart = polls.findIndex((p) => p >= 3600);
  assert.ok(polls[afterStart]! <= 3630, String(polls[afterStart]));
  assert.equal(polls[afterStart + 1]! - polls[afterStart]!, 1);
  // exit.status is looked at every second: the end is asked about at once, not 30 s later
  assert.ok(polls.at(-1)! <= 3 * 3600 + 2, String(polls.slice(-3)));
});
