/**
 * `scancel` on the real single-node SLURM (tools/slurm-up, proctrack/linuxproc):
 * a job computing synchronously, deaf to SIGTERM, is still killed by SLURM's
 * SIGKILL after KillWait, its script staying its parent (R109-6); a job
 * cancelled before it started shows as such in `workflow info`, and the
 * next `workflow task` submits it again (R109-5).
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runScout, tempDir } from "../support/cli.ts";
import { pidAlive } from "../../src/util/process.ts";
import { slurmCmd, slurmEnv, waitUntil } from "./slurm_support.ts";

/** `Busy/spin` computes for `seconds` without awaiting; `Busy/quick` answers at once. */
function busyWorkflow(dir: string): string {
  mkdirSync(join(dir, "Busy"), { recursive: true });
  writeFileSync(
    join(dir, "Busy", "workflow.ts"),
    `export default (api: any) => api.workflow("Busy", { tasks: {
  spin: { type: "string", inputs: { seconds: api.input.float({ default: 1 }) }, run: ({ seconds }: any) => {
    const t = Date.now(); let x = 0; while (Date.now() - t < seconds * 1000) x++; return "spun " + x;
  } },
  quick: { type: "string", run: () => "quick" },
} });
`,
  );
  return join(dir, "Busy");
}

function info(path: string): Record<string, unknown> | null {
  try {
    return JSON.parse(readFileSync(path + ".info", "utf8"));
  } catch {
    return null;
  }
}

Deno.test("slurm: scancel of a job computing synchronously leaves no process behind once SLURM kills the job (R109-6)", async () => {
  const slurm = await slurmEnv();
  await using d = await tempDir();
  const env = { SCOUT_HOME: join(d.path, "home"), ...slurm };
  const spin = ["workflow", "task", busyWorkflow(d.path), "spin", "--seconds", "240"];
  const sub = await runScout([...spin, "--deploy", "slurm", "--json"], { env });
  assert.equal(sub.code, 0, sub.stderr);
  const unit = JSON.parse(sub.stdout).units[0];
  await waitUntil(() => typeof info(unit.path)?.pid === "number", "the batch job to start");
  const pid = info(unit.path)!.pid as number;
  try {
    await slurmCmd("scancel", [unit.slurmId]);
    // SIGTERM waits for the loop; SIGKILL comes KillWait (30 s) later, and reaches it only
    // while its script, its parent, is alive: else it would spin its 240 s out
    await waitUntil(() => !pidAlive(pid), `the job's process ${pid} to be killed`, 90_000);
    await waitUntil(async () => {
      const s = await slurmCmd("squeue", ["-h", "-t", "all", "-j", unit.slurmId, "-o", "%T"]);
      return s.trim() === "CANCELLED";
    }, "SLURM state CANCELLED");
  } finally {
    if (pidAlive(pid)) Deno.kill(pid, "SIGKILL");
  }
});

Deno.test("slurm: a job cancelled before it started: workflow info says its SLURM job ended; a new workflow task submits it again (R109-5)", async () => {
  const slurm = await slurmEnv();
  await using d = await tempDir();
  const env = { SCOUT_HOME: join(d.path, "home"), ...slurm };
  const quick = ["workflow", "task", busyWorkflow(d.path), "quick", "--deploy", "slurm", "--json"];
  const held = await runScout(quick, { env: { ...env, SBATCH_HOLD: "1" } });
  assert.equal(held.code, 0, held.stderr);
  const unit = JSON.parse(held.stdout).units[0];
  await slurmCmd("scancel", [unit.slurmId]);
  await waitUntil(async () => {
    const s = await slurmCmd("squeue", ["-h", "-t", "all", "-j", unit.slurmId, "-o", "%T"]);
    return s.trim() === "CANCELLED";
  }, "SLURM state CANCELLED");
  assert.equal(info(unit.path)?.status, "waiting");
  const text = await runScout(["workflow", "info", unit.path], { env });
  assert.equal(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    new RegExp(`\n  status +stale \\(was waiting; its SLURM job ${unit.slurmId} ended\\)`),
  );
  assert.match(
    text.stdout,
    // SLURM may keep the pending reason the job had when cancelled (`(Priority)`): when the
    // cancel lands before or after the scheduler's pass gave it one (it failed one README run)
    new RegExp(
      `\n  batch +SLURM job ${unit.slurmId} {2}CANCELLED(?: \\([A-Za-z]+\\))? before it started the job`,
    ),
  );
  const json = JSON.parse(
    (await runScout(["workflow", "info", unit.path, "--json"], { env })).stdout,
  );
  assert.equal(json.status, "stale");
  assert.equal(json.stale, true);
  assert.match(json.batch.reason, /^[A-Za-z]*$/); // "" or the pending reason it kept (above)
  assert.deepEqual(json.batch, {
    system: "SLURM",
    id: unit.slurmId,
    state: "CANCELLED",
    reason: json.batch.reason,
    ended: true,
  });
  const again = await runScout([...quick, "--wait"], { env });
  assert.equal(again.code, 0, again.stderr);
  const [second] = JSON.parse(again.stdout).units;
  assert.equal(second.status, "submitted");
  assert.notEqual(second.slurmId, unit.slurmId);
  assert.equal(JSON.parse(again.stdout).result, "quick");
  assert.ok(existsSync(unit.path));
});
