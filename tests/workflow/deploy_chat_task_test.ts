/**
 * `--deploy` applies to chat tasks too (issue 13): a chat task is a workflow
 * task, so `workflow task <agent workflow> ask --deploy slurm --dry-run`
 * shows its batch script like any other job's. (The run itself needs a
 * model; the SLURM and local deploy tests cover running jobs.)
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runMain, tempDir } from "../support/cli.ts";

Deno.test("a chat task deploys like any task: --deploy slurm --dry-run shows its batch script", async () => {
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
  const m = /^cat > (\S+\/command\.batch) <<'SCOUT_AI_EOF'\n([\s\S]*?)\nSCOUT_AI_EOF$/m.exec(
    r.stdout,
  );
  assert.ok(m, r.stdout);
  assert.match(
    m[1]!,
    /SLURM_scout_job-Planner-ask-Default_[0-9a-f]+\.chat-[0-9a-f]{8}\/command\.batch$/,
  );
  assert.match(m[2]!, /Planner\/ask\/Default_[0-9a-f]+\.chat/);
  assert.ok(!existsSync(join(home, "var", "batch")), "a dry run writes no batch directory");
  for (const script of [r.stdout, m[2]!]) {
    const syntax = await new Deno.Command("bash", { args: ["-n", "-c", script] }).output();
    assert.equal(syntax.code, 0);
  }
});
