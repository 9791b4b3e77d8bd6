/**
 * `--deploy` applies to chat tasks too (issue 13): a chat task is a workflow
 * task, so `workflow task <agent workflow> ask --deploy slurm --dry-run`
 * writes its batch script like any other job's. (The run itself needs a
 * model; the SLURM and local deploy tests cover running jobs.)
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runMain, tempDir } from "../support/cli.ts";

Deno.test("a chat task deploys like any task: --deploy slurm --dry-run writes its batch script", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const r = await runMain([
    "workflow",
    "task",
    join(ROOT, "fixtures", "agents", "Agent", "Planner"),
    "ask",
    "--chat",
    "user: plan a cake",
    "--deploy",
    "slurm",
    "--dry-run",
  ], { env: { SCOUT_HOME: home }, cwd: dir.path });
  assert.equal(r.code, 0, r.stderr);
  const m = /sbatch --parsable (\S+\/command\.batch)/.exec(r.stdout);
  assert.ok(m, r.stdout);
  assert.match(
    m[1]!,
    /SLURM_scout_job-Planner-ask-Default_[0-9a-f]+\.chat-[0-9a-f]{8}\/command\.batch$/,
  );
  const script = await Deno.readTextFile(m[1]!);
  assert.match(script, /Planner\/ask\/Default_[0-9a-f]+\.chat/);
  const syntax = await new Deno.Command("bash", { args: ["-n", m[1]!] }).output();
  assert.equal(syntax.code, 0);
});
