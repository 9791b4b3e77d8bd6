/**
 * A signal caught while a job runs is never lost (R91-2): one the runtime
 * reads only after the job was recorded done (Deno reads signals when it
 * polls for I/O, not on `setImmediate` turns) still ends the process with
 * 128 + n; and the rule for a signal that finds no job running — exit as the
 * default disposition would, unless another listener takes it. Real
 * processes and real `kill`s throughout.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DENO, ROOT, spawnScout, tempDir } from "../support/cli.ts";
import { env, readInfo, userWorkflow } from "./cli_support.ts";

/**
 * A body that awaits a few turns (after which Deno reads a signal only
 * after the job is recorded done), then computes synchronously until `go`
 * exists; `spinning` says it has begun.
 */
const spin = (dir: string) =>
  `async () => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    writeFileSync(${JSON.stringify(join(dir, "spinning"))}, "");
    while (!existsSync(${JSON.stringify(join(dir, "go"))})) { /* synchronous: no await */ }
    return "finished";
  }`;

/** Whether the process's pending signals (shared and its main thread's) include `signo`. */
async function pending(pid: number, signo: number): Promise<boolean> {
  const out = await new Deno.Command("cat", { args: [`/proc/${pid}/status`] }).output();
  const status = new TextDecoder().decode(out.stdout);
  return ["ShdPnd", "SigPnd"].some((field) => {
    const hex = status.match(new RegExp(`^${field}:\\s*([0-9a-f]+)$`, "m"))?.[1] ?? "0";
    return (BigInt("0x" + hex) >> BigInt(signo - 1) & 1n) === 1n;
  });
}

/**
 * Sends SIGINT to `child` once its body is spinning, waits until the
 * runtime caught it (no longer pending), then lets the body return.
 */
async function interruptSpin(child: Deno.ChildProcess, dir: string): Promise<Deno.CommandOutput> {
  let ended = false;
  void child.status.then(() => ended = true);
  try {
    while (!existsSync(join(dir, "spinning"))) {
      if (ended) return await child.output(); // failed before its body: the assertions say how
      await new Promise((r) => setTimeout(r, 10));
    }
    child.kill("SIGINT");
    while (await pending(child.pid, 2)) await new Promise((r) => setTimeout(r, 10));
  } finally {
    writeFileSync(join(dir, "go"), ""); // the body returns, whatever happened here
  }
  return await child.output();
}

/** The job ended by the signal, or done with its whole result: never half of either. */
function assertWholeJob(path: string): void {
  const info = readInfo(path)!;
  assert.ok(!existsSync(path + ".tmp"), "no tmp result left");
  if (info.status === "aborted") assert.equal(existsSync(path), false, "no result when aborted");
  else {
    assert.equal(info.status, "done", JSON.stringify(info));
    assert.equal(readFileSync(path, "utf8"), "finished");
  }
}

Deno.test("workflow task: a SIGINT read after the job was recorded done still exits 130 (R91-2)", async () => {
  await using d = await tempDir();
  userWorkflow(
    d.path,
    "Late",
    `import { existsSync, writeFileSync } from "node:fs";
export default (api) => api.workflow("Late", { tasks: {
  spin: { type: "string", run: ${spin(d.path)} },
} });
`,
  );
  const child = spawnScout(["workflow", "task", "Late", "spin"], { cwd: d.path, env: env(d.path) });
  const out = await interruptSpin(child, d.path);
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 130, `the signal was lost (stderr: ${stderr})`);
  assert.equal(out.signal, null, "exited by the handler, not killed");
  assertWholeJob(join(d.path, "var/jobs/Late/spin/Default"));
});

/**
 * A job tracked as running, then finished: mode `spin` computes
 * synchronously until `go` exists (`spinning` says it has begun) and ends
 * the process right after the job. Else `own` (if any) listens, the process
 * sends itself SIGINT and `own` a second one 100 ms later; prints what ran.
 */
const AFTER_JOB = (dir: string) => `
import { existsSync, writeFileSync } from "node:fs";
import { handleInterrupts, holdInterruptExit, trackRunning } from "${
  join(ROOT, "src", "workflow", "interrupt.ts")
}";
const mode = Deno.args[0];
handleInterrupts(); // as the CLI does
if (mode === "spin") {
  const untrack = trackRunning("job", () => {});
  writeFileSync(${JSON.stringify(join(dir, "spinning"))}, "");
  while (!existsSync(${JSON.stringify(join(dir, "go"))})) { /* synchronous: no await */ }
  untrack();
} else {
  const own = () => {
    console.log("own");
    if (mode === "once") {
      setTimeout(() => { console.log("again"); process.kill(process.pid, "SIGINT"); }, 100);
    }
  };
  if (mode === "once") process.once("SIGINT", own);
  if (mode === "held") { process.on("SIGINT", own); holdInterruptExit(); }
  trackRunning("job", () => {})();
  process.kill(process.pid, "SIGINT");
  setTimeout(() => { console.log("survived"); process.off("SIGINT", own); }, 1000);
}
`;

function afterJobProcess(dir: string, mode: string): Deno.ChildProcess {
  const script = join(dir, "after_job.ts");
  writeFileSync(script, AFTER_JOB(dir));
  return new Deno.Command(DENO, {
    args: ["run", "-A", "--no-lock", "--no-check", script, mode],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

async function afterJob(dir: string, mode: string): Promise<Deno.CommandOutput & { text: string }> {
  const out = await afterJobProcess(dir, mode).output();
  return { ...out, text: new TextDecoder().decode(out.stdout) };
}

Deno.test("interrupt: a process that ends right after its job still exits 130 on a SIGINT caught during it (R91-2)", async () => {
  await using d = await tempDir();
  const out = await interruptSpin(afterJobProcess(d.path, "spin"), d.path);
  assert.equal(
    out.code,
    130,
    `the signal was lost (stderr: ${new TextDecoder().decode(out.stderr)})`,
  );
  assert.equal(out.signal, null, "exited by the handler, not killed");
});

Deno.test("interrupt: a signal with no job running and no other listener exits 130, as by default", async () => {
  await using d = await tempDir();
  const out = await afterJob(d.path, "alone");
  assert.equal(out.text, "");
  assert.equal(out.code, 130);
  assert.equal(out.signal, null, "exited by the listener that stays installed");
});

Deno.test("interrupt: a signal with no job running is left to another listener, even a once one it calls", async () => {
  await using d = await tempDir();
  // the once listener runs and the process goes on; the second signal finds none: 130
  const once = await afterJob(d.path, "once");
  assert.equal(once.text, "own\nagain\n");
  assert.equal(once.code, 130);
  assert.equal(once.signal, null);
  // a holder's own listener (an ask's) takes it: the process goes on
  const held = await afterJob(d.path, "held");
  assert.equal(held.text, "own\nsurvived\n");
  assert.equal(held.code, 0);
});
