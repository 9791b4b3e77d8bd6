/**
 * A job whose run was killed with SIGKILL mid-body (its info still says
 * `start`, its process gone, its lock left behind) and then run again in
 * place keeps the dead run's `.info` and logs as an earlier attempt (R109-3),
 * as it keeps a failed one: `llm prov` counts what both runs paid, `workflow
 * info` lists the job's own files without the attempts. While the run is
 * alive and holds its lock, nothing of it is moved. Real `workflow task`
 * processes from source, a real SIGKILL, a temp SCOUT_HOME.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runScout, spawnScout, tempDir } from "../support/cli.ts";
import { createJob } from "../../src/workflow/job.ts";
import { loadWorkflowFile } from "../../src/workflow/load.ts";
import { produceJob } from "../../src/workflow/run.ts";
import { keptAttempts, setAsideEarlierRun } from "../../src/workflow/attempts.ts";
import { env, readInfo, userWorkflow } from "./cli_support.ts";

/**
 * `go` writes its log chat (a paid round's meta record) and, while a file
 * `hang` is in the working directory, waits for ever after it; else it ends.
 */
const PAID = `import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
export default (api) => api.workflow("Paid", { tasks: {
  go: { type: "string", run: async (_i, job) => {
    const hang = existsSync("hang");
    const log = job.file("log/agent.chat");
    mkdirSync(dirname(log), { recursive: true });
    const usage = hang ? "pt=11 ct=7 tt=18 inference_id=first" : "pt=5 ct=3 tt=8 inference_id=second";
    writeFileSync(log, "user: q\\n\\nmeta: " + usage + "\\n\\nassistant: a\\n");
    if (hang) await new Promise(() => setInterval(() => {}, 1000));
    return "ok";
  } },
} });
`;

/** Starts `workflow task Paid go` in `home`, and waits until its body wrote its log. */
async function hangingRun(home: string, job: string): Promise<Deno.ChildProcess> {
  writeFileSync(join(home, "hang"), "");
  const child = spawnScout(["workflow", "task", "Paid", "go"], {
    cwd: home,
    env: env(home),
    stdout: "null",
    stderr: "null",
  });
  const log = join(`${job}.files`, "log/agent.chat");
  const t0 = Date.now();
  while (!(existsSync(log) && /inference_id=first/.test(readFileSync(log, "utf8")))) {
    if (Date.now() - t0 > 30_000) throw new Error(`timed out waiting for ${log}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  rmSync(join(home, "hang"));
  return child;
}

Deno.test("workflow task: a run killed with SIGKILL and run again in place is kept as an earlier attempt; llm prov counts both runs (R109-3)", async () => {
  await using d = await tempDir();
  const file = join(userWorkflow(d.path, "Paid", PAID), "workflow.ts");
  const job = join(d.path, "var/jobs/Paid/go/Default");
  const child = await hangingRun(d.path, job);
  try {
    // alive, its lock held: another run waits for it and takes nothing of it
    const same = createJob(await loadWorkflowFile(file), "go", { env: env(d.path) });
    assert.equal(same.path, job);
    await assert.rejects(produceJob(same, { lockTimeoutMs: 300 }), /lock/i);
    assert.equal(setAsideEarlierRun(job), null);
    assert.deepEqual(keptAttempts(job), []);
    assert.equal(readInfo(job)?.status, "start");
  } finally {
    child.kill("SIGKILL");
    await child.status;
  }
  assert.equal(readInfo(job)?.status, "start", "the dead run's info says it is in progress");

  const rerun = await runScout(["workflow", "task", "Paid", "go"], {
    cwd: d.path,
    env: env(d.path),
  });
  assert.equal(rerun.code, 0, rerun.stderr);
  assert.equal(rerun.stdout.trim(), "ok");
  assert.equal(readInfo(job)?.status, "done");
  assert.match(readFileSync(join(`${job}.files`, "log/agent.chat"), "utf8"), /inference_id=second/);

  const attempt = join(`${job}.files`, ".attempts", "1");
  const dead = JSON.parse(readFileSync(`${attempt}.info`, "utf8"));
  assert.equal(dead.status, "start");
  assert.equal(dead.pid, child.pid);
  assert.match(
    readFileSync(join(`${attempt}.files`, "log/agent.chat"), "utf8"),
    /inference_id=first/,
  );

  const prov = await runScout(["llm", "prov", job, "--json"], { cwd: d.path, env: env(d.path) });
  assert.equal(prov.code, 0, prov.stderr);
  const report = JSON.parse(prov.stdout);
  const total = report.totals.deduplicated_total;
  assert.deepEqual([total.pt, total.ct, total.tt], [16, 10, 26], prov.stdout);
  const node = report.nodes.find((n: { job?: { attempt?: number } }) => n.job?.attempt === 1);
  assert.ok(node !== undefined, prov.stdout);
  assert.equal(node.label, "attempt 1 (stale)");
  // an attempt has ended whatever runs under its pid now (R130-2: a reused pid showed `start`)
  writeFileSync(`${attempt}.info`, JSON.stringify({ ...dead, pid: Deno.pid }));
  const reused = await runScout(["llm", "prov", job, "--json"], { cwd: d.path, env: env(d.path) });
  const again = JSON.parse(reused.stdout).nodes.find((n: { job?: { attempt?: number } }) =>
    n.job?.attempt === 1
  );
  assert.equal(again?.label, "attempt 1 (stale)", reused.stdout);
  assert.equal(again?.job.status, "stale", reused.stdout);

  // the job's files are its last run's: the attempts are not among them
  const info = await runScout(["workflow", "info", job, "--json"], {
    cwd: d.path,
    env: env(d.path),
  });
  assert.equal(info.code, 0, info.stderr);
  assert.deepEqual(JSON.parse(info.stdout).files, ["log/agent.chat"]);
});
