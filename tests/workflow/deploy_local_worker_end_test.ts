/**
 * `--deploy local`: a worker that ends under its job without being told to
 * stop — killed by a signal (`kill -9`, the OOM killer) or exited with a
 * code — is named so on stderr and in the job's `.info` (R106-4): `aborted`
 * with "its worker was killed by SIGKILL", `error` with "its worker exited
 * with code N"; the stale in-progress status does not stay. Real CLI, real
 * worker processes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runScout, tempDir } from "../support/cli.ts";
import { env, readInfo, userWorkflow } from "./cli_support.ts";

const NIGHT = `export default (api) => api.workflow("Night", { tasks: {
  slow: { type: "string", run: async () => { await new Promise((r) => setTimeout(r, 60000)); return "slept"; } },
  crash: { type: "string", run: () => process.exit(3) },
} });
`;

Deno.test("R106-4: a worker killed by SIGKILL under its job: stderr and the job's .info say so (aborted)", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Night", NIGHT);
  const path = join(d.path, "var/jobs/Night/slow/Default");
  const run = runScout(["workflow", "task", "Night", "slow", "--deploy", "local"], {
    cwd: d.path,
    env: env(d.path),
  });
  const t0 = Date.now();
  while (readInfo(path)?.status !== "start") {
    if (Date.now() - t0 > 60_000) throw new Error("the worker never started the job");
    await new Promise((r) => setTimeout(r, 50));
  }
  const worker = Number(readInfo(path)!.pid);
  Deno.kill(worker, "SIGKILL");
  const r = await run;
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /Job "Night\/slow\/Default" failed: its worker was killed by SIGKILL before the job finished/,
  );
  const info = readInfo(path)!;
  assert.equal(info.status, "aborted");
  assert.deepEqual(info.messages, [
    "Aborted: its worker was killed by SIGKILL before the job finished",
  ]);
  assert.equal(typeof info.end, "string");
  const shown = await runScout(["workflow", "info", path], { cwd: d.path, env: env(d.path) });
  assert.match(shown.stdout, /status +aborted/);
  assert.match(shown.stdout, /its worker was killed by SIGKILL/);
});

Deno.test("R106-4: a worker that exits with a code under its job: stderr says so, the job is recorded aborted by the exit", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Night", NIGHT);
  const path = join(d.path, "var/jobs/Night/crash/Default");
  const r = await runScout(["workflow", "task", "Night", "crash", "--deploy", "local"], {
    cwd: d.path,
    env: env(d.path),
  });
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /Job "Night\/crash\/Default" failed: its worker exited with code 3 before the job finished/,
  );
  // the worker's own exit hook recorded it first (R105-1: a process exiting under its jobs
  // records them aborted), so the parent leaves that record as it is
  const info = readInfo(path)!;
  assert.equal(info.status, "aborted");
  assert.deepEqual(info.messages, ["Aborted: interrupted by the process's exit"]);
});
