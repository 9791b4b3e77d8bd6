/**
 * `workflow task` under a signal waits for its aborted job's run to settle
 * before it exits (R109-2), so that the body, told by its signal, can log
 * what it did; bounded: a body deaf to its signal costs `DRAIN_MS` at most,
 * a second signal (past the grace period that ignores the first one's copy)
 * exits at once. The exit code and the job's `aborted` record are the
 * signal's, as before. Real processes, real signals.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/cli.ts";
import { readInfo, startedJob, userWorkflow } from "./cli_support.ts";
import { DRAIN_MS, SIGNAL_GRACE_MS } from "../../src/workflow/interrupt.ts";

/** A task that, on its signal, writes `saved` after `ms` milliseconds (a slow log), then fails. */
const saving = (dir: string, ms: number) =>
  `{ type: "string", run: async (_inputs, job) => {
    await new Promise((r) => job.signal.addEventListener("abort", r));
    await new Promise((r) => setTimeout(r, ${ms}));
    writeFileSync(${JSON.stringify(join(dir, "saved"))}, "yes");
    throw new Error("interrupted");
  } }`;

/** The body's log comes just before the bound. */
const SLOW = DRAIN_MS - 100;

/** Tasks `save` (a log taking 300 ms), `slow` (SLOW ms) and `deaf` (ignores its signal 30 s). */
const SAVER = (dir: string) =>
  `import { writeFileSync } from "node:fs";
export default (api) => api.workflow("Saver", { tasks: {
  save: ${saving(dir, 300)},
  slow: ${saving(dir, SLOW)},
  deaf: { type: "string", run: async () => {
    await new Promise((r) => setTimeout(r, 30_000));
    return "slept";
  } },
} });
`;

/**
 * Runs `workflow task Saver …args` in `dir`; once the job at `path` has
 * started, sends SIGTERM, and again after each of `again` milliseconds.
 * Returns the exit code, stderr and how long the process took after the first signal.
 */
async function terminated(dir: string, args: string[], path: string, again: number[] = []) {
  const { child } = await startedJob(dir, ["Saver", ...args], path);
  const at = Date.now();
  child.kill("SIGTERM");
  for (const ms of again) {
    setTimeout(() => {
      try {
        child.kill("SIGTERM");
      } catch { /* it exited already */ }
    }, ms);
  }
  const out = await child.output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr), ms: Date.now() - at };
}

function assertAborted(path: string, stderr: string): void {
  const info = readInfo(path)!;
  assert.equal(info.status, "aborted", JSON.stringify(info));
  assert.deepEqual(info.messages, ["Aborted: interrupted by SIGTERM"]);
  assert.equal(existsSync(path), false, "no result");
  assert.equal(stderr, `scout-ai: Terminated (job "${path}" recorded as aborted)\n`);
}

Deno.test("workflow task: SIGTERM lets the aborted job's body finish its log first; its copy is ignored (R109-2)", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Saver", SAVER(d.path));
  const path = join(d.path, "var/jobs/Saver/save/Default");
  // a copy of the signal (deno task's, a terminal's group) comes 50 ms later
  const r = await terminated(d.path, ["save"], path, [50]);
  assert.equal(r.code, 143, r.stderr);
  assert.equal(existsSync(join(d.path, "saved")), true, "the body's log was written");
  assertAborted(path, r.stderr);
});

Deno.test("workflow task: a second SIGTERM past the grace period exits at once (R109-2)", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Saver", SAVER(d.path));
  const path = join(d.path, "var/jobs/Saver/slow/Default");
  const r = await terminated(d.path, ["slow"], path, [SIGNAL_GRACE_MS + 200]);
  assert.equal(r.code, 143, r.stderr);
  assert.equal(existsSync(join(d.path, "saved")), false, "exited before the body's log");
  assert.ok(r.ms < SLOW, `exited ${r.ms} ms after the first signal`);
  assertAborted(path, r.stderr);
});

Deno.test("workflow task: a body deaf to its signal holds the exit DRAIN_MS at most (R109-2)", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Saver", SAVER(d.path));
  const path = join(d.path, "var/jobs/Saver/deaf/Default");
  const r = await terminated(d.path, ["deaf"], path);
  assert.equal(r.code, 143, r.stderr);
  assert.ok(r.ms >= DRAIN_MS - 100, `exited ${r.ms} ms after the signal: no wait`);
  assert.ok(r.ms < DRAIN_MS + 5_000, `exited ${r.ms} ms after the signal`);
  assertAborted(path, r.stderr);
});
