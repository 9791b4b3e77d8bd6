/**
 * `workflow batch tail` when `squeue` cannot answer (R94-6), run as a
 * subprocess: `-n` is checked before SLURM is asked (a usage error, exit 2),
 * and the local `std.err` is still shown, with one warning that the SLURM
 * state is unknown. The stand-in `squeue` (first on PATH) always fails as an
 * unreachable controller makes the real one fail: what is tested is our
 * handling of that failure, not SLURM.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runScout, tempDir } from "../support/cli.ts";
import { squeueStandIn } from "../support/slurm_stand_ins.ts";

Deno.test("R94-6: batch tail checks -n first and shows std.err when squeue fails, warning once that the state is unknown", async () => {
  await using d = await tempDir();
  const home = join(d.path, "home");
  const dir = join(home, "var", "batch", "SLURM_scout_job-Pipe-a-Default-1a2b3c4d");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "command.batch"), "#!/bin/bash\n");
  writeFileSync(join(dir, "job.id"), "999999\n");
  writeFileSync(join(dir, "jobs.list"), join(home, "var", "jobs", "Pipe", "a", "Default") + "\n");
  writeFileSync(join(dir, "std.err"), "one\ntwo\nthree\nfour\n");
  const squeue = squeueStandIn(d.path, {
    failures: 1_000,
    failure: "slurm_load_jobs error: Unable to contact slurm controller (connect failure)",
    answer: "",
  });
  const o = { cwd: d.path, env: { SCOUT_HOME: home, ...squeue.env } };

  const bad = await runScout(["workflow", "batch", "tail", "-n", "abc"], o);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /^scout-ai: -n "abc" must be a whole number\n/);
  assert.equal(squeue.calls(), 0, "SLURM is not asked before -n is checked");

  const r = await runScout(["workflow", "batch", "tail", "-n", "3"], o);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "two\nthree\nfour\n");
  const lines = r.stderr.split("\n").filter((l) => l !== "");
  assert.equal(lines.length, 2, r.stderr);
  assert.match(
    lines[0]!,
    /^scout-ai: warning: SLURM state unknown \(squeue failed \d+ times? asking about SLURM job 999999: slurm_load_jobs error: Unable to contact slurm controller/,
  );
  assert.match(
    lines[1]!,
    /^==> \S+-1a2b3c4d\/std\.err \(SLURM job 999999, Pipe\/a\/Default\) <==$/,
  );
});
