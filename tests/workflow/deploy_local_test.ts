/**
 * `--deploy local`: worker processes of this program run the graph; each job
 * computed once even with two commands racing; `--cpus` and per-task `cpus`
 * bound the concurrency; a failure is recorded and reported; usage errors.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runScout, tempDir } from "../support/cli.ts";
import { BAKING } from "./cli_support.ts";
import { fanWorkflow } from "./deploy_fixtures.ts";

function logLines(file: string): string[][] {
  return readFileSync(file, "utf8").trim().split("\n").map((l) => l.split(" "));
}

/** Largest number of leaf runs that overlap in time. */
function maxOverlap(lines: string[][]): number {
  const events: [number, number][] = [];
  for (const [task, , s, e] of lines) {
    if (task !== "leaf") continue;
    events.push([Number(s), 1], [Number(e), -1]);
  }
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let cur = 0;
  let max = 0;
  for (const [, d] of events) max = Math.max(max, cur += d);
  return max;
}

Deno.test("local deploy: a 200-job fan-out, two commands racing, computes each job once", async () => {
  await using d = await tempDir();
  const wf = fanWorkflow(d.path, 200);
  const log = join(d.path, "runs.log");
  const env = { SCOUT_HOME: d.path, FAN_LOG: log };
  const args = ["workflow", "task", wf, "top", "--deploy", "local", "--cpus", "2"];
  const [a, b] = await Promise.all([runScout(args, { env }), runScout(args, { env })]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(b.code, 0, b.stderr);
  assert.equal(a.stdout, `${200 * 201}\n`);
  assert.equal(b.stdout, a.stdout);
  const lines = logLines(log);
  const leaves = lines.filter((l) => l[0] === "leaf").map((l) => Number(l[1])).sort((x, y) =>
    x - y
  );
  assert.deepEqual(leaves, Array.from({ length: 200 }, (_, i) => i + 1));
  assert.equal(lines.filter((l) => l[0] === "top").length, 1);
  // Workers, not the commands themselves, computed the jobs: more than one pid.
  assert.ok(new Set(lines.map((l) => l[4])).size >= 2);
});

Deno.test("local deploy: --cpus bounds concurrency and a task's rules cpus count", async () => {
  await using d = await tempDir();
  const wf = fanWorkflow(d.path, 6);
  const one = join(d.path, "one.log");
  const two = join(d.path, "two.log");
  const base = ["workflow", "task", wf, "top", "--deploy", "local", "--cpus", "2"];
  const r1 = await runScout(base, {
    env: { SCOUT_HOME: join(d.path, "h1"), FAN_LOG: one, FAN_SPIN_MS: "150" },
  });
  assert.equal(r1.code, 0, r1.stderr);
  assert.equal(r1.stdout, "42\n");
  assert.equal(maxOverlap(logLines(one)), 2);
  const rules = join(d.path, "rules.yaml");
  writeFileSync(rules, "Fan:\n  leaf: { cpus: 2 }\n");
  const r2 = await runScout([...base, "--deploy-rules", rules], {
    env: { SCOUT_HOME: join(d.path, "h2"), FAN_LOG: two, FAN_SPIN_MS: "150" },
  });
  assert.equal(r2.code, 0, r2.stderr);
  assert.equal(maxOverlap(logLines(two)), 1);
});

Deno.test("local deploy: a failing job is recorded, reported, and its dependents do not run", async () => {
  await using d = await tempDir();
  const wf = fanWorkflow(d.path, 4);
  const log = join(d.path, "runs.log");
  const env = { SCOUT_HOME: d.path, FAN_LOG: log, FAN_BAD: "3" };
  const r = await runScout(["workflow", "task", wf, "top", "--deploy", "local", "--cpus", "1"], {
    env,
  });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^scout-ai: Job "Fan\/leaf\/Default_\w+" failed: Leaf 3 is bad \(/);
  assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
  assert.equal(logLines(log).filter((l) => l[0] === "top").length, 0);
  // The rerun with the input fixed computes only what is missing.
  const again = await runScout(["workflow", "task", wf, "top", "--deploy", "local"], {
    env: { ...env, FAN_BAD: "" },
  });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stdout, "20\n");
  const leaves = logLines(log).filter((l) => l[0] === "leaf").map((l) => l[1]).sort();
  assert.deepEqual(leaves, ["1", "2", "3", "4"]);
});

Deno.test("--deploy usage errors exit 2 with one line; an option of another mode is one (R79-13)", async () => {
  await using d = await tempDir();
  const wf = fanWorkflow(d.path, 2);
  const env = { SCOUT_HOME: d.path };
  for (
    const [extra, msg] of [
      [["--deploy", "cloud"], /Unknown --deploy "cloud"/],
      [["--deploy", "local", "--cpus", "0"], /--cpus "0"/],
      [["--dry-run"], /--dry-run and --wait go with --deploy slurm/],
      [["--deploy", "local", "--n", "-"], /stdin/],
      // options of another mode are not ignored silently (R79-13)
      [["--deploy-rules", "nonexist.yaml"], /--deploy-rules goes with --deploy local or slurm/],
      [["--batch-dir", "/x"], /--batch-dir goes with --deploy slurm/],
      [["--deploy", "local", "--batch-dir", "/x"], /--batch-dir goes with --deploy slurm/],
      [["--cpus", "2"], /--cpus goes with --deploy local$/m],
      [
        ["--deploy", "slurm", "--cpus", "8", "--dry-run"],
        /--cpus goes with --deploy local \(a batch job's CPUs come from --deploy-rules: cpus\)/,
      ],
    ] as const
  ) {
    const r = await runScout(["workflow", "task", wf, "top", ...extra], { env });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, msg);
    assert.match(r.stderr.split("\n")[0]!, msg);
  }
});

Deno.test("local deploy: a job path with a newline (in SCOUT_HOME or --jobname) reaches the workers whole (R102-6)", async () => {
  await using d = await tempDir();
  const home = join(d.path, "home\nb");
  const args = ["workflow", "task", BAKING, "cake", "--eggs", "61", "--jobname", "run\n2"];
  const serial = await runScout(args, { env: { SCOUT_HOME: join(d.path, "serial") } });
  assert.equal(serial.code, 0, serial.stderr);
  const r = await runScout([...args, "--deploy", "local", "--cpus", "2"], {
    env: { SCOUT_HOME: home },
  });
  assert.equal(r.code, 0, r.stderr); // before: Job "…/whisk/run" is not in the graph…
  assert.equal(r.stdout, serial.stdout);
  assert.doesNotMatch(r.stderr, /not in the graph/);
  // the jobs are the home's, their names keep the newline
  const cakes = readdirSync(join(home, "var", "jobs", "Baking", "cake"));
  assert.ok(cakes.some((n) => n.startsWith("run\n2_") && !n.includes(".")), cakes.join(", "));
});
