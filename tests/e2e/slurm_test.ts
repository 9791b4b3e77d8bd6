/**
 * `--deploy slurm` on a real single-node SLURM (tools/slurm-up): results and
 * `.info` equal to a serial run, a failure cancels dependents and a rerun
 * completes the rest (the failed dependency named), scancel records
 * `aborted` (and exit.status 143), `--dry-run` scripts are valid bash,
 * `batch list|tail|clean`.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runScout, tempDir } from "../support/cli.ts";
import { slurmCmd, slurmEnv, waitUntil } from "./slurm_support.ts";
import { pidAlive } from "../../src/util/process.ts";

const BAKING = join(ROOT, "fixtures", "workflows", "Baking");
const SLOW = join(ROOT, "fixtures", "workflows", "Slow");

function info(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path + ".info", "utf8"));
}

/** A workflow whose `check` fails while FLAG holds "bad". */
function pipeWorkflow(dir: string, flag: string): string {
  const file = join(dir, "Pipe", "workflow.ts");
  Deno.mkdirSync(join(dir, "Pipe"), { recursive: true });
  writeFileSync(
    file,
    `import { readFileSync } from "node:fs";
export default (api: any) => api.workflow("Pipe", { tasks: {
  base: { type: "string", run: () => "base" },
  side: { type: "string", run: () => "side" },
  check: { type: "string", deps: ["base"], run: async (_i: any, job: any) => {
    if (readFileSync(${
      JSON.stringify(flag)
    }, "utf8").trim() === "bad") throw api.fail("The flag is bad");
    return "checked " + await job.load("base");
  } },
  top: { type: "string", deps: ["check", "side"], run: async (_i: any, job: any) =>
    (await job.load("check")) + " + " + (await job.load("side")) },
} });
`,
  );
  return join(dir, "Pipe");
}

const KEPT = [
  "status",
  "task_name",
  "workflow",
  "provided_inputs",
  "non_default_inputs",
  "inputs",
  "input_names",
  "type",
];

Deno.test("slurm --wait: Baking results and .info fields equal a serial run's", async () => {
  const slurm = await slurmEnv();
  await using a = await tempDir();
  await using b = await tempDir();
  const args = ["workflow", "task", BAKING, "cake", "--eggs", "3"];
  const serial = await runScout(args, { env: { SCOUT_HOME: a.path } });
  assert.equal(serial.code, 0, serial.stderr);
  const dep = await runScout([...args, "--deploy", "slurm", "--wait", "--json"], {
    env: { SCOUT_HOME: b.path, ...slurm },
  });
  assert.equal(dep.code, 0, dep.stderr);
  const out = JSON.parse(dep.stdout);
  assert.equal(out.units.length, 3);
  assert.equal(out.end.state, "COMPLETED");
  assert.equal(out.result, serial.stdout, "--wait gives the result (R79-13)");
  assert.deepEqual(out.units[2].dependencies, [out.units[1].slurmId]);
  for (const task of ["whisk", "batter", "cake"]) {
    const da = join(a.path, "var/jobs/Baking", task);
    const db = join(b.path, "var/jobs/Baking", task);
    const names = readdirSync(da).filter((n) => !n.endsWith(".info"));
    assert.deepEqual(readdirSync(db).filter((n) => !n.endsWith(".info")), names);
    for (const n of names) {
      assert.deepEqual(readFileSync(join(db, n)), readFileSync(join(da, n)), `${task}/${n}`);
      const ia = info(join(da, n));
      const ib = info(join(db, n));
      for (const k of KEPT) assert.deepEqual(ib[k], ia[k], `${task} .info ${k}`);
      const rel = (v: unknown, home: string) => (v as string[]).map((p) => p.replace(home, "HOME"));
      assert.deepEqual(rel(ib.dependencies, b.path), rel(ia.dependencies, a.path));
      assert.notEqual(ib.pid, undefined);
    }
  }
  // Everything is done now: a second deploy submits nothing.
  const again = await runScout([...args, "--deploy", "slurm", "--json"], {
    env: { SCOUT_HOME: b.path, ...slurm },
  });
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(JSON.parse(again.stdout).units, []);
});

Deno.test("slurm: a failing job cancels its dependents; batch list says so; a rerun completes the rest", async () => {
  const slurm = await slurmEnv();
  await using d = await tempDir();
  const flag = join(d.path, "flag");
  writeFileSync(flag, "bad");
  const wf = pipeWorkflow(d.path, flag);
  const env = { SCOUT_HOME: d.path, ...slurm };
  const first = await runScout(["workflow", "task", wf, "top", "--deploy", "slurm", "--wait"], {
    env,
  });
  assert.equal(first.code, 1, first.stdout + first.stderr);
  // the dependency that failed is named, with its error and its log (R79-7)
  const named = new RegExp(
    'Pipe/top/Default ended CANCELLED \\(DependencyNeverSatisfied\\): Job "Pipe/check/Default" ' +
      "failed: The flag is bad; see (\\S+-check-Default\\S*/std\\.err)\n",
  ).exec(first.stderr);
  assert.ok(named, first.stderr);
  assert.match(readFileSync(named[1]!, "utf8"), /The flag is bad/);
  const jobs = join(d.path, "var/jobs/Pipe");
  assert.equal(info(join(jobs, "check/Default")).status, "error");
  assert.match(JSON.stringify(info(join(jobs, "check/Default")).messages), /The flag is bad/);
  assert.ok(existsSync(join(jobs, "base/Default")));
  assert.ok(existsSync(join(jobs, "side/Default")));
  assert.ok(!existsSync(join(jobs, "top/Default")));

  const list = await runScout(["workflow", "batch", "list", "--json"], { env });
  assert.equal(list.code, 0, list.stderr);
  const byJob = new Map(
    JSON.parse(list.stdout).batches.map((e: Record<string, unknown>) => [e.job, e]),
  );
  const top = byJob.get("Pipe/top/Default") as Record<string, unknown>;
  assert.equal(top.state, "CANCELLED");
  assert.equal(top.reason, "DependencyNeverSatisfied");
  assert.match(String(top.note), /a dependency failed/);
  const check = byJob.get("Pipe/check/Default") as Record<string, unknown>;
  assert.equal(check.state, "FAILED");
  assert.equal(check.jobStatus, "error");
  const text = await runScout(["workflow", "batch", "list"], { env });
  assert.match(text.stdout, /CANCELLED\s+waiting\s+Pipe\/top\/Default\s+a dependency failed/);
  const tail = await runScout(["workflow", "batch", "tail", "Pipe/check/Default"], { env });
  assert.match(tail.stdout, /The flag is bad/);

  writeFileSync(flag, "good");
  const rerun = await runScout(
    ["workflow", "task", wf, "top", "--deploy", "slurm", "--wait", "--json"],
    { env },
  );
  assert.equal(rerun.code, 0, rerun.stderr);
  const units = JSON.parse(rerun.stdout).units.map((u: { job: string }) => u.job);
  assert.deepEqual(units, ["Pipe/check/Default", "Pipe/top/Default"]);
  assert.equal(readFileSync(join(jobs, "top/Default"), "utf8"), "checked base + side");

  const clean = await runScout(["workflow", "batch", "clean", "--json"], { env });
  assert.equal(JSON.parse(clean.stdout).removed.length, 4);
  assert.deepEqual(readdirSync(join(d.path, "var/batch")), []);
});

Deno.test("slurm: jobs named `run 1` and `run_1` each get a batch job; --wait waits for its own (R79-1)", async () => {
  const slurm = await slurmEnv();
  await using d = await tempDir();
  const env = { SCOUT_HOME: d.path, ...slurm };
  const nap = (name: string, wait: string[]) =>
    runScout(
      [
        "workflow",
        "task",
        SLOW,
        "nap",
        "--seconds",
        "2",
        "--jobname",
        name,
        "--deploy",
        "slurm",
        "--json",
        ...wait,
      ],
      { env },
    );
  const first = await nap("run 1", []);
  assert.equal(first.code, 0, first.stderr);
  const second = await nap("run_1", ["--wait"]);
  assert.equal(second.code, 0, second.stderr);
  const [a] = JSON.parse(first.stdout).units;
  const [b] = JSON.parse(second.stdout).units;
  assert.equal(b.status, "submitted");
  assert.notEqual(b.slurmId, a.slurmId);
  assert.equal(readFileSync(b.path, "utf8"), "Slept 2");
  await waitUntil(() => existsSync(a.path), "run 1's result");
});

Deno.test("slurm: scancel of a running batch job records aborted in the job's info", async () => {
  const slurm = await slurmEnv();
  await using d = await tempDir();
  const env = { SCOUT_HOME: d.path, ...slurm };
  const seconds = String(60 + Math.random()); // a job name of its own
  const sub = await runScout(
    ["workflow", "task", SLOW, "nap", "--seconds", seconds, "--deploy", "slurm", "--json"],
    { env },
  );
  assert.equal(sub.code, 0, sub.stderr);
  const unit = JSON.parse(sub.stdout).units[0];
  await waitUntil(() => {
    try {
      return info(unit.path).status === "napping";
    } catch {
      return false;
    }
  }, "the batch job to start napping");
  const pid = info(unit.path).pid as number;
  await slurmCmd("scancel", [unit.slurmId]);
  await waitUntil(() => info(unit.path).status === "aborted", "info status aborted", 30_000);
  assert.ok(!existsSync(unit.path));
  // the script outlived it and wrote how it ended: SIGTERM (R109-6)
  const exit = join(unit.batchDir, "exit.status");
  await waitUntil(() => existsSync(exit), "exit.status", 30_000);
  assert.equal(readFileSync(exit, "utf8"), "143\n");
  assert.ok(!pidAlive(pid), `the job's process ${pid} has ended`);
  await waitUntil(async () => {
    const s = await slurmCmd("squeue", ["-h", "-t", "all", "-j", unit.slurmId, "-o", "%T"]);
    return s.trim() === "CANCELLED";
  }, "SLURM state CANCELLED");
});

Deno.test("slurm --dry-run: its script is valid bash with the rules' #SBATCH lines; nothing is written or submitted", async () => {
  await using d = await tempDir();
  const rules = join(d.path, "rules.yaml");
  writeFileSync(
    rules,
    "defaults: { time: 10m, mem: 1G }\nBaking:\n  defaults: { partition: main }\n" +
      "  cake: { cpus: 2, time: 1h30m, qos: normal, gres: 'gpu:1', constraints: fast, exclusive: true }\n",
  );
  const r = await runScout(
    ["workflow", "task", BAKING, "cake", "--deploy", "slurm", "--dry-run", "--deploy-rules", rules],
    { env: { SCOUT_HOME: d.path, PATH: "/nonexistent" } }, // no sbatch reachable: nothing may be submitted
  );
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^id1=\$\(sbatch --parsable .*whisk.*command\.batch\)$/m);
  assert.match(
    r.stdout,
    /^id3=\$\(sbatch --parsable --dependency=afterok:\$id2 --kill-on-invalid-dep=yes .*cake/m,
  );
  const syntax = await new Deno.Command("bash", { args: ["-n"], stdin: "piped" }).spawn();
  const w = syntax.stdin.getWriter();
  await w.write(new TextEncoder().encode(r.stdout));
  await w.close();
  assert.equal((await syntax.status).code, 0);
  assert.ok(!existsSync(join(d.path, "var/batch")), "a dry run writes no batch directory");
  // each unit's command.batch, as the script would write it
  const scripts = new Map(
    [...r.stdout.matchAll(
      /^cat > \S+-(\w+)-Default\S*-[0-9a-f]{8}\/command\.batch <<'(\w+)'\n([\s\S]*?)\n\2$/gm,
    )]
      .map((m) => [m[1]!, m[3]! + "\n"]),
  );
  assert.deepEqual([...scripts.keys()], ["whisk", "batter", "cake"]);
  for (const script of scripts.values()) {
    const check = await new Deno.Command("bash", { args: ["-n", "-c", script] }).output();
    assert.equal(check.code, 0, new TextDecoder().decode(check.stderr));
  }
  const cake = scripts.get("cake")!;
  for (
    const line of [
      "#SBATCH --cpus-per-task=2",
      "#SBATCH --time=01:30:00",
      "#SBATCH --mem=1G",
      "#SBATCH --partition=main",
      "#SBATCH --qos=normal",
      "#SBATCH --gres=gpu:1",
      "#SBATCH --constraint=fast",
      "#SBATCH --exclusive",
    ]
  ) assert.ok(cake.includes(line + "\n"), line);
  assert.match(cake, /--deploy-job \S+\/Baking\/cake\/Default \) &\n/);
  const whisk = scripts.get("whisk")!;
  assert.ok(whisk.includes("#SBATCH --time=00:10:00\n"));
  assert.ok(!whisk.includes("--qos"));
});

Deno.test("slurm --wait with SBATCH_EXPORT=NONE: the batch script sets SCOUT_HOME itself (R79-6)", async () => {
  const slurm = await slurmEnv();
  await using d = await tempDir();
  const r = await runScout(
    ["workflow", "task", SLOW, "nap", "--seconds", "1", "--jobname", `none-${Math.random()}`]
      .concat(["--deploy", "slurm", "--wait", "--json"]),
    { env: { SCOUT_HOME: d.path, SBATCH_EXPORT: "NONE", ...slurm } },
  );
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const [unit] = JSON.parse(r.stdout).units;
  assert.equal(readFileSync(unit.path, "utf8"), "Slept 1");
  assert.match(readFileSync(join(unit.batchDir, "command.batch"), "utf8"), /\nexport SCOUT_HOME=/);
});
