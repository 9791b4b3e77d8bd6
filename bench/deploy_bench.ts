/**
 * Deploy benchmarks (issue 13 targets), on the built binary and the
 * single-node SLURM of tools/slurm-up:
 * - `local`: a 200-job fan-in of 0.2 s CPU-bound tasks on 2 cores —
 *   `--deploy local --cpus 2` wall time ≤ 0.6 × the serial run's;
 * - `slurm`: submitting a 1,000-job graph (`--deploy slurm`, jobs trivial) —
 *   scout-ai's whole command (graph, scripts, sbatch calls) ≤ 1.5 × the time of
 *   1,000 bare `sbatch --wrap true` calls measured in the same run; and the
 *   end-to-end wall time of a 50-job graph (`--wait`) next to 50 bare sbatch
 *   jobs waited for the same way.
 *
 * Run: `tools/deno run -A bench/deploy_bench.ts [local|slurm]` (both by
 * default; needs root for SLURM). `tools/deno task bench` runs only the pure
 * case below (batch units and scripts of a 1,000-job graph, no SLURM).
 */
import { join } from "node:path";
import { BINARY, buildBinary } from "../tests/support/cli.ts";
import { fanWorkflow } from "../tests/workflow/deploy_fixtures.ts";
import { slurmEnv } from "../tests/e2e/slurm_support.ts";
import { createJob } from "../src/workflow/job.ts";
import { batchScript, batchUnits, NO_RULES } from "../src/workflow/deploy/mod.ts";
import { input, workflow } from "../src/workflow/define.ts";

Deno.bench({ name: "deploy: batch units + scripts of a 1,000-job fan-in", n: 5 }, () => {
  const wf = workflow("BenchFan", {
    jobsDir: "/nonexistent/jobs",
    tasks: {
      leaf: { type: "integer", inputs: { i: input.integer({ default: 0 }) }, run: () => 1 },
      top: {
        type: "integer",
        deps: [{ task: "leaf", resolve: () => Array.from({ length: 999 }, (_, i) => ({ i })) }],
        run: () => 0,
      },
    },
  });
  const units = batchUnits(createJob(wf, "top"), NO_RULES, "/nonexistent/batch");
  for (const u of units) batchScript(u, ["scout-ai", "--deploy-job", u.jobs[0]!.path], "/w");
  if (units.length !== 1000) throw new Error(`expected 1000 units, got ${units.length}`);
});

async function timed(cmd: string, args: string[], env: Record<string, string>) {
  const t0 = performance.now();
  const out = await new Deno.Command(cmd, { args, env, stdout: "piped", stderr: "piped" }).output();
  const ms = performance.now() - t0;
  if (out.code !== 0) {
    throw new Error(`${cmd} ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return { ms, stdout: new TextDecoder().decode(out.stdout) };
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function benchLocal(dir: string): Promise<boolean> {
  const wf = fanWorkflow(dir, 200);
  const env = (h: string) => ({ SCOUT_HOME: join(dir, h), FAN_SPIN_MS: "200" });
  const serial = await timed(BINARY, ["workflow", "task", wf, "top"], env("serial"));
  const local = await timed(
    BINARY,
    ["workflow", "task", wf, "top", "--deploy", "local", "--cpus", "2"],
    env("local"),
  );
  if (local.stdout !== serial.stdout) throw new Error("local and serial results differ");
  const ratio = local.ms / serial.ms;
  console.log(
    `local: 200-job fan-in, 0.2 s CPU each, 2 cores: serial ${s(serial.ms)}, ` +
      `--deploy local --cpus 2 ${s(local.ms)}, ratio ${ratio.toFixed(2)} (target ≤ 0.60)`,
  );
  return ratio <= 0.6;
}

async function squeueCount(env: Record<string, string>, filter: string[]): Promise<number> {
  const out = await timed("squeue", ["-h", "-o", "%i", ...filter], env);
  return out.stdout.trim() === "" ? 0 : out.stdout.trim().split("\n").length;
}

async function drain(env: Record<string, string>, filter: string[]): Promise<void> {
  while (await squeueCount(env, filter) > 0) await new Promise((r) => setTimeout(r, 200));
}

async function benchSlurm(dir: string): Promise<boolean> {
  const slurm = await slurmEnv();
  const env = { ...slurm, SCOUT_HOME: join(dir, "s1000") };
  const tag = `bench-bare-${Date.now()}`;
  await drain(slurm, ["-u", "root"]);
  // 1,000 bare sbatch calls, one after another (what a shell loop does).
  const bare = await timed(
    "bash",
    [
      "-c",
      `for i in $(seq 1000); do sbatch -Q --parsable -J ${tag} -o /dev/null --wrap true; done`,
    ],
    slurm,
  );
  await timed("scancel", ["-n", tag], slurm);
  await drain(slurm, ["-n", tag]);
  const wf = fanWorkflow(dir, 999);
  const dep = await timed(
    BINARY,
    ["workflow", "task", wf, "top", "--deploy", "slurm", "--json"],
    env,
  );
  const units = JSON.parse(dep.stdout).units as { slurmId: string }[];
  if (units.length !== 1000) throw new Error(`expected 1000 batch jobs, got ${units.length}`);
  for (let i = 0; i < units.length; i += 200) {
    await timed("scancel", units.slice(i, i + 200).map((u) => u.slurmId), slurm);
  }
  await drain(slurm, ["-u", "root"]);
  const ratio = dep.ms / bare.ms;
  console.log(
    `slurm: submit 1,000 jobs: bare sbatch ×1000 ${s(bare.ms)}, scout-ai --deploy slurm ` +
      `(whole command) ${s(dep.ms)}, ratio ${ratio.toFixed(2)} (target ≤ 1.50)`,
  );

  // End to end: 50 bare jobs until all ended, then a 50-job graph with --wait.
  const tag50 = `bench-e2e-${Date.now()}`;
  const t0 = performance.now();
  await timed(
    "bash",
    [
      "-c",
      `for i in $(seq 50); do sbatch -Q --parsable -J ${tag50} -o /dev/null --wrap true; done`,
    ],
    slurm,
  );
  await drain(slurm, ["-n", tag50]);
  const bare50 = performance.now() - t0;
  const wf50 = fanWorkflow(join(dir, "w50"), 49);
  const e2e = await timed(
    BINARY,
    ["workflow", "task", wf50, "top", "--deploy", "slurm", "--wait"],
    { ...slurm, SCOUT_HOME: join(dir, "s50") },
  );
  console.log(
    `slurm: 50 jobs end to end: bare sbatch ×50 until all ended ${s(bare50)}, ` +
      `scout-ai 50-job graph --deploy slurm --wait ${s(e2e.ms)}`,
  );
  return ratio <= 1.5;
}

if (import.meta.main) {
  const which = Deno.args[0] ?? "all";
  await buildBinary();
  const dir = await Deno.makeTempDir({ prefix: "scout-deploy-bench-", dir: "/var/tmp" });
  let ok = true;
  try {
    if (which === "all" || which === "local") ok = await benchLocal(dir) && ok;
    if (which === "all" || which === "slurm") ok = await benchSlurm(dir) && ok;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  console.log(ok ? "deploy bench: targets met" : "deploy bench: a target was missed");
  if (!ok) Deno.exit(1);
}
