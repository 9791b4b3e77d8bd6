/**
 * `--deploy local` under a signal sent to the command only (a supervisor's
 * `kill PID`, not the whole group): its workers are stopped — SIGKILL after
 * the grace period when a body computes synchronously — the running job is
 * recorded `aborted`, one line names it, and the exit code is 128 + the
 * signal's number (R81-4, R79-8).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { DENO, SCOUT_SOURCE_ARGS, tempDir } from "../support/cli.ts";
import { env, readInfo, signalDuringJob, userWorkflow } from "./cli_support.ts";

const SLOW = `export default (api) => api.workflow("Slow", { tasks: {
  nap: { type: "string", run: async () => { await new Promise((r) => setTimeout(r, 30000)); return "slept"; } },
  spin: { type: "string", run: () => {
    const t0 = Date.now();
    while (Date.now() - t0 < 30000) { /* deaf to signals: no await */ }
    return "spun";
  } },
} });
`;

function alive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch {
    return false;
  }
}

// task, signal to the command, exit code, word on stderr, signal the job's info names: a
// worker gets SIGINT, SIGHUP (R84-4: it records the signal the command got) or SIGTERM; a
// synchronous body cannot see it, so its worker is killed and the command records the job
const CASES = [
  ["nap", "SIGTERM", 143, "Terminated", "SIGTERM"],
  ["spin", "SIGINT", 130, "Interrupted", "SIGINT"],
  ["nap", "SIGHUP", 129, "Hangup", "SIGHUP"], // the word of a hung-up ask (R91-3)
] as const;

for (const [task, signal, code, word, recorded] of CASES) {
  Deno.test(`local deploy: ${signal} to the command during ${task} stops its worker, records aborted, exits ${code} (R81-4)`, async () => {
    await using d = await tempDir();
    userWorkflow(d.path, "Slow", SLOW);
    const path = join(d.path, `var/jobs/Slow/${task}/Default`);
    const out = await signalDuringJob(d.path, ["Slow", task, "--deploy", "local"], path, signal);
    const { stderr } = out;
    const worker = Number(out.started.pid);
    assert.notEqual(worker, out.pid, "a worker runs the job");
    const stillAlive = alive(worker);
    if (stillAlive) Deno.kill(worker, "SIGKILL");
    assert.equal(out.code, code, stderr);
    assert.equal(stillAlive, false, "no worker left running");
    const info = readInfo(path)!;
    assert.equal(info.status, "aborted");
    assert.deepEqual(info.messages, [`Aborted: interrupted by ${recorded}`]);
    assert.equal(stderr, `scout-ai: ${word} (job "${path}" recorded as aborted)\n`);
    assert.equal(out.stdout, "");
  });
}

Deno.test("local deploy: a SIGKILL of the command's process group ends its workers too; the job is recorded aborted (R84-4)", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Slow", SLOW);
  // the command leads a group of its own, as under `setsid` or a job manager
  const child = spawn(DENO, [
    ...SCOUT_SOURCE_ARGS,
    "workflow",
    "task",
    "Slow",
    "nap",
    "--deploy",
    "local",
  ], {
    cwd: d.path,
    env: env(d.path),
    stdio: "ignore",
    detached: true,
  });
  const exited = new Promise((r) => child.on("exit", r));
  const path = join(d.path, "var/jobs/Slow/nap/Default");
  const t0 = Date.now();
  while (readInfo(path)?.status !== "start") {
    if (Date.now() - t0 > 30_000) throw new Error("the worker never started the job");
    await new Promise((r) => setTimeout(r, 50));
  }
  const worker = Number(readInfo(path)!.pid);
  await new Promise((r) => setTimeout(r, 300));
  process.kill(-child.pid!, "SIGKILL");
  await exited;
  const t1 = Date.now();
  while (alive(worker) && Date.now() - t1 < 5000) await new Promise((r) => setTimeout(r, 50));
  const stillAlive = alive(worker);
  if (stillAlive) Deno.kill(worker, "SIGKILL");
  assert.equal(stillAlive, false, "no worker left running");
  const info = readInfo(path)!;
  assert.equal(info.status, "aborted");
  assert.deepEqual(info.messages, [
    "Aborted: interrupted by the end of its --deploy local process",
  ]);
});
