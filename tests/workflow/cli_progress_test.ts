/**
 * The status line `workflow task` draws on a TTY stderr, byte for byte: a
 * serial run's job statuses (coloured), `--deploy local`'s scheduler events
 * and `--deploy slurm --wait`'s state counts (stand-in `sbatch` and `squeue`
 * on PATH: no SLURM runs), each erased at the end.
 */
import assert from "node:assert/strict";
import { runMain, tempDir } from "../support/cli.ts";
import { BAKING, env } from "./cli_support.ts";
import { standInSlurm } from "./deploy_fixtures.ts";

const CLEAR = "\r\x1b[K";
const DIM = (t: string) => `\x1b[2m${t}\x1b[22m`;
/** The environment of a run in temp home `home`, with colour (the line is dimmed). */
const colour = (home: string) => ({ SCOUT_HOME: home, HOME: home });

Deno.test("progress: a serial run's statuses, dimmed in colour, erased once at the end", async () => {
  await using d = await tempDir();
  const e = colour(d.path);
  const r = await runMain(["workflow", "task", BAKING, "batter"], {
    cwd: d.path,
    env: e,
    tty: true,
  });
  assert.equal(r.code, 0, r.stderr);
  const line = (s: string, job: string) => `${CLEAR}${DIM(s)} ${job}`;
  assert.equal(
    r.stderr,
    line("setup", "Baking/batter/Default.json") + line("start", "Baking/whisk/Default") +
      line("whisking", "Baking/whisk/Default") + line("done", "Baking/whisk/Default") +
      line("start", "Baking/batter/Default.json") + line("done", "Baking/batter/Default.json") +
      CLEAR,
  );
  // a done job draws nothing, so nothing is erased
  const again = await runMain(["workflow", "task", BAKING, "batter"], {
    cwd: d.path,
    env: e,
    tty: true,
  });
  assert.equal(again.stderr, "");
});

Deno.test("progress: --deploy local draws its scheduler's events, then erases them", async () => {
  await using d = await tempDir();
  const r = await runMain(
    ["workflow", "task", BAKING, "batter", "--deploy", "local", "--cpus", "1"],
    { cwd: d.path, env: colour(d.path), tty: true },
  );
  assert.equal(r.code, 0, r.stderr);
  const line = (s: string, job: string) => `${CLEAR}${DIM(s)} ${job}`;
  assert.equal(
    r.stderr,
    line("start (1 running, 2 left)", "Baking/whisk/Default") +
      line("done (0 running, 1 left)", "Baking/whisk/Default") +
      line("start (1 running, 1 left)", "Baking/batter/Default.json") +
      line("done (0 running, 0 left)", "Baking/batter/Default.json") + CLEAR,
  );
  // nothing left to run: no event, and the line is erased all the same
  const again = await runMain(
    ["workflow", "task", BAKING, "batter", "--deploy", "local", "--cpus", "1"],
    { cwd: d.path, env: env(d.path), tty: true },
  );
  assert.equal(again.stderr, CLEAR);
});

Deno.test("progress: --deploy slurm --wait draws the state counts, then erases them", async () => {
  await using d = await tempDir();
  const bin = standInSlurm(d.path);
  // the stand-in sbatch runs the script in the background; squeue says RUNNING until it ends
  const r = await runMain(
    ["workflow", "task", BAKING, "whisk", "--deploy", "slurm", "--wait"],
    {
      cwd: d.path,
      env: {
        ...colour(d.path),
        SB_RUN: "1",
        SQ_STATE: "FILES",
        PATH: `${bin}:${process.env.PATH}`,
      },
      tty: true,
    },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "Whisked 2 soft\n"); // the result, as a serial run prints it (R79-13)
  const progress = r.stderr.replace(/^.*warning:.* is under \/tmp.*\n/, "")
    .replace("Baking/whisk/Default\t101\tsubmitted\n", "");
  const running = `${CLEAR}${DIM("1 running")}`;
  assert.ok(progress.startsWith(running), JSON.stringify(progress));
  assert.ok(progress.endsWith(`${CLEAR}${DIM("1 completed")}${CLEAR}`), JSON.stringify(progress));
  assert.equal(progress.replaceAll(running, ""), `${CLEAR}${DIM("1 completed")}${CLEAR}`);
});
